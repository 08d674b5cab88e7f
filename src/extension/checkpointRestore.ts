// "Restore files to before this prompt", the VS Code part: the chat (or the inspector, or the
// command) asks for a preview, the host computes the restore plan and the chat lists its files;
// each opens in the diff editor (the file now ↔ a read-only `splitpoint-checkpoint:` document with
// the file before the prompt); confirming restores exactly that plan (refused if the workspace
// changed since the preview). Undoing a compaction is a separate action (the history, not files).
import * as vscode from 'vscode';
import type { AgentController } from '../agent/service/controller';
import type { RestorePlan } from '../agent/checkpoints/checkpointStore';
import { errorMessage } from '../core';
import type { HostToChat } from '../protocol';
import { Disposable } from './lifecycle';
import { CHECKPOINT_SCHEME, parseReviewPath, reviewPath } from './reviewUris';

/** What the restore flow needs of the chat view. */
export interface RestoreChat {
  post(msg: HostToChat): void;
  reveal(): Promise<void>;
}

export class CheckpointRestore extends Disposable {
  /** The plan each prompt's preview showed (what a confirmation restores). */
  private readonly plans = new Map<string, RestorePlan>();
  chat: RestoreChat | undefined;

  constructor(private readonly controller: AgentController) {
    super();
    this.register(
      vscode.workspace.registerTextDocumentContentProvider(CHECKPOINT_SCHEME, {
        provideTextDocumentContent: async (uri) => {
          const parts = parseReviewPath(uri.path, uri.query);
          if (!parts || parts.empty) return '';
          const content = await controller.review.contentAt(parts.id, parts.path);
          return content ? content.toString('utf8') : '';
        },
      }),
    );
    this.register(vscode.commands.registerCommand('splitpoint.restoreFiles', (promptId?: string) => this.command(promptId)));
  }

  /** The command (also the inspector's row action): the chat shows the preview of that prompt's restore. */
  private async command(promptId?: string): Promise<void> {
    const id = typeof promptId === 'string' ? promptId : await this.pickPrompt();
    if (!id) return;
    await this.chat?.reveal();
    await this.preview(id);
  }

  private async pickPrompt(): Promise<string | undefined> {
    const texts = new Map<string, string>();
    for (const item of this.controller.chatState(true).items)
      if (item.kind === 'user' && item.messageId) texts.set(item.messageId, item.text);
    const items = this.controller.review
      .checkpoints()
      .reverse()
      .map((c) => ({
        label: (texts.get(c.promptId) ?? c.promptId).slice(0, 80),
        description: new Date(c.createdAt).toLocaleString(),
        id: c.promptId,
      }));
    if (items.length === 0) {
      void vscode.window.showInformationMessage('Splitpoint: this chat has no file checkpoints (no prompt has changed files yet).');
      return undefined;
    }
    return (await vscode.window.showQuickPick(items, { title: 'Splitpoint: restore files to before which prompt?' }))?.id;
  }

  async preview(messageId: string): Promise<void> {
    try {
      const plan = await this.controller.review.planRestore(messageId);
      this.plans.set(messageId, plan);
      this.chat?.post({ type: 'restorePlan', messageId, files: plan.changes.map((c) => ({ path: c.path, since: c.since })) });
    } catch (e) {
      this.chat?.post({ type: 'restorePlan', messageId, files: null, error: errorMessage(e) });
    }
  }

  /** One file of a previewed restore: now (left) ↔ before the prompt (right). */
  async openDiff(messageId: string, path: string): Promise<void> {
    const change = this.plans.get(messageId)?.changes.find((c) => c.path === path);
    const root = vscode.workspace.workspaceFolders?.[0]?.uri;
    if (!change || !root) return; // only files of a shown preview
    const before = vscode.Uri.from({ scheme: CHECKPOINT_SCHEME, path: reviewPath(messageId, path) });
    const now = change.since === 'deleted' ? before.with({ query: 'now' }) : vscode.Uri.joinPath(root, ...path.split('/'));
    const title = `${path} (now ↔ before the prompt${change.since === 'created' ? ': did not exist' : ''})`;
    await vscode.commands.executeCommand('vscode.diff', now, before, title, { preview: true });
  }

  async restore(messageId: string): Promise<void> {
    const plan = this.plans.get(messageId);
    if (!plan) return this.preview(messageId);
    try {
      const done = await this.controller.review.restore(plan);
      this.plans.delete(messageId);
      this.chat?.post({ type: 'restorePlan', messageId, files: null });
      void vscode.window.showInformationMessage(
        `Splitpoint: restored ${done.length} file${done.length === 1 ? '' : 's'} to before the prompt.`,
      );
    } catch (e) {
      this.chat?.post({ type: 'restorePlan', messageId, files: plan.changes, error: errorMessage(e) });
    }
  }
}
