// The commands over the current chat session: new chat, resume, compact now, open a transcript,
// undo the last compaction, stop. The chat view's buttons for the same things call the same
// functions (compactAndReport, TranscriptOpener.open).
import * as vscode from 'vscode';
import type { AgentController } from '../agent/service/controller';
import { Disposable } from './lifecycle';
import { checkCompactionCommand } from './probeRouting';
import type { TranscriptOpener } from './transcriptOpener';

/** Compacts the current chat now (with an optional focus for the summary) and says how it went. */
export async function compactAndReport(controller: AgentController, focus: string | undefined): Promise<void> {
  // An LLM summary opens as a draft to edit, apply or discard (SummaryReview); others apply directly.
  const outcome = await controller.draftSummary({ focus });
  if (outcome.ok === true) {
    const { tokensBefore, tokensAfter } = outcome.record;
    void vscode.window.showInformationMessage(
      `Splitpoint: compacted ${tokensBefore.toLocaleString()} → ${tokensAfter.toLocaleString()} tokens.`,
    );
  }
}

export class SessionCommands extends Disposable {
  constructor(
    private readonly controller: AgentController,
    private readonly chat: { reveal(): Promise<void> },
    transcripts: TranscriptOpener,
  ) {
    super();
    const command = (id: string, fn: (...args: never[]) => unknown) => this.register(vscode.commands.registerCommand(id, fn));
    command('splitpoint.newChat', () => this.newChat());
    command('splitpoint.resumeSession', () => this.resumeSession());
    command('splitpoint.compactNow', () => this.compactNow());
    command('splitpoint.openTranscript', (path?: string) => transcripts.open(typeof path === 'string' ? path : undefined));
    command('splitpoint.undoCompaction', () => controller.undo());
    command('splitpoint.stop', () => controller.stop());
    command('splitpoint.checkCompaction', (id?: string) => checkCompactionCommand(controller, chat, id));
  }

  private async newChat(): Promise<void> {
    this.controller.newChat();
    await this.chat.reveal();
  }

  private async resumeSession(): Promise<void> {
    const items = this.controller.listSessions().map((s) => ({
      label: s.title,
      description: new Date(s.updatedAt).toLocaleString(),
      detail: s.compactions ? `${s.compactions} compaction${s.compactions === 1 ? '' : 's'}` : undefined,
      id: s.id,
    }));
    const pick = await vscode.window.showQuickPick(items, { title: 'Resume a Splitpoint chat' });
    if (pick) {
      this.controller.resume(pick.id);
      await this.chat.reveal();
    }
  }

  private async compactNow(): Promise<void> {
    const focus = await vscode.window.showInputBox({
      title: 'Splitpoint: Compact Now',
      prompt: 'Optional focus for the summary (what must be preserved). Leave empty for none.',
    });
    if (focus === undefined) return;
    await compactAndReport(this.controller, focus.trim() || undefined);
  }
}
