// Typed access to the `splitpoint.*` settings. Read fresh on every change (no reload needed); what
// the values mean is settingsModel's (plain TypeScript, tested without VS Code).
import * as vscode from 'vscode';
import type { HostSettings } from '../agent/hostSettings';
import { settingsFrom } from './settingsModel';

export function readSettings(): HostSettings {
  return settingsFrom(vscode.workspace.getConfiguration('splitpoint'));
}
