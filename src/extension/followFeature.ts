// Following a live session (issue 24 items 2 and 4): "Agent Sessions" opens a session file in the
// inspector and keeps it current. A SessionFollower (core) reads what was appended since the last
// poll (its first poll reads the whole file streamed, in slices, so the host never waits on it);
// polls run on fs.watch events of the file (debounced) and every second (a watch can miss a replaced
// file or a network folder). Each change shows the refreshed session at once if the counting worker
// counts the new messages quickly, else first with estimated counts, then counted. The follow stops
// when the panel shows something else or closes. A status bar item says the agent, the context used
// of its window and the calls to its compaction while a session is followed; a click reveals it.
import * as vscode from 'vscode';
import { watch, type FSWatcher } from 'node:fs';
import type { AgentController } from '../agent/service/controller';
import type { InspectedRecording } from '../agent/service/inspectorService';
import { messageListsOf } from '../agent/service/recordingLoader';
import {
  CharEstimateTokenizer,
  errorMessage,
  ImportError,
  MemoizedMessageCounter,
  SessionFollower,
  type FollowUpdate,
  type ImportResult,
} from '../core';
import type { LiveView } from '../protocol';
import type { InspectorFeature } from './inspectorFeature';
import { Disposable, MutableDisposable } from './lifecycle';
import { liveViewOf } from './liveView';
import { followStatusText } from './sessionRows';

/** fs.watch fires several times per append: one poll per this pause. */
const WATCH_DEBOUNCE_MS = 100;
/** The fallback poll (a missed watch event, a replaced file). */
const FALLBACK_POLL_MS = 1_000;
/** An update waits this long for the exact counts before it is shown with estimates (then again, counted). */
const EXACT_WAIT_MS = 300;

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
      controller: this.controller,
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

interface FollowingDeps {
  inspector: InspectorFeature;
  controller: AgentController;
  log: vscode.LogOutputChannel;
  /** The strip's view after each change; undefined once the follow stopped. */
  status(live: LiveView | undefined): void;
}

/** One followed file: its follower, its watch and timer, and what was last shown. */
class Following implements vscode.Disposable {
  private readonly follower: SessionFollower;
  private watcher: FSWatcher | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  private again = false;
  private stopped = false;
  /** Bumped per change shown, so a slow count does not show an older result over a newer one. */
  private generation = 0;
  private gone = false;
  private updatedAt: number | null = null;
  private lastProblem: string | undefined;
  /** Estimates for a first paint, memoized across polls (the messages already read keep their objects). */
  private readonly estimate = new MemoizedMessageCounter(new CharEstimateTokenizer());

  constructor(
    readonly file: string,
    private readonly token: number,
    private readonly deps: FollowingDeps,
  ) {
    this.follower = new SessionFollower(file);
  }

  /** The first poll (the whole file, in slices), shown at once; then the watch and the timer. Rejects if the file cannot be read. */
  async start(): Promise<void> {
    const update = await this.follower.poll();
    if (this.stopped) return;
    this.updatedAt = Date.now();
    this.gone = update.gone;
    this.show(update.result, true);
    this.watchFile();
    this.timer = setInterval(() => this.tick(), FALLBACK_POLL_MS);
  }

  dispose(): void {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.debounce);
    this.watcher?.close();
    this.deps.status(undefined);
  }

  private tick(): void {
    if (!this.deps.inspector.isShowing(this.token)) return this.dispose();
    void this.poll();
    // A replaced file needs a new watch (the old one watched the old inode).
    if (!this.watcher && !this.gone) this.watchFile();
  }

  private watchFile(): void {
    try {
      const w = watch(this.file, { persistent: false }, () => {
        clearTimeout(this.debounce);
        this.debounce = setTimeout(() => void this.poll(), WATCH_DEBOUNCE_MS);
      });
      w.on('error', () => {
        w.close();
        if (this.watcher === w) this.watcher = undefined;
      });
      this.watcher = w;
    } catch {
      // Gone or not watchable: the timer polls.
      this.watcher = undefined;
    }
  }

  /** One poll at a time; a poll asked for while one runs runs right after it. */
  private async poll(): Promise<void> {
    if (this.stopped) return;
    if (this.polling) {
      this.again = true;
      return;
    }
    this.polling = true;
    try {
      do {
        this.again = false;
        const update = await this.follower.poll();
        if (this.stopped) return;
        this.lastProblem = undefined;
        this.apply(update);
      } while (this.again && !this.stopped);
    } catch (e) {
      // Unreadable now (permissions, a line the importer refuses): said once, and polled again.
      const message = e instanceof ImportError ? e.message : `Could not read ${this.file}: ${errorMessage(e)}`;
      if (message !== this.lastProblem) {
        this.lastProblem = message;
        this.deps.log.warn(`Following: ${message}`);
        this.deps.inspector.liveNotice(this.token, 'error', message);
      }
    } finally {
      this.polling = false;
    }
  }

  private apply(update: FollowUpdate): void {
    const wasGone = this.gone;
    this.gone = update.gone;
    if (update.gone && !wasGone) {
      this.watcher?.close();
      this.watcher = undefined;
      this.deps.inspector.liveNotice(this.token, 'error', `The session file is gone (${this.file}): showing what was last read.`);
    }
    if (update.reset)
      this.deps.inspector.liveNotice(
        this.token,
        'info',
        `The session file was ${update.reset === 'truncated' ? 'truncated' : 'replaced'}: it was read again from the start.`,
      );
    if (!update.changed && update.gone === wasGone && !update.reset) return;
    if (update.changed) this.updatedAt = Date.now();
    this.show(update.result, false);
  }

  /** Shows `result`: counted if the worker is quick, else estimated first; `first` opens the panel. */
  private show(result: ImportResult, first: boolean): void {
    const generation = ++this.generation;
    let live: LiveView;
    try {
      live = liveViewOf(this.file, result, { following: true, gone: this.gone, updatedAt: this.updatedAt });
    } catch (e) {
      this.deps.log.warn(`Following: the live status of ${this.file} could not be computed: ${errorMessage(e)}`);
      return;
    }
    this.deps.status(live);
    const counted = this.deps.controller.countInBackground(messageListsOf(result)).then(
      () => true,
      (e: unknown) => {
        this.deps.log.warn(`Following: counting ${this.file} failed: ${errorMessage(e)}`);
        return false;
      },
    );
    const estimated: InspectedRecording = { source: this.file, result, counter: this.estimate };
    const current = () => generation === this.generation && !this.stopped;
    const showEstimated = () => {
      if (current() && !this.deps.inspector.showLive(this.token, estimated, live, first)) this.dispose();
      if (first) this.deps.inspector.liveNotice(this.token, 'info', 'Counting tokens: the figures are estimates until it is done.');
    };
    if (first) showEstimated();
    else {
      const wait = setTimeout(showEstimated, EXACT_WAIT_MS);
      void counted.then(() => clearTimeout(wait));
    }
    void counted.then((ok) => {
      if (!ok || !current()) return;
      if (!this.deps.inspector.showLive(this.token, { source: this.file, result }, live, false)) this.dispose();
    });
  }
}
