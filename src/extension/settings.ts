// Typed access to the `splitpoint.*` settings. Read fresh on every change (no reload needed); what
// the values mean is settingsModel's (plain TypeScript, tested without VS Code).
import * as vscode from 'vscode';
import type { HostSettings } from '../settings/hostSettings';
import { settingsFrom, type IgnoredSetting } from '../settings/settingsModel';

export function readSettings(onIgnored?: (i: IgnoredSetting) => void): HostSettings {
  return settingsFrom(vscode.workspace.getConfiguration('splitpoint'), onIgnored);
}

/** Reads the settings and warns once (per setting, scope and value) about an ignored workspace value. */
export class SettingsReader {
  private readonly warned = new Set<string>();

  constructor(private readonly log: { warn(message: string): void }) {}

  read(): HostSettings {
    return readSettings((i) => this.ignored(i));
  }

  private ignored(i: IgnoredSetting): void {
    const id = `${i.key}\u0000${i.scope}\u0000${JSON.stringify(i.value)}`;
    if (this.warned.has(id)) return;
    this.warned.add(id);
    const where = i.scope === 'workspace' ? 'workspace' : 'workspace folder';
    this.log.warn(
      `Ignored the ${where} value of ${i.key} (${JSON.stringify(i.value)}): it decides where your API key or your ` +
        'history goes, so only your user settings can set it.',
    );
  }
}
