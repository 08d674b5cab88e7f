// The settings the controller needs, independent of where they come from (VS Code settings in the
// extension, plain objects in tests).
import type { MicroCompactSettings, StrategyName } from '../core';
import type { PromptCaching } from '../agent/loop/promptCache';

export interface HostSettings {
  model: string;
  /**
   * The Messages API base URL (undefined: the SDK's default). From the user's settings only, never a
   * workspace's; the extension hands the key out for it only with the user's consent (baseUrlConsent).
   */
  baseUrl?: string;
  maxOutputTokens: number;
  contextWindow: number;
  autoCompact: {
    enabled: boolean;
    threshold: number;
    strategy: StrategyName;
    /** 'always': auto-compaction pauses at a safe point for the user to review the summary draft. */
    review?: 'never' | 'always';
    /** A draft under review is applied unedited after this many seconds without an answer. */
    reviewTimeoutSeconds?: number;
  };
  /** Parameter overrides per strategy name. */
  strategyParams: Record<string, Record<string, number>>;
  /** Layer 1 (see MicroCompactSettings): keepRecent, minChars, triggerTokens, clearAtLeast, tools, cacheAware, horizonTurns. */
  microCompact: MicroCompactSettings;
  /** The server strategies' options that are not numbers: clear_tool_uses exclude_tools, compact instructions. */
  serverContext?: { excludeTools: string[]; instructions: string };
  /** Relative to the workspace root, or absolute. From the user's settings only, never a workspace's. */
  transcriptFolder: string;
  commandTimeoutMs: number;
  /** File checkpoints before a prompt's first change (absent: on, with the defaults). */
  checkpoints?: { enabled: boolean; maxCount: number; maxFileKB: number; maxStorageMB: number };
  /** Prompt-cache breakpoints on every model call: their TTL, or 'off'. */
  promptCaching: PromptCaching;
}

export const DEFAULT_HOST_SETTINGS: HostSettings = {
  model: 'claude-sonnet-4-5',
  maxOutputTokens: 8192,
  contextWindow: 200_000,
  autoCompact: { enabled: true, threshold: 0.8, strategy: 'recursive-summarization', review: 'never', reviewTimeoutSeconds: 300 },
  strategyParams: {},
  // Cache-aware batching ships on: old results are cleared in one batch when it pays back the re-written cache.
  // Batches of at least 20,000 tokens, over 25,000 tokens of old results: tuned with splitpoint replay.
  microCompact: {
    keepRecent: 3,
    minChars: 100,
    triggerTokens: 25_000,
    clearAtLeast: 20_000,
    tools: [],
    cacheAware: true,
    horizonTurns: 10,
  },
  serverContext: { excludeTools: [], instructions: '' },
  transcriptFolder: '.transcripts',
  commandTimeoutMs: 120_000,
  checkpoints: { enabled: true, maxCount: 50, maxFileKB: 1024, maxStorageMB: 500 },
  promptCaching: '5m',
};
