// One followed session file (issue 24 item 2), for followFeature.ts: a SessionFollower (core) polled on
// fs.watch events of the file (debounced) and every second (a watch misses a replaced file, a network
// folder), each change shown in the inspector at once with estimated counts, then counted by the host's
// counting worker once the file is quiet. What it needs of the inspector and
// the host is passed in (no `vscode` import: unit-tested in plain Node on real files and appends).
import { watch, type FSWatcher } from 'node:fs';
import type { InspectedRecording } from '../agent/service/inspectorService';
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
import type { IDisposable } from './lifecycle';
import { liveViewOf } from './liveView';

/** fs.watch fires several times per append: one poll per this pause. */
const WATCH_DEBOUNCE_MS = 100;
/** The fallback poll (a missed watch event, a replaced file). */
const FALLBACK_POLL_MS = 1_000;
/** A change is shown counted once no newer one came for this long (it is shown estimated at once). */
const QUIET_MS = 700;

/** The inspector calls a follow makes (InspectorFeature's). */
export interface FollowingInspector {
  isShowing(token: number): boolean;
  showLive(token: number, recording: InspectedRecording, live: LiveView, reveal: boolean): boolean;
  liveNotice(token: number, level: 'info' | 'error', message: string): void;
}

export interface FollowingDeps {
  inspector: FollowingInspector;
  /** Counts a recording on the host's counting worker and prepares its counted view (AgentController.countRecording). */
  countRecording(result: ImportResult): Promise<void>;
  log: { warn(message: string): void };
  /** The strip's view after each change; undefined once the follow stopped. */
  status(live: LiveView | undefined): void;
}

/** One followed file: its follower, its watch and timer, and what was last shown. */
export class Following implements IDisposable {
  private readonly follower: SessionFollower;
  private watcher: FSWatcher | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private timer: NodeJS.Timeout | undefined;
  private exactTimer: NodeJS.Timeout | undefined;
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
    clearTimeout(this.exactTimer);
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

  /**
   * Shows `result` at once with estimated counts (cheap: the estimated view scores no probes and fits no
   * overhead), then counted: once the counting worker counted it and no newer change came for QUIET_MS
   * (the counted view scores the recorded compactions' probes on the host: once per burst of appends, not
   * per line). `first` opens the panel and counts at once.
   */
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
    const estimated: InspectedRecording = { source: this.file, result, counter: this.estimate };
    if (!this.deps.inspector.showLive(this.token, estimated, live, first)) return this.dispose();
    const current = () => generation === this.generation && !this.stopped;
    clearTimeout(this.exactTimer);
    this.exactTimer = setTimeout(
      () => {
        if (!current()) return;
        this.deps.countRecording(result).then(
          () => {
            if (current() && !this.deps.inspector.showLive(this.token, { source: this.file, result }, live, false)) this.dispose();
          },
          (e: unknown) => this.deps.log.warn(`Following: counting ${this.file} failed: ${errorMessage(e)}`),
        );
      },
      first ? 0 : QUIET_MS,
    );
  }
}
