// The `splitpoint.*` settings in VS Code: the only module that calls getConfiguration. Read fresh on
// every call (changes apply without a reload); what the values mean, and every default, is
// src/settings' (plain TypeScript over package.json's schema, tested without VS Code).
import * as vscode from 'vscode';
import { settingsFrom, type HostSettings } from '../settings/hostSettings';
import { SETTINGS_SECTION } from '../settings/schema';
import { yourSettingsConfig, type YourSettings } from '../settings/yourSettings';
import {
  contextWindowOf,
  effectiveScopeOf,
  mcpSettingsFrom,
  mentionMaxFileBytesFrom,
  type IgnoredSetting,
  type McpSettings,
} from '../settings/settingsModel';

function configuration(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration(SETTINGS_SECTION);
}

export function readSettings(onIgnored?: (i: IgnoredSetting) => void): HostSettings {
  return settingsFrom(configuration(), onIgnored);
}

/** The user's effective compaction settings as a replay configuration (the inspector's replay adds it as `your-settings`). */
export function readYourReplaySettings(): YourSettings {
  return yourSettingsConfig(configuration());
}

/** The cap on each @-mentioned file, in bytes (splitpoint.mentions.maxFileKB). */
export function readMentionMaxFileBytes(): number {
  return mentionMaxFileBytesFrom(configuration());
}

/** A setting's value in the user (global) settings (full key, e.g. `splitpoint.autoCompact.threshold`), undefined when unset there. */
export function readUserSetting(key: string): unknown {
  return vscode.workspace.getConfiguration().inspect(key)?.globalValue;
}

/** Writes a setting (full key) to the user (global) settings. */
export async function writeUserSetting(key: string, value: unknown): Promise<void> {
  await vscode.workspace.getConfiguration().update(key, value, vscode.ConfigurationTarget.Global);
}

/** The VS Code configuration target of a scope (read when used: the module loads before any vscode value is needed). */
function targetOf(scope: 'user' | 'workspace' | 'workspaceFolder'): vscode.ConfigurationTarget {
  const targets = {
    user: vscode.ConfigurationTarget.Global,
    workspace: vscode.ConfigurationTarget.Workspace,
    workspaceFolder: vscode.ConfigurationTarget.WorkspaceFolder,
  } as const;
  return targets[scope];
}

/** Reads (and writes) the settings; warns once (per setting, scope and value) about an ignored workspace value. */
export class SettingsReader {
  private readonly warned = new Set<string>();

  constructor(private readonly log: { warn(message: string): void }) {}

  read(): HostSettings {
    return readSettings((i) => this.ignored(i));
  }

  /** The MCP servers and allow-list, from the user's settings only. */
  mcp(): McpSettings {
    return mcpSettingsFrom(configuration());
  }

  /** The context window of `model` under the current settings (splitpoint.contextWindows, defaultContextWindow). */
  contextWindowOf(model: string): number {
    return contextWindowOf(configuration(), model);
  }

  /** Adds an entry to the user's splitpoint.mcp.autoApprove. */
  async allowMcpTool(entry: string): Promise<void> {
    await configuration().update('mcp.autoApprove', [...this.mcp().autoApprove, entry], vscode.ConfigurationTarget.Global);
  }

  /** Sets splitpoint.model where it takes effect (a workspace that sets it would shadow a user value). */
  async setModel(model: string): Promise<void> {
    const config = configuration();
    await config.update('model', model, targetOf(effectiveScopeOf(config.inspect<unknown>('model'))));
  }

  private ignored(i: IgnoredSetting): void {
    const id = `${i.key}\u0000${i.scope}\u0000${JSON.stringify(i.value)}`;
    if (this.warned.has(id)) return;
    this.warned.add(id);
    const where = i.scope === 'workspace' ? 'workspace' : 'workspace folder';
    const why = i.key.endsWith('.instructions')
      ? 'it is sent to the model as your instructions with every request'
      : 'it decides where your API key or your history goes';
    this.log.warn(`Ignored the ${where} value of ${i.key} (${JSON.stringify(i.value)}): ${why}, so only your user settings can set it.`);
  }
}
