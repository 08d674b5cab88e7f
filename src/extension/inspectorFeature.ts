// The context inspector feature: the panel (restored after a window reload by a
// WebviewPanelSerializer), what it shows (the current session, or a session file opened read-only),
// its router (one handler per message type), and its commands.
import * as vscode from 'vscode';
import { readFileSync } from 'node:fs';
import type { AgentController } from '../agent/controller';
import { errorMessage, importSession, ImportError, type Message } from '../core';
import type { HostToInspector, InspectorToHost } from '../protocol';
import { InspectorPanel } from './inspectorPanel';
import { Disposable, MutableDisposable, toDisposable } from './lifecycle';
import { createRouter, type FailureSink, type MessageHandlers } from './router';
import type { TranscriptOpener } from './transcriptOpener';

/** A session file opened in the inspector (read-only): its messages and what the model would see. */
interface InspectedFile {
  source: string;
  messages: Message[];
  effective: Message[];
}

/** Session changes arrive in bursts while the agent streams: the panel refreshes at most this often. */
const REFRESH_DELAY_MS = 150;

export class InspectorFeature extends Disposable {
  private readonly panel: InspectorPanel;
  private inspected: InspectedFile | undefined;
  private readonly refreshTimer = this.register(new MutableDisposable());

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
    this.inspected = undefined;
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
    try {
      const result = importSession(readFileSync(file, 'utf8'), file);
      for (const w of result.warnings) this.log.warn(`${file}: ${w}`);
      this.inspected = { source: file, messages: result.messages, effective: this.controller.microCompacted(result.messages) };
      this.panel.show();
      this.refresh();
    } catch (e) {
      const message = e instanceof ImportError ? e.message : `Could not read ${file}: ${errorMessage(e)}`;
      void vscode.window.showErrorMessage(`Splitpoint: ${message}`);
    }
  }

  /** Sends what the panel shows (if it is open). */
  private refresh(): void {
    if (!this.panel.isOpen) return;
    const inspected = this.inspected;
    this.panel.post({
      type: 'session',
      session: inspected
        ? this.controller.inspectorFor(inspected.source, inspected.messages, inspected.effective)
        : this.controller.inspectorSession(),
    });
  }

  private scheduleRefresh(): void {
    if (this.inspected || this.refreshTimer.value) return;
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
      preview: (msg) => {
        try {
          post({ type: 'plan', plan: controller.preview(msg.strategy, msg.params, msg.requestId, this.inspected?.messages) });
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
        const detail = controller.detail(msg.id, this.inspected?.messages, this.inspected?.effective);
        if (detail) post({ type: 'detail', detail });
      },
      openTranscript: (msg) => transcripts.open(msg.path),
      inspectFile: () => this.inspectFile(),
      showCurrent: () => this.showCurrentSession(),
    };
  }

  private async apply(msg: Extract<InspectorToHost, { type: 'apply' }>): Promise<void> {
    if (this.inspected) return;
    const panel = this.panel;
    panel.post({ type: 'busy', busy: true, label: `Applying ${msg.strategy}…` });
    try {
      const outcome = await this.controller.compactNow({
        strategy: msg.strategy,
        params: msg.params,
        focus: msg.focus,
        trigger: 'inspector',
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
