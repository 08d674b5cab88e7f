// A summary you can edit before it is applied (issue 13 §5), the VS Code part: each waiting draft is a
// markdown document under the `splitpoint-draft:` scheme (an in-memory file system: saving is not
// needed) opened in an editor tab, with "Apply Summary" / "Discard Summary" as editor title actions.
// A draft that paused the agent (review=always) also raises a notification. What any of it means is
// SummaryReviewModel's (tested without VS Code).
import * as vscode from 'vscode';
import type { AgentController } from '../agent/service/controller';
import type { PendingDraft } from '../agent/service/summaryDrafts';
import { errorMessage } from '../core';
import { Disposable } from './lifecycle';
import { DRAFT_SCHEME, SummaryReviewModel } from './summaryReviewModel';

export class SummaryReview extends Disposable {
  private readonly model: SummaryReviewModel;
  private readonly changed = this.register(new vscode.EventEmitter<vscode.FileChangeEvent[]>());

  constructor(
    controller: AgentController,
    private readonly log: { warn(message: string): void },
  ) {
    super();
    const model = (this.model = new SummaryReviewModel(controller));
    this.register(vscode.workspace.registerFileSystemProvider(DRAFT_SCHEME, this.provider(), { isCaseSensitive: true }));
    this.register(controller.drafts.onDidOpen((d) => void this.open(d)));
    this.register(
      controller.drafts.onDidClose((e) => {
        model.forget(e.id);
        void this.closeTabs(e.id);
      }),
    );
    this.register(vscode.commands.registerCommand('splitpoint.applySummary', (uri?: vscode.Uri) => this.apply(uri)));
    this.register(vscode.commands.registerCommand('splitpoint.discardSummary', (uri?: vscode.Uri) => this.discard(uri)));
  }

  private uriFor(d: PendingDraft): vscode.Uri {
    return vscode.Uri.from({ scheme: DRAFT_SCHEME, path: this.model.pathFor(d) });
  }

  private async open(d: PendingDraft): Promise<void> {
    try {
      const doc = await vscode.workspace.openTextDocument(this.uriFor(d));
      await vscode.window.showTextDocument(doc, { preview: false });
    } catch (e) {
      this.log.warn(`Could not open the summary draft: ${errorMessage(e)}`);
    }
    const message = this.model.notification(d, Date.now());
    if (!message) return;
    const pick = await vscode.window.showInformationMessage(message, 'Apply Summary', 'Discard');
    if (pick === 'Apply Summary') await this.apply(this.uriFor(d));
    else if (pick === 'Discard') this.model.discard(this.model.pathFor(d));
  }

  /** The draft document a command acts on: its argument, the active editor's, or the only waiting one. */
  private async target(uri: vscode.Uri | undefined): Promise<vscode.Uri | undefined> {
    if (uri instanceof vscode.Uri && uri.scheme === DRAFT_SCHEME) return uri;
    const active = vscode.window.activeTextEditor?.document.uri;
    if (active?.scheme === DRAFT_SCHEME) return active;
    const drafts = this.model.pending();
    if (drafts.length === 1) return this.uriFor(drafts[0]);
    if (drafts.length === 0) {
      void vscode.window.showInformationMessage('Splitpoint: no summary draft is waiting.');
      return undefined;
    }
    const pick = await vscode.window.showQuickPick(
      drafts.map((d) => ({ label: `${d.strategy} (${d.trigger})`, description: `${d.archivedCount} messages archived`, d })),
      { title: 'Splitpoint: which summary draft?' },
    );
    return pick && this.uriFor(pick.d);
  }

  private async apply(uri?: vscode.Uri): Promise<void> {
    const target = await this.target(uri);
    if (!target) return;
    const open = vscode.workspace.textDocuments.find((t) => t.uri.toString() === target.toString());
    const text = open?.getText() ?? this.model.read(target.path) ?? '';
    const r = this.model.apply(target.path, text);
    if (!r.ok) void vscode.window.showWarningMessage(`Splitpoint: ${r.message}`);
  }

  private async discard(uri?: vscode.Uri): Promise<void> {
    const target = await this.target(uri);
    if (target && !this.model.discard(target.path))
      void vscode.window.showWarningMessage('Splitpoint: this summary draft is no longer waiting.');
  }

  /** Close the editor tabs of an ended draft (saved first, so no "save changes?" prompt). */
  private async closeTabs(id: string): Promise<void> {
    const tabs = vscode.window.tabGroups.all
      .flatMap((g) => g.tabs)
      .filter((t) => t.input instanceof vscode.TabInputText && t.input.uri.scheme === DRAFT_SCHEME && t.input.uri.path.includes(id));
    try {
      for (const doc of vscode.workspace.textDocuments)
        if (doc.uri.scheme === DRAFT_SCHEME && doc.uri.path.includes(id) && doc.isDirty) await doc.save();
      if (tabs.length > 0) await vscode.window.tabGroups.close(tabs);
    } catch (e) {
      this.log.warn(`Could not close the summary draft's editor: ${errorMessage(e)}`);
    }
  }

  private provider(): vscode.FileSystemProvider {
    const model = this.model;
    const notFound = (uri: vscode.Uri) => vscode.FileSystemError.FileNotFound(uri);
    // A stable mtime per document, moved on by writes only: a stat that said "now" every time made VS
    // Code refuse the save on close of an applied draft ("the content of the file is newer").
    const mtimes = new Map<string, number>();
    const mtimeOf = (path: string) => mtimes.get(path) ?? (mtimes.set(path, Date.now()), mtimes.get(path)!);
    return {
      onDidChangeFile: this.changed.event,
      watch: () => new vscode.Disposable(() => undefined),
      stat: (uri) => {
        const text = model.read(uri.path);
        if (text === undefined) throw notFound(uri);
        return { type: vscode.FileType.File, ctime: 0, mtime: mtimeOf(uri.path), size: Buffer.byteLength(text) };
      },
      readFile: (uri) => {
        const text = model.read(uri.path);
        if (text === undefined) throw notFound(uri);
        return Buffer.from(text, 'utf8');
      },
      writeFile: (uri, content) => {
        if (!model.write(uri.path, Buffer.from(content).toString('utf8'))) throw notFound(uri);
        mtimes.set(uri.path, Math.max(Date.now(), mtimeOf(uri.path) + 1));
      },
      readDirectory: () => [],
      createDirectory: () => {
        throw vscode.FileSystemError.NoPermissions('Summary drafts have no folders.');
      },
      delete: (uri) => {
        model.discard(uri.path);
      },
      rename: () => {
        throw vscode.FileSystemError.NoPermissions('A summary draft cannot be renamed.');
      },
    };
  }
}
