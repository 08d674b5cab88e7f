// The settings the controller needs, independent of where they come from (VS Code settings in the
// extension, plain objects in tests), how they are read from a settings source, and what ships.
import {
  AUTO_COMPACT_POLICIES,
  STRATEGY_NAMES,
  type AutoCompactPolicy,
  type MicroCompactSettings,
  type PromptCachingSetting,
  type StrategyName,
} from '../core';
import { settingSchema, shippedDefault, shippedSettings } from './schema';
import {
  contextWindowOf,
  positive,
  promptCachingOf,
  userOrDefault,
  type IgnoredSetting,
  type SensitiveSetting,
  type SettingsSource,
} from './settingsModel';

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
    /** 'threshold': at the threshold; 'pays': also earlier, when compacting pays back (issue 25). */
    policy?: AutoCompactPolicy;
    /** At most one auto-compaction per this many model calls unless the window forces it. */
    minCallsBetween?: number;
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
  /** Prompt-cache breakpoints on every model call: their TTL, 'auto' (chosen from the gaps between calls), or 'off'. */
  promptCaching: PromptCachingSetting;
  /** The user's own standing instructions (splitpoint.instructions, user settings only); '' = none. */
  instructions?: string;
  /** "Check this compaction" (issue 22): when it runs, and the model asked ('' = the cheapest of the session's family). Absent: the defaults. */
  probes?: ProbeSettings;
  /** Compaction summaries (issue 25): their model ('' = the session's) and max_tokens (0 = sized by the probes). Absent: the defaults. */
  summary?: SummarySettings;
}

export interface SummarySettings {
  model: string;
  maxTokens: number;
}

export interface ProbeSettings {
  afterCompaction: 'off' | 'ask' | 'always';
  model: string;
}

/** The controller's settings from `c`; a workspace value of a sensitive setting is passed to `onIgnored`. */
export function settingsFrom(c: SettingsSource, onIgnored?: (i: IgnoredSetting) => void): HostSettings {
  const sensitive = (key: SensitiveSetting): string => userOrDefault(c.inspect<unknown>(key), onIgnored)?.trim() ?? '';
  const model = c.get<string>('model', shippedDefault('model')).trim() || shippedDefault('model');
  const strategy = c.get<string>('autoCompact.strategy', shippedDefault('autoCompact.strategy'));
  const count = (key: 'keepRecent' | 'minChars' | 'triggerTokens' | 'clearAtLeast') =>
    Math.max(0, Math.floor(c.get<number>(`microCompact.${key}`, shippedDefault(`microCompact.${key}`))));
  return {
    model,
    baseUrl: sensitive('baseUrl') || undefined,
    maxOutputTokens: positive(c.get<number>('maxOutputTokens'), shippedDefault('maxOutputTokens')),
    contextWindow: contextWindowOf(c, model),
    autoCompact: {
      enabled: c.get<boolean>('autoCompact.enabled', shippedDefault('autoCompact.enabled')),
      threshold: threshold(c.get<number>('autoCompact.threshold', shippedDefault('autoCompact.threshold'))),
      strategy: (STRATEGY_NAMES as readonly string[]).includes(strategy)
        ? (strategy as StrategyName)
        : (shippedDefault('autoCompact.strategy') as StrategyName),
      review: reviewOf(c.get<unknown>('autoCompact.review', shippedDefault('autoCompact.review'))),
      reviewTimeoutSeconds: positive(c.get<number>('autoCompact.reviewTimeoutSeconds'), shippedDefault('autoCompact.reviewTimeoutSeconds')),
      policy: policyOf(c.get<unknown>('autoCompact.policy', shippedDefault('autoCompact.policy'))),
      minCallsBetween: positive(c.get<number>('autoCompact.minCallsBetween'), shippedDefault('autoCompact.minCallsBetween')),
    },
    strategyParams: c.get<Record<string, Record<string, number>>>('strategyParams', shippedDefault('strategyParams')) ?? {},
    microCompact: {
      keepRecent: count('keepRecent'),
      minChars: count('minChars'),
      triggerTokens: count('triggerTokens'),
      clearAtLeast: count('clearAtLeast'),
      tools: toolNames(c.get<unknown>('microCompact.tools', shippedDefault('microCompact.tools'))),
      cacheAware: c.get<boolean>('microCompact.cacheAware', shippedDefault('microCompact.cacheAware')) !== false,
      horizonTurns: positive(c.get<number>('microCompact.horizonTurns'), shippedDefault('microCompact.horizonTurns')),
      supersede: c.get<boolean>('microCompact.supersede', shippedDefault('microCompact.supersede')) !== false,
    },
    serverContext: {
      excludeTools: (c.get<string[]>('serverContext.excludeTools', shippedDefault('serverContext.excludeTools')) ?? []).filter(
        (t) => typeof t === 'string' && t.trim() !== '',
      ),
      instructions: String(c.get<string>('serverContext.instructions', shippedDefault('serverContext.instructions')) ?? ''),
    },
    transcriptFolder: sensitive('transcriptFolder') || shippedDefault('transcriptFolder'),
    commandTimeoutMs: positive(c.get<number>('commandTimeoutSeconds'), shippedDefault('commandTimeoutSeconds')) * 1000,
    checkpoints: {
      enabled: c.get<boolean>('checkpoints.enabled', shippedDefault('checkpoints.enabled')) !== false,
      maxCount: positive(c.get<number>('checkpoints.maxCount'), shippedDefault('checkpoints.maxCount')),
      maxFileKB: positive(c.get<number>('checkpoints.maxFileSizeKB'), shippedDefault('checkpoints.maxFileSizeKB')),
      maxStorageMB: positive(c.get<number>('checkpoints.maxStorageMB'), shippedDefault('checkpoints.maxStorageMB')),
    },
    promptCaching: promptCachingOf(c.get<unknown>('promptCaching', shippedDefault('promptCaching'))),
    probes: probeSettingsOf(c),
    summary: summarySettingsOf(c),
    instructions: sensitive('instructions'),
  };
}

/** `splitpoint.probes.*`: an unknown afterCompaction is the default; the model trimmed ('' = the family's cheapest). */
function probeSettingsOf(c: SettingsSource): ProbeSettings {
  const after = c.get<unknown>('probes.afterCompaction', shippedDefault('probes.afterCompaction'));
  const model = c.get<unknown>('probes.model', shippedDefault('probes.model'));
  return {
    afterCompaction: after === 'off' || after === 'ask' || after === 'always' ? after : (shippedDefault('probes.afterCompaction') as 'ask'),
    model: typeof model === 'string' ? model.trim() : '',
  };
}

/** `splitpoint.summaryModel` trimmed ('' = the session's model) and `splitpoint.summaryMaxTokens` (0 or not a number: sized by the probes). */
function summarySettingsOf(c: SettingsSource): SummarySettings {
  const model = c.get<unknown>('summaryModel', shippedDefault('summaryModel'));
  const max = c.get<unknown>('summaryMaxTokens', shippedDefault('summaryMaxTokens'));
  const maximum = settingSchema('summaryMaxTokens')?.maximum ?? Number.MAX_SAFE_INTEGER;
  return {
    model: typeof model === 'string' ? model.trim() : '',
    maxTokens: typeof max === 'number' && Number.isFinite(max) && max > 0 ? Math.min(maximum, Math.floor(max)) : 0,
  };
}

/** The tools filter: the non-empty names of a string list (anything else: all tools). */
function toolNames(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((t): t is string => typeof t === 'string' && t.trim() !== '').map((t) => t.trim()) : [];
}

/** `splitpoint.autoCompact.review`: "never" or "always"; anything else is the default. */
function reviewOf(v: unknown): 'never' | 'always' {
  return v === 'never' || v === 'always' ? v : (shippedDefault('autoCompact.review') as 'never' | 'always');
}

/** `splitpoint.autoCompact.policy`: "threshold" or "pays"; anything else is the default. */
function policyOf(v: unknown): AutoCompactPolicy {
  return (AUTO_COMPACT_POLICIES as readonly unknown[]).includes(v)
    ? (v as AutoCompactPolicy)
    : (shippedDefault('autoCompact.policy') as AutoCompactPolicy);
}

/** `splitpoint.autoCompact.threshold` within the schema's range (not a number: the default). */
function threshold(v: number): number {
  const { minimum, maximum } = settingSchema('autoCompact.threshold') ?? {};
  if (!Number.isFinite(v)) return shippedDefault('autoCompact.threshold');
  return Math.min(maximum ?? 1, Math.max(minimum ?? 0, v));
}

/** The settings as they ship: package.json's defaults, read the way the extension reads them. */
export const DEFAULT_HOST_SETTINGS: HostSettings = settingsFrom(shippedSettings());
