// "Continue in Splitpoint" (issue 24 item 5): `splitpoint.continueInSplitpoint` starts a new Splitpoint chat
// whose history is a recorded session's current context, with its recorded compactions as past
// compactions (continueSession.ts), then shows the chat. The argument is the session file: a path, a
// vscode.Uri, or a row that carries one (`{ file }`, `{ resourceUri }`); without one an open dialog asks.
// The command resolves with what was continued (undefined when cancelled or failed; a failure is shown).
import * as vscode from 'vscode';
import { basename } from 'node:path';
import type { AgentController } from '../agent/service/controller';
import { continueSession, type ContinuedSession } from '../agent/service/continueSession';
import { errorMessage } from '../core';
import type { HostSettings } from '../settings/hostSettings';
import { Disposable } from './lifecycle';

export const CONTINUE_COMMAND = 'splitpoint.continueInSplitpoint';

/** What the command needs of the window's services (extension.ts's Services has these). */
export interface ContinueServices {
  context: vscode.ExtensionContext;
  controller: AgentController;
  settings: { read(): HostSettings };
  log: { info(message: string): void; error(message: string): void };
}

/** The session file an argument names: a path, a file Uri, or an object with `file` or `resourceUri`. */
export function sessionFileOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') return arg.trim() === '' ? undefined : arg;
  if (arg instanceof vscode.Uri) return arg.scheme === 'file' ? arg.fsPath : undefined;
  if (typeof arg === 'object' && arg !== null) {
    const o = arg as { file?: unknown; resourceUri?: unknown };
    if (typeof o.file === 'string') return sessionFileOf(o.file);
    if (o.resourceUri instanceof vscode.Uri) return sessionFileOf(o.resourceUri);
  }
  return undefined;
}

export class ContinueCommand extends Disposable {
  constructor(
    private readonly s: ContinueServices,
    private readonly chat: { reveal(): Promise<void> },
  ) {
    super();
    this.register(vscode.commands.registerCommand(CONTINUE_COMMAND, (arg?: unknown) => this.run(arg)));
  }

  async run(arg?: unknown): Promise<ContinuedSession | undefined> {
    let file = sessionFileOf(arg);
    if (file === undefined && arg !== undefined && arg !== null) {
      void vscode.window.showErrorMessage(`Splitpoint: Continue in Splitpoint needs a session file on disk, not ${describe(arg)}.`);
      return undefined;
    }
    file ??= await this.pick();
    if (file === undefined) return undefined;
    const { context, controller, settings, log } = this.s;
    const target = {
      storageDir: (context.storageUri ?? context.globalStorageUri).fsPath,
      workspaceRoot: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
      settings: settings.read(),
    };
    const path = file;
    try {
      const continued = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Splitpoint: continuing ${basename(path)}…` },
        () => continueSession(controller, path, target),
      );
      log.info(`${continued.notices[0]} New session ${continued.id}; transcripts: ${continued.transcripts.join(', ') || 'none'}.`);
      await this.chat.reveal();
      return continued;
    } catch (e) {
      log.error(errorMessage(e));
      void vscode.window.showErrorMessage(`Splitpoint: ${errorMessage(e)}`);
      return undefined;
    }
  }

  private async pick(): Promise<string | undefined> {
    const picked = await vscode.window.showOpenDialog({
      title: 'Continue in Splitpoint: a Claude Code, Codex or Splitpoint session file',
      openLabel: 'Continue in Splitpoint',
      canSelectMany: false,
      filters: { 'Session files': ['jsonl', 'json'], 'All files': ['*'] },
    });
    return picked?.[0] ? sessionFileOf(picked[0]) : undefined;
  }
}

function describe(arg: unknown): string {
  if (arg instanceof vscode.Uri) return arg.toString();
  return typeof arg === 'object' ? 'an object without a file' : String(arg);
}
