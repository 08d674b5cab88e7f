// The Anthropic API key: kept in VS Code's secret storage (never in settings or logs), set and
// cleared by two commands. The chat view's "Set API key" button calls the same promptForKey().
// Requests get the key through keyGate(): for any base URL but Anthropic's, only after the user
// allowed that origin in a modal dialog (remembered in globalState).
import * as vscode from 'vscode';
import type { AgentController } from '../agent/service/controller';
import { errorMessage } from '../core';
import { ANTHROPIC_API_URL, ApiKeyGate, originOf } from './baseUrlConsent';
import { Disposable } from './lifecycle';

const API_KEY_SECRET = 'splitpoint.anthropicApiKey';
/** globalState key: the origins the user allowed the key to go to (besides Anthropic's). */
const ALLOWED_ORIGINS = 'splitpoint.allowedBaseUrlOrigins';

/** The key for requests: handed out only for Anthropic's API or an origin the user allowed. */
export function keyGate(key: ApiKeySecret, globalState: vscode.Memento, baseUrl: () => string | undefined): ApiKeyGate {
  const list = (): readonly string[] => {
    const v = globalState.get<unknown>(ALLOWED_ORIGINS);
    return Array.isArray(v) ? v.filter((o): o is string => typeof o === 'string') : [];
  };
  return new ApiKeyGate({
    getKey: () => key.get(),
    baseUrl,
    env: process.env,
    consents: { list, add: (origin) => globalState.update(ALLOWED_ORIGINS, [...new Set([...list(), origin])]) },
    ask: askToSendKey,
  });
}

async function askToSendKey(url: string): Promise<boolean> {
  const origin = originOf(url) ?? url;
  const host = new URL(origin).hostname;
  const plain = origin.startsWith('http:') && !['localhost', '127.0.0.1', '[::1]'].includes(host);
  const allow = 'Allow';
  const choice = await vscode.window.showWarningMessage(
    `Send your Anthropic API key to ${url}?`,
    {
      modal: true,
      detail:
        `The API base URL (splitpoint.baseUrl or ANTHROPIC_BASE_URL) is ${url}, which is not Anthropic's API ` +
        `(${ANTHROPIC_API_URL}). Every request sends your API key and the conversation there, including what the agent ` +
        `read from your files. Allow it only for a server you trust; Splitpoint remembers the answer for ${origin}.` +
        (plain ? ' The connection is not encrypted (http).' : ''),
    },
    allow,
  );
  return choice === allow;
}

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
    /** Asks, right after a key is saved, whether it may go to a non-Anthropic base URL (not at the first prompt). */
    private readonly requestKey?: ApiKeyGate,
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
    await this.requestKey?.key().catch((e: unknown) => {
      this.log.warn(errorMessage(e));
      void vscode.window.showWarningMessage(`Splitpoint: ${errorMessage(e)}`);
    });
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
