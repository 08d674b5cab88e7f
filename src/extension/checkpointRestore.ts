// "Restore files to before this prompt", the VS Code part: the chat (or the inspector, or the
// command) asks for a preview, the host computes the restore plan and the chat lists its files (the
// chat follows onDidChangePlan); each opens in the diff editor (the file now ↔ a read-only
// `splitpoint-checkpoint:` document with the file before the prompt); confirming restores exactly
// that plan (refused if the workspace changed since the preview). Undoing a compaction is a separate
// action (the history, not files).
import * as vscode from 'vscode';
import type { AgentController } from '../agent/service/controller';
import type { RestorePlan } from '../agent/checkpoints/checkpointStore';
import { Emitter, errorMessage, type Event } from '../core';
import type { HostToChat } from '../protocol';
import { Disposable } from './lifecycle';
import { CHECKPOINT_SCHEME, parseReviewPath, reviewPath } from './reviewUris';

/** A restore plan for the chat to show (files: null when there is none to confirm any more). */
export interface RestorePlanShown {
  message: Extract<HostToChat, { type: 'restorePlan' }>;
  /** Bring the chat into view first (the command and the inspector ask from outside the chat). */
  reveal: boolean;
}

export class CheckpointRestore extends Disposable {
  /** The plan each prompt's preview showed (what a confirmation restores). */
  private readonly plans = new Map<string, RestorePlan>();
  private readonly planChanged = this.register(new Emitter<RestorePlanShown>());
  /** A preview, a restore or a failure of either, for the chat to show. */
  readonly onDidChangePlan: Event<RestorePlanShown> = this.planChanged.event;

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
    await this.preview(id, true);
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

  async preview(messageId: string, reveal = false): Promise<void> {
    try {
      const plan = await this.controller.review.planRestore(messageId);
      this.plans.set(messageId, plan);
      const files = plan.changes.map((c) => ({ path: c.path, since: c.since }));
      this.planChanged.fire({ message: { type: 'restorePlan', messageId, files }, reveal });
    } catch (e) {
      this.planChanged.fire({ message: { type: 'restorePlan', messageId, files: null, error: errorMessage(e) }, reveal });
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
      this.planChanged.fire({ message: { type: 'restorePlan', messageId, files: null }, reveal: false });
      void vscode.window.showInformationMessage(
        `Splitpoint: restored ${done.length} file${done.length === 1 ? '' : 's'} to before the prompt.`,
      );
    } catch (e) {
      this.planChanged.fire({ message: { type: 'restorePlan', messageId, files: plan.changes, error: errorMessage(e) }, reveal: false });
    }
  }
}
