// The Anthropic API key: kept in VS Code's secret storage (never in settings or logs), set and
// cleared by two commands. The chat view's "Set API key" button calls the same promptForKey().
import * as vscode from 'vscode';
import type { AgentController } from '../agent/controller';
import { Disposable } from './lifecycle';

const API_KEY_SECRET = 'splitpoint.anthropicApiKey';

/** Read access to the stored key. */
export class ApiKeySecret {
  constructor(private readonly secrets: vscode.SecretStorage) {}

  async get(): Promise<string | undefined> {
    return (await this.secrets.get(API_KEY_SECRET))?.trim() || undefined;
  }

  store(key: string): Thenable<void> {
    return this.secrets.store(API_KEY_SECRET, key.trim());
  }

  delete(): Thenable<void> {
    return this.secrets.delete(API_KEY_SECRET);
  }
}

export class ApiKeyCommands extends Disposable {
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  /** The key was saved or removed (after the controller was told). */
  readonly onDidChangeKey = this.changed.event;

  constructor(
    private readonly key: ApiKeySecret,
    private readonly controller: AgentController,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
    this.register(vscode.commands.registerCommand('splitpoint.setApiKey', () => this.promptForKey()));
    this.register(vscode.commands.registerCommand('splitpoint.clearApiKey', () => this.clearKey()));
  }

  async promptForKey(): Promise<void> {
    const value = await vscode.window.showInputBox({
      title: 'Splitpoint: Anthropic API key',
      prompt: 'Stored in VS Code secret storage, never in settings or logs.',
      password: true,
      ignoreFocusOut: true,
      validateInput: (v) => (v.trim().length < 8 ? 'That does not look like an API key.' : undefined),
    });
    if (value === undefined) return;
    await this.key.store(value);
    this.keyChanged();
    this.log.info('API key saved to secret storage.');
    void vscode.window.showInformationMessage('Splitpoint: API key saved.');
  }

  private async clearKey(): Promise<void> {
    await this.key.delete();
    this.keyChanged();
    void vscode.window.showInformationMessage('Splitpoint: API key removed.');
  }

  private keyChanged(): void {
    this.controller.apiKeyChanged();
    this.changed.fire();
  }
}
