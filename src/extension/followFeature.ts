// Following a live session (issue 24 items 2 and 4): "Agent Sessions" opens a session file in the
// inspector and keeps it current. A SessionFollower (core) reads what was appended since the last
// poll (its first poll reads the whole file streamed, in slices, so the host never waits on it);
// polls run on fs.watch events of the file (debounced) and every second (a watch can miss a replaced
// file or a network folder). Each change shows the refreshed session at once if the counting worker
// counts the new messages quickly, else first with estimated counts, then counted. The follow stops
// when the panel shows something else or closes. A status bar item says the agent, the context used
// of its window and the calls to its compaction while a session is followed; a click reveals it.
import * as vscode from 'vscode';
import type { AgentController } from '../agent/service/controller';
import { errorMessage, ImportError } from '../core';
import type { LiveView } from '../protocol';
import { Following } from './following';
import type { InspectorFeature } from './inspectorFeature';
import { Disposable, MutableDisposable } from './lifecycle';
import { followStatusText } from './sessionRows';

/** A file path from the command's argument: a path, a vscode.Uri, or a tree row ({ file }). */
export function fileOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') return arg;
  if (arg instanceof vscode.Uri) return arg.fsPath;
  if (typeof arg === 'object' && arg !== null && typeof (arg as { file?: unknown }).file === 'string')
    return (arg as { file: string }).file;
  return undefined;
}

export class FollowFeature extends Disposable {
  private readonly current = this.register(new MutableDisposable<Following>());
  private readonly item = this.register(vscode.window.createStatusBarItem('splitpoint.following', vscode.StatusBarAlignment.Right, 99));

  constructor(
    private readonly inspector: InspectorFeature,
    private readonly controller: AgentController,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
    this.item.name = 'Splitpoint: Followed Session';
    this.item.command = 'splitpoint.showFollowed';
    const command = (id: string, fn: (arg?: unknown) => unknown) => this.register(vscode.commands.registerCommand(id, fn));
    command('splitpoint.followSession', (arg) => this.follow(arg));
    command('splitpoint.showFollowed', () => (this.current.value ? this.inspector.reveal() : this.inspector.showCurrent()));
    // The tree's context menu passes its row: the command H3b registers takes the file.
    command('splitpoint.continueSession', async (arg) => {
      const file = fileOf(arg);
      if (file) await vscode.commands.executeCommand('splitpoint.continueInSplitpoint', file);
    });
  }

  /** Opens `arg`'s session file in the inspector and follows it (the one followed before stops). */
  async follow(arg: unknown): Promise<void> {
    const file = fileOf(arg);
    if (!file) {
      void vscode.window.showErrorMessage('Splitpoint: Follow needs a session file.');
      return;
    }
    const following = new Following(file, this.inspector.beginLive(), {
      inspector: this.inspector,
      countRecording: (result) => this.controller.countRecording(result),
      log: this.log,
      status: (live) => this.status(following, live),
    });
    this.current.value = following;
    try {
      await following.start();
    } catch (e) {
      if (this.current.value === following) this.current.clear();
      const message = e instanceof ImportError ? e.message : `Could not follow ${file}: ${errorMessage(e)}`;
      void vscode.window.showErrorMessage(`Splitpoint: ${message}`);
    }
  }

  /** The status bar item of `following` (hidden once it stopped: `live` undefined). */
  private status(following: Following, live: LiveView | undefined): void {
    if (following !== this.current.value) return;
    if (!live) {
      this.current.clear();
      this.item.hide();
      return;
    }
    const { text, tooltip } = followStatusText(live.status, live.gone);
    this.item.text = text;
    this.item.tooltip = tooltip;
    this.item.show();
  }

  override dispose(): void {
    this.item.hide();
    super.dispose();
  }
}
