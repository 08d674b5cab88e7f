// The `splitpoint.*` settings as the host reads them, from any source that answers like VS Code's
// WorkspaceConfiguration (get / inspect). Plain TypeScript (no `vscode` import): tested in Node.
//
// Settings that move data or secrets are SENSITIVE: where the API key and the conversation go
// (baseUrl) and where the full history is written (transcriptFolder). A cloned repository's
// .vscode/settings.json must not redirect them, so only the user's own value (or the default) is
// read, in trusted workspaces too; a workspace or folder value is reported and ignored. The
// manifest declares them machine-scoped and restricted in untrusted workspaces as well.
import type { HostSettings } from './hostSettings';
import { PROMPT_CACHING_VALUES, type PromptCaching } from '../agent/loop/promptCache';
import { contextWindowFor, STRATEGY_NAMES, type StrategyName } from '../core';

/** What `inspect()` on a WorkspaceConfiguration answers (the scopes this module looks at). */
export interface InspectedSetting<T> {
  key: string;
  defaultValue?: T;
  globalValue?: T;
  workspaceValue?: T;
  workspaceFolderValue?: T;
}

/** The part of vscode.WorkspaceConfiguration (for section `splitpoint`) the settings are read from. */
export interface SettingsSource {
  get<T>(section: string, defaultValue: T): T;
  get<T>(section: string): T | undefined;
  inspect<T>(section: string): InspectedSetting<T> | undefined;
}

/** Settings (under `splitpoint.`) that only the user's own settings may set. */
export const SENSITIVE_SETTINGS = ['baseUrl', 'transcriptFolder'] as const;
export type SensitiveSetting = (typeof SENSITIVE_SETTINGS)[number];

/** A workspace or folder value of a sensitive setting that was not used. */
export interface IgnoredSetting {
  key: string;
  scope: 'workspace' | 'workspaceFolder';
  value: unknown;
}

/**
 * A sensitive string setting: the user's value, else the default (never a workspace or folder value,
 * each of which is passed to `onIgnored`). Wrong-typed values count as unset.
 */
export function userOrDefault(
  inspected: InspectedSetting<unknown> | undefined,
  onIgnored?: (i: IgnoredSetting) => void,
): string | undefined {
  if (!inspected) return undefined;
  if (inspected.workspaceValue !== undefined) onIgnored?.({ key: inspected.key, scope: 'workspace', value: inspected.workspaceValue });
  if (inspected.workspaceFolderValue !== undefined)
    onIgnored?.({ key: inspected.key, scope: 'workspaceFolder', value: inspected.workspaceFolderValue });
  for (const v of [inspected.globalValue, inspected.defaultValue]) if (typeof v === 'string') return v;
  return undefined;
}

export function settingsFrom(c: SettingsSource, onIgnored?: (i: IgnoredSetting) => void): HostSettings {
  const sensitive = (key: SensitiveSetting): string => userOrDefault(c.inspect<unknown>(key), onIgnored)?.trim() ?? '';
  const model = c.get<string>('model', 'claude-sonnet-4-5').trim() || 'claude-sonnet-4-5';
  const strategy = c.get<string>('autoCompact.strategy', 'recursive-summarization');
  return {
    model,
    baseUrl: sensitive('baseUrl') || undefined,
    maxOutputTokens: positive(c.get<number>('maxOutputTokens'), 8192),
    contextWindow: contextWindowOf(c, model),
    autoCompact: {
      enabled: c.get<boolean>('autoCompact.enabled', true),
      threshold: clamp(c.get<number>('autoCompact.threshold', 0.8), 0.1, 0.99),
      strategy: (STRATEGY_NAMES as readonly string[]).includes(strategy) ? (strategy as StrategyName) : 'recursive-summarization',
      review: c.get<string>('autoCompact.review', 'never') === 'always' ? 'always' : 'never',
      reviewTimeoutSeconds: positive(c.get<number>('autoCompact.reviewTimeoutSeconds'), 300),
    },
    strategyParams: c.get<Record<string, Record<string, number>>>('strategyParams', {}) ?? {},
    microCompact: {
      keepRecent: Math.max(0, Math.floor(c.get<number>('microCompact.keepRecent', 3))),
      minChars: Math.max(0, Math.floor(c.get<number>('microCompact.minChars', 100))),
      triggerTokens: Math.max(0, Math.floor(c.get<number>('microCompact.triggerTokens', 25_000))),
      clearAtLeast: Math.max(0, Math.floor(c.get<number>('microCompact.clearAtLeast', 20_000))),
      tools: toolNames(c.get<unknown>('microCompact.tools', [])),
      cacheAware: c.get<boolean>('microCompact.cacheAware', true) !== false,
      horizonTurns: positive(c.get<number>('microCompact.horizonTurns'), 10),
    },
    serverContext: {
      excludeTools: (c.get<string[]>('serverContext.excludeTools', []) ?? []).filter((t) => typeof t === 'string' && t.trim() !== ''),
      instructions: String(c.get<string>('serverContext.instructions', '') ?? ''),
    },
    transcriptFolder: sensitive('transcriptFolder') || '.transcripts',
    commandTimeoutMs: positive(c.get<number>('commandTimeoutSeconds'), 120) * 1000,
    checkpoints: {
      enabled: c.get<boolean>('checkpoints.enabled', true) !== false,
      maxCount: positive(c.get<number>('checkpoints.maxCount'), 50),
      maxFileKB: positive(c.get<number>('checkpoints.maxFileSizeKB'), 1024),
      maxStorageMB: positive(c.get<number>('checkpoints.maxStorageMB'), 500),
    },
    promptCaching: promptCachingOf(c.get<unknown>('promptCaching', '5m')),
  };
}

/** The tools filter: the non-empty names of a string list (anything else: all tools). */
function toolNames(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((t): t is string => typeof t === 'string' && t.trim() !== '').map((t) => t.trim()) : [];
}

/**
 * The context window of `model`: splitpoint.contextWindows[model], else splitpoint.defaultContextWindow
 * if the user set it, else the built-in table of model windows (core/cost.ts), else 200,000.
 */
export function contextWindowOf(c: SettingsSource, model: string): number {
  const windows = c.get<Record<string, number>>('contextWindows', {}) ?? {};
  const d = c.inspect<number>('defaultContextWindow');
  const userDefault = d?.workspaceFolderValue ?? d?.workspaceValue ?? d?.globalValue;
  const fallback = contextWindowFor(model) ?? positive(c.get<number>('defaultContextWindow'), 200_000);
  return positive(windows[model], positive(userDefault, fallback));
}

/** `splitpoint.promptCaching`: "5m", "1h" or "off"; anything else is the default "5m". */
export function promptCachingOf(v: unknown): PromptCaching {
  return (PROMPT_CACHING_VALUES as readonly unknown[]).includes(v) ? (v as PromptCaching) : '5m';
}

function positive(v: number | undefined, fallback: number): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : fallback;
}

function clamp(v: number, lo: number, hi: number): number {
  return Number.isFinite(v) ? Math.min(hi, Math.max(lo, v)) : 0.8;
}
