// The `splitpoint.*` settings as the host reads them, from any source that answers like VS Code's
// WorkspaceConfiguration (get / inspect). Plain TypeScript (no `vscode` import): tested in Node.
import type { HostSettings } from '../agent/hostSettings';
import { STRATEGY_NAMES, type StrategyName } from '../core';

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

export function settingsFrom(c: SettingsSource): HostSettings {
  const model = c.get<string>('model', 'claude-sonnet-4-5').trim() || 'claude-sonnet-4-5';
  const windows = c.get<Record<string, number>>('contextWindows', {}) ?? {};
  const defaultWindow = positive(c.get<number>('defaultContextWindow'), 200_000);
  const strategy = c.get<string>('autoCompact.strategy', 'recursive-summarization');
  return {
    model,
    baseUrl: c.get<string>('baseUrl', '').trim() || undefined,
    maxOutputTokens: positive(c.get<number>('maxOutputTokens'), 8192),
    contextWindow: positive(windows[model], defaultWindow),
    autoCompact: {
      enabled: c.get<boolean>('autoCompact.enabled', true),
      threshold: clamp(c.get<number>('autoCompact.threshold', 0.8), 0.1, 0.99),
      strategy: (STRATEGY_NAMES as readonly string[]).includes(strategy) ? (strategy as StrategyName) : 'recursive-summarization',
    },
    strategyParams: c.get<Record<string, Record<string, number>>>('strategyParams', {}) ?? {},
    microCompact: {
      keepRecent: Math.max(0, Math.floor(c.get<number>('microCompact.keepRecent', 3))),
      minChars: Math.max(0, Math.floor(c.get<number>('microCompact.minChars', 100))),
    },
    transcriptFolder: c.get<string>('transcriptFolder', '.transcripts').trim() || '.transcripts',
    commandTimeoutMs: positive(c.get<number>('commandTimeoutSeconds'), 120) * 1000,
  };
}

function positive(v: number | undefined, fallback: number): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : fallback;
}

function clamp(v: number, lo: number, hi: number): number {
  return Number.isFinite(v) ? Math.min(hi, Math.max(lo, v)) : 0.8;
}
