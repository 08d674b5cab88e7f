// "Splitpoint: Apply Tuned Settings…" (`splitpoint.applyTunedSettings`): the settings block `splitpoint tune`
// printed, from the clipboard or a file the user picks, checked key by key against the settings' schema
// (src/settings/applyTuned.ts; an error names the key), shown as changes current → proposed (a modal
// listing each, with a diff editor of the two JSON documents on request), and the accepted ones written
// to the user (global) settings.
import * as vscode from 'vscode';
import { errorMessage } from '../core';
import { describeChange, diffDocuments, parseTunedSettings, tunedDiff, type TunedChange } from '../settings/applyTuned';
import { Disposable } from './lifecycle';
import { readUserSetting, writeUserSetting } from './settings';

export const APPLY_TUNED_COMMAND = 'splitpoint.applyTunedSettings';

export class ApplyTunedSettings extends Disposable {
  constructor(private readonly log: { info(message: string): void }) {
    super();
    this.register(vscode.commands.registerCommand(APPLY_TUNED_COMMAND, () => this.run()));
  }

  /** Resolves with the keys written (empty when cancelled, nothing changes, or the block is bad). */
  async run(): Promise<string[]> {
    const source = await this.readBlock();
    if (!source) return [];
    let proposed: Map<string, unknown>;
    try {
      proposed = parseTunedSettings(source.text, source.name);
    } catch (e) {
      void vscode.window.showErrorMessage(`Splitpoint: cannot apply tuned settings: ${errorMessage(e)}`);
      return [];
    }
    const changes = tunedDiff(proposed, readUserSetting);
    if (changes.length === 0) {
      void vscode.window.showInformationMessage('Splitpoint: your user settings already have these values.');
      return [];
    }
    const accepted = await this.confirm(changes);
    for (const c of accepted) await writeUserSetting(c.key, c.to);
    if (accepted.length > 0) {
      this.log.info(`Applied tuned settings: ${accepted.map(describeChange).join('; ')}`);
      void vscode.window.showInformationMessage(`Splitpoint: ${accepted.length} setting(s) written to your user settings.`);
    }
    return accepted.map((c) => c.key);
  }

  private async readBlock(): Promise<{ text: string; name: string } | undefined> {
    const pick = await vscode.window.showQuickPick(
      [
        { label: 'From the clipboard', id: 'clipboard' as const },
        { label: 'From a file…', id: 'file' as const },
      ],
      { title: 'Splitpoint: Apply Tuned Settings', placeHolder: 'Where is the settings block splitpoint tune printed?' },
    );
    if (!pick) return undefined;
    if (pick.id === 'clipboard') return { text: await vscode.env.clipboard.readText(), name: 'the clipboard' };
    const uris = await vscode.window.showOpenDialog({ canSelectMany: false, filters: { 'JSON or text': ['json', 'txt', 'jsonl'] } });
    if (!uris?.[0]) return undefined;
    try {
      const bytes = await vscode.workspace.fs.readFile(uris[0]);
      return { text: new TextDecoder().decode(bytes), name: uris[0].fsPath };
    } catch (e) {
      void vscode.window.showErrorMessage(`Splitpoint: cannot read ${uris[0].fsPath}: ${errorMessage(e)}`);
      return undefined;
    }
  }

  /** The modal listing each change; "Choose…" picks some; "Show Diff" opens the two documents first. */
  private async confirm(changes: TunedChange[]): Promise<TunedChange[]> {
    for (;;) {
      const answer = await vscode.window.showInformationMessage(
        `Apply ${changes.length} tuned setting(s) to your user settings?`,
        { modal: true, detail: changes.map(describeChange).join('\n') },
        'Apply All',
        'Choose…',
        'Show Diff',
      );
      if (answer === 'Apply All') return changes;
      if (answer === 'Choose…') {
        const picked = await vscode.window.showQuickPick(
          changes.map((c) => ({ label: c.key, description: describeChange(c).slice(c.key.length + 2), picked: true, change: c })),
          { canPickMany: true, title: 'Splitpoint: the tuned settings to write' },
        );
        return picked?.map((p) => p.change) ?? [];
      }
      if (answer !== 'Show Diff') return [];
      const docs = diffDocuments(changes);
      const [before, after] = await Promise.all([
        vscode.workspace.openTextDocument({ language: 'json', content: docs.before }),
        vscode.workspace.openTextDocument({ language: 'json', content: docs.after }),
      ]);
      await vscode.commands.executeCommand('vscode.diff', before.uri, after.uri, 'Splitpoint: current ↔ tuned settings');
    }
  }
}
