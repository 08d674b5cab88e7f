// The context inspector feature: the panel (restored after a window reload by a
// WebviewPanelSerializer), what it shows (the current session, or a session file opened read-only),
// its router (one handler per message type), and its commands. A session of another agent (imported, or
// followed as it is written: followFeature.ts) also gets the live-session strip's view (liveView.ts).
import * as vscode from 'vscode';
import type { AgentController } from '../agent/service/controller';
import type { InspectedRecording, InspectorTarget } from '../agent/service/inspectorService';
import { loadRecording } from '../agent/service/recordingLoader';
import { errorMessage, ImportError, ledgerPromptId } from '../core';
import type { HostToInspector, InspectorSession, InspectorToHost, LiveView } from '../protocol';
import { InspectorPanel } from './inspectorPanel';
import { Disposable, MutableDisposable, toDisposable } from './lifecycle';
import { liveViewOf } from './liveView';
import { runInspectorReplay } from '../inspector/inspectorReplay';
import { pinHandlers } from './pinRouting';
import { readYourReplaySettings } from './settings';
import { createRouter, type FailureSink, type MessageHandlers } from './router';
import type { TranscriptOpener } from './transcriptOpener';

/** Session changes arrive in bursts while the agent streams: the panel refreshes at most this often. */
const REFRESH_DELAY_MS = 150;

export class InspectorFeature extends Disposable {
  private readonly panel: InspectorPanel;
  /** The recording shown instead of the current session (read-only, as recorded), if any. */
  private inspected: InspectedRecording | undefined;
  /** Time travel: the past compaction (1-based) whose context is shown; null: the current context. */
  private at: number | null = null;
  private readonly refreshTimer = this.register(new MutableDisposable());
  /** Bumped whenever what the panel shows changes, so a file still loading does not take the panel back. */
  private shown = 0;
  /** The glance strip of the recording shown (another agent's session, followed or imported); undefined: none. */
  private live: LiveView | undefined;
  /** The strip's view last posted (undefined: none yet): the strip is told only when it changes, or asks. */
  private postedLive: LiveView | null | undefined;

  constructor(
    extensionUri: vscode.Uri,
    private readonly controller: AgentController,
    transcripts: TranscriptOpener,
    private readonly log: vscode.LogOutputChannel,
    sink: FailureSink,
  ) {
    super();
    const route = createRouter<InspectorToHost>('Inspector', this.handlers(transcripts), sink);
    this.panel = this.register(
      new InspectorPanel(
        extensionUri,
        (msg) => void route(msg),
        () => this.refresh(),
        log,
      ),
    );
    this.register(
      vscode.window.registerWebviewPanelSerializer(InspectorPanel.viewType, {
        // After a window reload VS Code revives the panel: it shows the current session again. Its
        // webview restores its own view state (getState) and posts 'ready', which sends the session.
        deserializeWebviewPanel: async (webviewPanel) => {
          this.inspected = undefined;
          this.at = null;
          this.panel.restore(webviewPanel);
        },
      }),
    );
    this.register(controller.onDidChangeSession(() => this.scheduleRefresh()));
    const command = (id: string, fn: () => unknown) => this.register(vscode.commands.registerCommand(id, fn));
    command('splitpoint.openInspector', () => this.showCurrent());
    command('splitpoint.previewCompaction', () => this.showCurrent());
    command('splitpoint.inspectFile', () => this.inspectFile());
  }

  /** Opens (or reveals) the panel on the current session. */
  showCurrent(): void {
    this.panel.show();
    this.showCurrentSession();
  }

  /** The panel shows the current session again (instead of an inspected file). */
  private showCurrentSession(): void {
    this.shown++;
    this.inspected = undefined;
    this.live = undefined;
    this.at = null;
    this.refresh();
  }

  // --- Followed sessions (followFeature.ts) ---------------------------------------------------

  /** A followed session is about to be shown: its token, valid until the panel shows anything else. */
  beginLive(): number {
    return ++this.shown;
  }

  /** Whether the panel is open on what `token` showed (else the follow stops). */
  isShowing(token: number): boolean {
    return token === this.shown && this.panel.isOpen;
  }

  /**
   * Shows a followed recording and its strip if `token` is still what the panel shows (`reveal`: opens
   * the panel; else only an open panel is updated). False: the panel shows something else or is closed.
   */
  showLive(token: number, recording: InspectedRecording, live: LiveView, reveal: boolean): boolean {
    if (token !== this.shown || (!reveal && !this.panel.isOpen)) return false;
    this.inspected = recording;
    this.live = live;
    if (reveal) this.panel.show();
    this.refresh();
    return true;
  }

  /** A notice on the panel, if `token` is still what it shows. */
  liveNotice(token: number, level: 'info' | 'error', message: string): void {
    if (token === this.shown) this.panel.post({ type: 'notice', level, message });
  }

  /** Reveals the panel on what it shows (the follow status bar item). */
  reveal(): void {
    this.panel.show();
    this.refresh();
  }

  private async inspectFile(): Promise<void> {
    const uris = await vscode.window.showOpenDialog({
      canSelectMany: false,
      title: 'Inspect a session: Splitpoint transcript, Claude Code or Codex session, Anthropic messages JSON',
      filters: { Sessions: ['jsonl', 'json'] },
    });
    const file = uris?.[0]?.fsPath;
    if (!file) return;
    const load = ++this.shown;
    try {
      // Streamed; regular files up to the size limit only; too deep or too large input is an ImportError naming file:line:field.
      // Shown at once with estimated counts, then again once the counting worker has counted it.
      const { result } = await loadRecording(file, {
        countRecording: (result) => this.controller.countRecording(result),
        show: (recording, estimated) => {
          if (load !== this.shown) return;
          // Shown as recorded: Splitpoint's micro-compaction is one of the strategies to preview, not the view.
          this.inspected = recording;
          this.live = staticLive(file, recording, this.log);
          if (estimated) this.at = null;
          this.panel.show();
          this.refresh();
          if (estimated)
            this.panel.post({
              type: 'notice',
              level: 'info',
              message: 'Counting tokens: the figures are estimates (4 characters a token) until it is done.',
            });
        },
      });
      if (load !== this.shown) return;
      for (const w of result.warnings) this.log.warn(w);
      const n = result.warnings.length;
      if (n > 0)
        this.panel.post({
          type: 'notice',
          level: 'info',
          message: `Imported with ${n} warning${n === 1 ? '' : 's'} (skipped or repaired lines): see the Splitpoint output.`,
        });
    } catch (e) {
      const message = e instanceof ImportError ? e.message : `Could not read ${file}: ${errorMessage(e)}`;
      void vscode.window.showErrorMessage(`Splitpoint: ${message}`);
    }
  }

  /** What the panel shows: the inspected recording or the current session, now or before a past compaction. */
  private get target(): InspectorTarget {
    return this.inspected ? { file: this.inspected, at: this.at } : { at: this.at };
  }

  /** Sends what the panel shows (if it is open). */
  private refresh(): void {
    if (!this.panel.isOpen) return;
    const inspected = this.inspected;
    let session: InspectorSession;
    try {
      session = inspected ? this.controller.inspectorFor(inspected, this.at) : this.controller.inspectorSession(this.at);
    } catch (e) {
      // A past context that cannot be read (a transcript gone): back to the current context, and say why.
      if (this.at === null) throw e;
      this.at = null;
      this.panel.post({ type: 'notice', level: 'error', message: errorMessage(e) });
      session = inspected ? this.controller.inspectorFor(inspected, null) : this.controller.inspectorSession(null);
    }
    this.panel.post({ type: 'session', session });
    this.postLive(false);
  }

  /** The strip's view (null: the panel shows no such session), if it changed since last posted or `force`. */
  private postLive(force: boolean): void {
    const live = this.inspected ? (this.live ?? null) : null;
    if (!force && live === this.postedLive) return;
    this.postedLive = live;
    this.panel.post({ type: 'live', live });
  }

  private scheduleRefresh(): void {
    // A recording and a past context do not change while the agent works.
    if (this.inspected || this.at !== null || this.refreshTimer.value) return;
    const timer = setTimeout(() => {
      this.refreshTimer.clearAndLeak();
      this.refresh();
    }, REFRESH_DELAY_MS);
    this.refreshTimer.value = toDisposable(() => clearTimeout(timer));
  }

  private handlers(transcripts: TranscriptOpener): MessageHandlers<InspectorToHost> {
    // Called before this.panel exists: the handlers read it when a message arrives.
    const controller = this.controller;
    const post = (message: HostToInspector) => this.panel.post(message);
    return {
      ready: () => this.refresh(),
      // The live-session strip mounted: it gets what it shows.
      liveReady: () => this.postLive(true),
      continueInSplitpoint: async () => {
        const file = this.inspected && this.live?.canContinue ? this.live.file : undefined;
        if (!file) throw new Error('Continue in Splitpoint works on a Claude Code or Codex session shown in the inspector.');
        await vscode.commands.executeCommand('splitpoint.continueInSplitpoint', file);
      },
      preview: async (msg) => {
        try {
          // In slices: a preview of a huge imported session must not hold the extension host.
          post({ type: 'plan', plan: await controller.previewSliced(msg.strategy, msg.params, msg.requestId, this.target, msg.splitAtId) });
        } catch (e) {
          post({ type: 'planError', requestId: msg.requestId, message: errorMessage(e) });
        }
      },
      apply: (msg) => this.apply(msg),
      undo: () => {
        const outcome = controller.undo();
        const message = outcome.ok ? 'Restored the history from the transcript.' : outcome.message;
        post({ type: 'notice', level: outcome.ok ? 'info' : 'error', message });
        this.refresh();
      },
      showMessage: (msg) => {
        const detail = controller.detail(msg.id, this.target);
        if (detail) post({ type: 'detail', detail });
      },
      openTranscript: (msg) => transcripts.open(msg.path),
      // Files, not the history: the chat previews the restore of that prompt's checkpoint, then confirms.
      restoreFiles: async (msg) => void (await vscode.commands.executeCommand('splitpoint.restoreFiles', msg.id)),
      // "Check this compaction": the probes command (registered with the chat's check) runs it.
      checkCompaction: async (msg) => void (await vscode.commands.executeCommand('splitpoint.checkCompaction', msg.compactionId)),
      inspectFile: () => this.inspectFile(),
      replay: () => this.replay(),
      showCurrent: () => this.showCurrentSession(),
      timeTravel: (msg) => {
        this.at = msg.at;
        this.refresh();
      },
      // An archived prompt of a ledger kept as a standing instruction of the current session (issue 23).
      keepInstruction: (msg) => {
        if (this.inspected !== undefined || this.at !== null)
          throw new Error('Instructions belong to the current session: show it to keep one.');
        const kept = controller.standing.keepText(ledgerPromptId(msg.text), msg.text);
        const message = kept ? 'Kept as an instruction: sent with every request.' : 'That prompt is already kept as an instruction.';
        post({ type: 'notice', level: 'info', message });
      },
      // The rows' pin markers come with the refreshed session (and a showing preview re-plans with the pins).
      // Pins are the current session's: not of a recording or a past context (the webview offers none there).
      ...pinHandlers(
        controller,
        () => this.refresh(),
        () => this.inspected === undefined && this.at === null,
      ),
    };
  }

  /** "Replay" on an inspected file: the built-in configurations (and the user's settings) call by call, drawn by the panel. */
  private async replay(): Promise<void> {
    const inspected = this.inspected;
    const panel = this.panel;
    if (!inspected) {
      panel.post({ type: 'notice', level: 'error', message: 'Replay runs on an inspected file: use "Inspect file…" first.' });
      return;
    }
    panel.post({ type: 'busy', busy: true, label: 'Replaying the session…' });
    try {
      const replay = await runInspectorReplay(inspected.source, inspected.result, { yours: readYourReplaySettings() });
      // Another file (or the current session) may be showing by now: the answer is for this one only.
      if (this.inspected === inspected) panel.post({ type: 'replay', replay });
    } catch (e) {
      panel.post({ type: 'notice', level: 'error', message: `Replay failed: ${errorMessage(e)}` });
    } finally {
      panel.post({ type: 'busy', busy: false });
    }
  }

  private async apply(msg: Extract<InspectorToHost, { type: 'apply' }>): Promise<void> {
    if (this.inspected || this.at !== null) return;
    const panel = this.panel;
    // A split at a chosen message is planned on the history as the user saw it: never queued behind a run.
    if (msg.splitAtId !== undefined && this.controller.busy) {
      panel.post({ type: 'notice', level: 'error', message: 'Split here waits until the agent is done: try again when the run ends.' });
      return;
    }
    panel.post({ type: 'busy', busy: true, label: `Applying ${msg.strategy}…` });
    try {
      const outcome = await this.controller.draftSummary({
        strategy: msg.strategy,
        params: msg.params,
        focus: msg.focus,
        trigger: 'inspector',
        ...(msg.splitAtId !== undefined ? { splitAtId: msg.splitAtId } : {}),
      });
      if (outcome.ok === true) {
        const r = outcome.record;
        const tokens = `${r.tokensBefore.toLocaleString()} → ${r.tokensAfter.toLocaleString()} tokens`;
        panel.post({ type: 'notice', level: 'info', message: `Applied ${msg.strategy}: ${tokens}. Transcript: ${r.transcriptPath}` });
      } else if (outcome.ok === false) {
        panel.post({ type: 'notice', level: 'error', message: outcome.message });
      }
    } finally {
      panel.post({ type: 'busy', busy: false });
      this.refresh();
    }
  }
}

/** The strip of a file imported once ("Inspect Session File…"): not followed; none if its status cannot be read. */
function staticLive(file: string, recording: InspectedRecording, log: vscode.LogOutputChannel): LiveView | undefined {
  try {
    return liveViewOf(file, recording.result, { following: false, gone: false, updatedAt: null });
  } catch (e) {
    log.warn(`The live status of ${file} could not be computed: ${errorMessage(e)}`);
    return undefined;
  }
}
