// VS Code glue only: activation, views, commands, settings, secrets, status bar, progress.
// Everything with behaviour lives in src/agent (controller) and src/core (engine).
import * as vscode from 'vscode';
import { mkdirSync, readFileSync } from 'node:fs';
import { AgentController } from '../agent/controller';
import { importSession, ImportError } from '../core/importers';
import type { Message } from '../core/conversation';
import type { ChatToHost, InspectorToHost } from '../protocol';
import { ChatViewProvider } from './chatView';
import { InspectorPanel } from './inspectorPanel';
import { readSettings } from './settings';

const API_KEY_SECRET = 'splitpoint.anthropicApiKey';

export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel('Splitpoint', { log: true });
  context.subscriptions.push(log);
  const storageDir = (context.storageUri ?? context.globalStorageUri).fsPath;
  mkdirSync(storageDir, { recursive: true });
  const workspaceRoot = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;

  const getApiKey = async () => (await context.secrets.get(API_KEY_SECRET))?.trim() || undefined;
  const controller = new AgentController({
    workspaceRoot,
    storageDir,
    settings: readSettings(),
    getApiKey,
    trusted: vscode.workspace.isTrusted,
    log: { info: (m) => log.info(m), warn: (m) => log.warn(m), error: (m) => log.error(m) },
  });
  context.subscriptions.push(controller);
  controller.warmup();

  // ------------------------------------------------------------------ chat view
  const chat = new ChatViewProvider(
    context.extensionUri,
    async () => controller.chatState(!!(await getApiKey())),
    { onIntent: (msg) => void handleChat(msg) },
    log,
  );
  context.subscriptions.push(chat, vscode.window.registerWebviewViewProvider(ChatViewProvider.viewId, chat));
  context.subscriptions.push(
    controller.onDidChangeChat((c) => chat.post(c.kind === 'item' ? { type: 'item', item: c.item } : { type: 'delta', id: c.id, text: c.text })),
    controller.onDidResetChat(() => chat.sendState()),
    controller.onDidChangeBusy((b) => chat.post({ type: 'busy', busy: b.busy, compacting: b.compacting })),
    controller.onDidChangeContext((c) => {
      chat.post({ type: 'context', context: c });
      updateStatus();
    }),
    controller.onNotice((n) => {
      if (n.level === 'error') void vscode.window.showErrorMessage(`Splitpoint: ${n.message}`);
      else if (!chat.visible) void vscode.window.showInformationMessage(`Splitpoint: ${n.message}`);
    }),
  );

  // ------------------------------------------------------------------ progress while summarizing
  let progressDone: (() => void) | undefined;
  context.subscriptions.push(
    controller.onCompactionProgress((p) => {
      if (p.running && !progressDone) {
        void vscode.window.withProgress(
          { location: vscode.ProgressLocation.Notification, title: `Splitpoint: compacting (${p.strategy ?? 'summary'})…`, cancellable: true },
          (_progress, token) =>
            new Promise<void>((resolve) => {
              progressDone = resolve;
              token.onCancellationRequested(() => p.abort?.());
            }),
        );
      } else if (!p.running && progressDone) {
        progressDone();
        progressDone = undefined;
      }
    }),
  );

  // ------------------------------------------------------------------ inspector
  let inspected: { source: string; messages: Message[]; effective: Message[] } | undefined;
  const inspector = new InspectorPanel(context.extensionUri, (msg) => void handleInspector(msg), log);
  context.subscriptions.push(inspector);
  const refreshInspector = () => {
    if (!inspector.isOpen) return;
    inspector.post({
      type: 'session',
      session: inspected ? controller.inspectorFor(inspected.source, inspected.messages, inspected.effective) : controller.inspectorSession(),
    });
  };
  let refreshTimer: ReturnType<typeof setTimeout> | undefined;
  context.subscriptions.push(
    controller.onDidChangeSession(() => {
      if (inspected || refreshTimer) return;
      refreshTimer = setTimeout(() => {
        refreshTimer = undefined;
        refreshInspector();
      }, 150);
    }),
    { dispose: () => refreshTimer && clearTimeout(refreshTimer) },
  );

  // ------------------------------------------------------------------ status bar
  const status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Right, 100);
  status.command = 'splitpoint.openInspector';
  context.subscriptions.push(status);
  const updateStatus = () => {
    const c = controller.contextMeter();
    const pct = c.window > 0 ? Math.round((100 * c.used) / c.window) : 0;
    status.text = `$(layers) ${formatK(c.used)} / ${formatK(c.window)} (${pct}%)`;
    status.tooltip = `Splitpoint: the next request carries about ${c.used.toLocaleString()} of ${c.window.toLocaleString()} tokens${c.threshold ? `; auto-compact at ${c.threshold.toLocaleString()}` : ''}. Click to open the context inspector.`;
    status.backgroundColor = c.threshold && c.used >= c.threshold * 0.95 ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    status.show();
  };
  updateStatus();

  // ------------------------------------------------------------------ settings
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration('splitpoint')) return;
      controller.updateSettings(readSettings());
      chat.sendState();
      log.info('Settings changed and applied.');
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      void vscode.window.showInformationMessage('Splitpoint: the workspace is now trusted. Reload the window to give the agent its editing tools.');
    }),
  );

  // ------------------------------------------------------------------ helpers
  async function openTranscript(path: string | undefined): Promise<void> {
    let target = path;
    if (!target) {
      const picks = [...controller.session.meta.compactions].reverse().map((c) => ({
        label: `${new Date(c.at).toLocaleString()} · ${c.strategy} (${c.trigger})`,
        description: `${c.tokensBefore.toLocaleString()} → ${c.tokensAfter.toLocaleString()} tokens`,
        path: c.transcriptPath,
      }));
      if (picks.length === 0) {
        const uris = await vscode.window.showOpenDialog({ canSelectMany: false, filters: { Transcripts: ['jsonl'] }, title: 'Open a Splitpoint transcript' });
        target = uris?.[0]?.fsPath;
      } else {
        target = (await vscode.window.showQuickPick(picks, { title: 'Open a transcript of this chat' }))?.path;
      }
      if (!target) return;
    } else if (!controller.knownTranscripts().has(target)) {
      // Webviews may only open transcripts this session wrote.
      log.warn(`Refused to open ${target}: not a transcript of this session.`);
      return;
    }
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(target));
    await vscode.window.showTextDocument(doc, { preview: false });
  }

  async function setApiKey(): Promise<void> {
    const key = await vscode.window.showInputBox({
      title: 'Splitpoint: Anthropic API key',
      prompt: 'Stored in VS Code secret storage, never in settings or logs.',
      password: true,
      ignoreFocusOut: true,
      validateInput: (v) => (v.trim().length < 8 ? 'That does not look like an API key.' : undefined),
    });
    if (key === undefined) return;
    await context.secrets.store(API_KEY_SECRET, key.trim());
    controller.apiKeyChanged();
    chat.sendState();
    log.info('API key saved to secret storage.');
    void vscode.window.showInformationMessage('Splitpoint: API key saved.');
  }

  async function compactNow(focus?: string): Promise<void> {
    const outcome = await controller.compactNow({ focus });
    if (outcome.ok === true) void vscode.window.showInformationMessage(`Splitpoint: compacted ${outcome.record.tokensBefore.toLocaleString()} → ${outcome.record.tokensAfter.toLocaleString()} tokens.`);
  }

  async function inspectFile(): Promise<void> {
    const uris = await vscode.window.showOpenDialog({
      canSelectMany: false,
      title: 'Inspect a session: Splitpoint transcript, Claude Code or Codex session, Anthropic messages JSON',
      filters: { Sessions: ['jsonl', 'json'] },
    });
    const file = uris?.[0]?.fsPath;
    if (!file) return;
    try {
      const result = importSession(readFileSync(file, 'utf8'), file);
      for (const w of result.warnings) log.warn(`${file}: ${w}`);
      inspected = { source: file, messages: result.messages, effective: controller.microCompacted(result.messages) };
      inspector.show();
      refreshInspector();
    } catch (e) {
      const message = e instanceof ImportError ? e.message : `Could not read ${file}: ${(e as Error).message}`;
      void vscode.window.showErrorMessage(`Splitpoint: ${message}`);
    }
  }

  async function resumeSession(): Promise<void> {
    const items = controller.listSessions().map((s) => ({
      label: s.title,
      description: new Date(s.updatedAt).toLocaleString(),
      detail: s.compactions ? `${s.compactions} compaction${s.compactions === 1 ? '' : 's'}` : undefined,
      id: s.id,
    }));
    const pick = await vscode.window.showQuickPick(items, { title: 'Resume a Splitpoint chat' });
    if (pick) {
      controller.resume(pick.id);
      await chat.reveal();
    }
  }

  async function handleChat(msg: ChatToHost): Promise<void> {
    switch (msg.type) {
      case 'send':
        return controller.send(msg.text);
      case 'stop':
        return controller.stop();
      case 'retry':
        return controller.retry();
      case 'approve':
        return controller.approve(msg.toolUseId);
      case 'reject':
        return controller.reject(msg.toolUseId, msg.reason);
      case 'newChat':
        return controller.newChat();
      case 'setApiKey':
        return setApiKey();
      case 'compact':
        return compactNow(msg.focus);
      case 'openInspector':
        return void vscode.commands.executeCommand('splitpoint.openInspector');
      case 'openTranscript':
        return openTranscript(msg.path);
      case 'ready':
        return chat.sendState();
    }
  }

  async function handleInspector(msg: InspectorToHost): Promise<void> {
    switch (msg.type) {
      case 'ready':
        return refreshInspector();
      case 'preview':
        try {
          inspector.post({ type: 'plan', plan: controller.preview(msg.strategy, msg.params, msg.requestId, inspected?.messages) });
        } catch (e) {
          inspector.post({ type: 'planError', requestId: msg.requestId, message: (e as Error).message });
        }
        return;
      case 'apply': {
        if (inspected) return;
        inspector.post({ type: 'busy', busy: true, label: `Applying ${msg.strategy}…` });
        try {
          const outcome = await controller.compactNow({ strategy: msg.strategy, params: msg.params, focus: msg.focus, trigger: 'inspector' });
          if (outcome.ok === true) inspector.post({ type: 'notice', level: 'info', message: `Applied ${msg.strategy}: ${outcome.record.tokensBefore.toLocaleString()} → ${outcome.record.tokensAfter.toLocaleString()} tokens. Transcript: ${outcome.record.transcriptPath}` });
          else if (outcome.ok === false) inspector.post({ type: 'notice', level: 'error', message: outcome.message });
        } finally {
          inspector.post({ type: 'busy', busy: false });
          refreshInspector();
        }
        return;
      }
      case 'undo': {
        const outcome = controller.undo();
        inspector.post({ type: 'notice', level: outcome.ok ? 'info' : 'error', message: outcome.ok ? 'Restored the history from the transcript.' : outcome.message });
        refreshInspector();
        return;
      }
      case 'showMessage': {
        const detail = controller.detail(msg.id, inspected?.messages, inspected?.effective);
        if (detail) inspector.post({ type: 'detail', detail });
        return;
      }
      case 'openTranscript':
        return openTranscript(msg.path);
      case 'inspectFile':
        return inspectFile();
      case 'showCurrent':
        inspected = undefined;
        return refreshInspector();
    }
  }

  // ------------------------------------------------------------------ commands
  const register = (id: string, fn: (...args: never[]) => unknown) => context.subscriptions.push(vscode.commands.registerCommand(id, fn));
  register('splitpoint.newChat', async () => {
    controller.newChat();
    await chat.reveal();
  });
  register('splitpoint.setApiKey', setApiKey);
  register('splitpoint.clearApiKey', async () => {
    await context.secrets.delete(API_KEY_SECRET);
    controller.apiKeyChanged();
    chat.sendState();
    void vscode.window.showInformationMessage('Splitpoint: API key removed.');
  });
  register('splitpoint.compactNow', async () => {
    const focus = await vscode.window.showInputBox({ title: 'Splitpoint: Compact Now', prompt: 'Optional focus for the summary (what must be preserved). Leave empty for none.' });
    if (focus === undefined) return;
    await compactNow(focus.trim() || undefined);
  });
  register('splitpoint.previewCompaction', () => {
    inspected = undefined;
    inspector.show();
    refreshInspector();
  });
  register('splitpoint.openInspector', () => {
    inspected = undefined;
    inspector.show();
    refreshInspector();
  });
  register('splitpoint.openTranscript', (path?: string) => openTranscript(typeof path === 'string' ? path : undefined));
  register('splitpoint.inspectFile', inspectFile);
  register('splitpoint.resumeSession', resumeSession);
  register('splitpoint.undoCompaction', () => controller.undo());
  register('splitpoint.stop', () => controller.stop());
  context.subscriptions.push(controller.onDidChangeSession(updateStatus));
  log.info(`Splitpoint activated (workspace: ${workspaceRoot ?? 'none'}, trusted: ${vscode.workspace.isTrusted}).`);
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}

function formatK(n: number): string {
  return n >= 1000 ? `${(n / 1000).toFixed(n >= 100_000 ? 0 : 1)}k` : String(n);
}
