// Opens a compaction transcript in an editor tab: a given path (from a webview: only transcripts
// this session wrote) or one picked from this chat's compactions (or from disk when it has none).
import * as vscode from 'vscode';
import type { AgentController } from '../agent/service/controller';

export class TranscriptOpener {
  constructor(
    private readonly controller: AgentController,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  async open(path: string | undefined): Promise<void> {
    let target = path;
    if (!target) {
      target = await this.pick();
      if (!target) return;
    } else if (!this.controller.knownTranscripts().has(target)) {
      // Webviews may only open transcripts this session wrote.
      this.log.warn(`Refused to open ${target}: not a transcript of this session.`);
      return;
    }
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(target));
    await vscode.window.showTextDocument(doc, { preview: false });
  }

  private async pick(): Promise<string | undefined> {
    const picks = [...this.controller.session.meta.compactions].reverse().map((c) => ({
      label: `${new Date(c.at).toLocaleString()} · ${c.strategy} (${c.trigger})`,
      description: `${c.tokensBefore.toLocaleString()} → ${c.tokensAfter.toLocaleString()} tokens`,
      path: c.transcriptPath,
    }));
    if (picks.length === 0) {
      const uris = await vscode.window.showOpenDialog({
        canSelectMany: false,
        filters: { Transcripts: ['jsonl'] },
        title: 'Open a Splitpoint transcript',
      });
      return uris?.[0]?.fsPath;
    }
    return (await vscode.window.showQuickPick(picks, { title: 'Open a transcript of this chat' }))?.path;
  }
}
