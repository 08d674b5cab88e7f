// Edits reviewed in VS Code's diff editor: every pending edit_file / write_file opens as `vscode.diff`
// between the file as it is (an empty read-only document for a new file) and a read-only
// `splitpoint-proposal:` document holding the proposed content, with Approve / Reject in the editor
// title. Approving there resolves the same approval as the card; when an approval is settled (from
// anywhere, or the run stopped) its diff tabs close. (The chat lists the pending edits itself.)
import * as vscode from 'vscode';
import type { AgentController } from '../agent/service/controller';
import type { Proposal } from '../agent/service/fileReview';
import { errorMessage } from '../core';
import { Disposable } from './lifecycle';
import { parseReviewPath, PROPOSAL_SCHEME, reviewPath } from './reviewUris';

export class DiffReview extends Disposable {
  constructor(
    private readonly controller: AgentController,
    private readonly log: { warn(message: string): void },
  ) {
    super();
    const review = controller.review;
    this.register(
      vscode.workspace.registerTextDocumentContentProvider(PROPOSAL_SCHEME, {
        provideTextDocumentContent: (uri) => {
          const parts = parseReviewPath(uri.path, uri.query);
          const p = parts && review.proposal(parts.id);
          if (!parts || parts.empty) return '';
          return p ? p.proposed : '(This edit is no longer waiting for approval.)';
        },
      }),
    );
    this.register(review.onDidChangeProposals(() => void this.closeSettled()));
    const command = (id: string, fn: (...args: never[]) => unknown) => this.register(vscode.commands.registerCommand(id, fn));
    command('splitpoint.openProposal', (id?: string) => this.open(id));
    command('splitpoint.approveProposal', (uri?: vscode.Uri) => this.decide(uri, true));
    command('splitpoint.rejectProposal', (uri?: vscode.Uri) => this.decide(uri, false));
  }

  /** Open a pending edit in the diff editor (the only one, or a pick, without an id). */
  async open(toolUseId?: string): Promise<void> {
    const p = typeof toolUseId === 'string' ? this.controller.review.proposal(toolUseId) : await this.pick();
    if (!p) {
      if (typeof toolUseId === 'string')
        void vscode.window.showInformationMessage('Splitpoint: this edit is no longer waiting for approval.');
      return;
    }
    const right = vscode.Uri.from({ scheme: PROPOSAL_SCHEME, path: reviewPath(p.toolUseId, p.path) });
    const left = p.original === null ? right.with({ query: 'before' }) : vscode.Uri.file(p.absPath);
    const title = `${p.path} ${p.original === null ? '(new file) ' : ''}↔ proposed by ${p.tool}`;
    await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview: false });
  }

  private async pick(): Promise<Proposal | undefined> {
    const all = this.controller.review.proposals();
    if (all.length <= 1) return all[0];
    const pick = await vscode.window.showQuickPick(
      all.map((p) => ({ label: p.path, description: p.title, p })),
      { title: 'Splitpoint: which pending edit?' },
    );
    return pick?.p;
  }

  /** Approve or reject from the editor title (its URI), the active editor, or the only pending edit. */
  private async decide(uri: vscode.Uri | undefined, approve: boolean): Promise<void> {
    const target = [uri, vscode.window.activeTextEditor?.document.uri].find((u) => u instanceof vscode.Uri && u.scheme === PROPOSAL_SCHEME);
    const id = target ? parseReviewPath(target.path, target.query)?.id : (await this.pick())?.toolUseId;
    if (!id) return;
    const outcome = approve ? this.controller.approve(id) : this.controller.reject(id);
    if (outcome === 'ignored') {
      void vscode.window.showInformationMessage('Splitpoint: this edit is no longer waiting for approval.');
      await this.closeTabs((u) => parseReviewPath(u.path, u.query)?.id === id);
    }
  }

  /** Close the diff tabs of edits that are no longer pending. */
  private closeSettled(): Promise<void> {
    const pending = new Set(this.controller.review.proposals().map((p) => p.toolUseId));
    return this.closeTabs((u) => {
      const id = parseReviewPath(u.path, u.query)?.id;
      return id !== undefined && !pending.has(id);
    });
  }

  private async closeTabs(match: (uri: vscode.Uri) => boolean): Promise<void> {
    const tabs = vscode.window.tabGroups.all
      .flatMap((g) => g.tabs)
      .filter((t) => {
        const input = t.input;
        const uri =
          input instanceof vscode.TabInputTextDiff ? input.modified : input instanceof vscode.TabInputText ? input.uri : undefined;
        return uri?.scheme === PROPOSAL_SCHEME && match(uri);
      });
    try {
      if (tabs.length > 0) await vscode.window.tabGroups.close(tabs);
    } catch (e) {
      this.log.warn(`Could not close the diff of a settled edit: ${errorMessage(e)}`);
    }
  }
}
