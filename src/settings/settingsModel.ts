// The `splitpoint.*` settings as the host reads them, from any source that answers like VS Code's
// WorkspaceConfiguration (get / inspect). Plain TypeScript (no `vscode` import): tested in Node.
//
// Settings that move data or secrets are SENSITIVE: where the API key and the conversation go
// (baseUrl) and where the full history is written (transcriptFolder). A cloned repository's
// .vscode/settings.json must not redirect them, so only the user's own value (or the default) is
// read, in trusted workspaces too; a workspace or folder value is reported and ignored. The
// manifest declares them machine-scoped and restricted in untrusted workspaces as well.
// Every fallback (an unset, blank or out-of-range value) is the schema's default (./schema.ts).
// The controller's settings (HostSettings) are read with these rules in ./hostSettings.ts.
import { contextWindowFor, type PromptCachingSetting } from '../core';
import { shippedDefault } from './schema';
import type { InspectedSetting, SettingsSource } from './settingsSource';

export type { InspectedSetting, SettingsSource } from './settingsSource';

/** The values of `splitpoint.promptCaching` the host understands (the manifest's enum; a test compares them). */
export const PROMPT_CACHING_VALUES: readonly PromptCachingSetting[] = ['5m', '1h', 'auto', 'off'];

/** Settings (under `splitpoint.`) that only the user's own settings may set. */
export const SENSITIVE_SETTINGS = ['baseUrl', 'transcriptFolder', 'instructions'] as const;
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

/**
 * The context window of `model`: splitpoint.contextWindows[model], else splitpoint.defaultContextWindow
 * if the user set it, else the built-in table of model windows (core/cost.ts), else 200,000.
 */
export function contextWindowOf(c: SettingsSource, model: string): number {
  const windows = c.get<Record<string, number>>('contextWindows', shippedDefault('contextWindows')) ?? {};
  const d = c.inspect<number>('defaultContextWindow');
  const userDefault = d?.workspaceFolderValue ?? d?.workspaceValue ?? d?.globalValue;
  const fallback = contextWindowFor(model) ?? positive(c.get<number>('defaultContextWindow'), shippedDefault('defaultContextWindow'));
  return positive(windows[model], positive(userDefault, fallback));
}

/** `splitpoint.promptCaching`: "5m", "1h", "auto" or "off"; anything else is the default. */
export function promptCachingOf(v: unknown): PromptCachingSetting {
  return (PROMPT_CACHING_VALUES as readonly unknown[]).includes(v)
    ? (v as PromptCachingSetting)
    : (shippedDefault('promptCaching') as PromptCachingSetting);
}

/** A positive number setting, floored; anything else (unset, zero, negative, not a number): `fallback`. */
export function positive(v: number | undefined, fallback: number): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : fallback;
}

/** `splitpoint.mentions.maxFileKB` in bytes: the cap on each @-mentioned file (at least 1 KB). */
export function mentionMaxFileBytesFrom(c: SettingsSource): number {
  return Math.max(1, positive(c.get<number>('mentions.maxFileKB'), shippedDefault('mentions.maxFileKB'))) * 1024;
}

/** The MCP settings, from the user's own settings only: a cloned repository cannot add servers or allow its tools. */
export interface McpSettings {
  /** `splitpoint.mcp.servers` as the user wrote it (McpService validates it); undefined when unset. */
  servers: unknown;
  /** `splitpoint.mcp.autoApprove`: the tools (or servers) that run without asking. */
  autoApprove: string[];
}

export function mcpSettingsFrom(c: SettingsSource): McpSettings {
  const autoApprove = c.inspect<unknown>('mcp.autoApprove')?.globalValue;
  return {
    servers: c.inspect<unknown>('mcp.servers')?.globalValue,
    autoApprove: Array.isArray(autoApprove) ? autoApprove.filter((e): e is string => typeof e === 'string') : [],
  };
}

/** Where a new value goes so that it takes effect: the narrowest scope that sets the setting, else the user's settings. */
export function effectiveScopeOf(inspected: InspectedSetting<unknown> | undefined): 'workspaceFolder' | 'workspace' | 'user' {
  if (inspected?.workspaceFolderValue !== undefined) return 'workspaceFolder';
  if (inspected?.workspaceValue !== undefined) return 'workspace';
  return 'user';
}
