// Settings and workspace trust: `splitpoint.*` changes apply at once (no reload); granting trust
// needs a reload to give the agent its editing tools, which the user is told.
import * as vscode from 'vscode';
import type { AgentController } from '../agent/service/controller';
import { Disposable } from './lifecycle';
import type { SettingsReader } from './settings';

export class ConfigurationFeature extends Disposable {
  constructor(controller: AgentController, chat: { sendState(): void }, log: vscode.LogOutputChannel, settings: SettingsReader) {
    super();
    this.register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (!e.affectsConfiguration('splitpoint')) return;
        controller.updateSettings(settings.read());
        chat.sendState();
        log.info('Settings changed and applied.');
      }),
    );
    this.register(
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        void vscode.window.showInformationMessage(
          'Splitpoint: the workspace is now trusted. Reload the window to give the agent its editing tools.',
        );
      }),
    );
  }
}
