// VS Code glue only: activate() creates the controller and lists the features, each a class that
// owns its disposables. Everything with behaviour lives in src/agent (controller) and src/core.
import * as vscode from 'vscode';
import { existsSync, mkdirSync } from 'node:fs';
import { AgentController } from '../agent/service/controller';
import { vscodeRipgrepCandidates } from '../agent/tools';
import { ApiKeyCommands, ApiKeySecret, keyGate } from './apiKeyCommands';
import { ChatFeature } from './chatFeature';
import { CompactionProgress } from './compactionProgress';
import { ConfigurationFeature } from './configurationFeature';
import { CheckpointRestore } from './checkpointRestore';
import { DiffReview } from './diffReview';
import { failureSink } from './failureSink';
import { InspectorFeature } from './inspectorFeature';
import { McpFeature } from './mcpFeature';
import { ModelPicker } from './modelPicker';
import { SessionCommands } from './sessionCommands';
import { SettingsReader } from './settings';
import { StatusBar } from './statusBar';
import { SummaryReview } from './summaryReview';
import { TranscriptOpener } from './transcriptOpener';

export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel('Splitpoint', { log: true });
  const sink = failureSink(log);
  const storageDir = (context.storageUri ?? context.globalStorageUri).fsPath;
  mkdirSync(storageDir, { recursive: true });
  const workspaceRoot = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const apiKey = new ApiKeySecret(context.secrets);
  const settings = new SettingsReader(log);
  // Requests get the key only for Anthropic's API or a base URL the user allowed (asked once per origin).
  const requestKey = keyGate(apiKey, context.globalState, () => settings.read().baseUrl);
  const mcp = new McpFeature(log);
  const controller = new AgentController({
    workspaceRoot,
    storageDir,
    settings: settings.read(),
    getApiKey: () => requestKey.key(),
    trusted: vscode.workspace.isTrusted,
    log: { info: (m) => log.info(m), warn: (m) => log.warn(m), error: (m) => log.error(m) },
    // The search tool runs the rg that VS Code ships (else findRipgrep's npm package or PATH).
    ripgrepPath: vscodeRipgrepCandidates(vscode.env.appRoot).find((p) => existsSync(p)),
    mcp: mcp.host,
  });
  void controller.warmup();
  mcp.start((message) => controller.chatNotice(message));
  const transcripts = new TranscriptOpener(controller, log);

  const apiKeys = new ApiKeyCommands(apiKey, controller, log, requestKey);
  const inspector = new InspectorFeature(context.extensionUri, controller, transcripts, log, sink);
  const diffReview = new DiffReview(controller, log);
  const restore = new CheckpointRestore(controller);
  const chat = new ChatFeature(
    context.extensionUri,
    controller,
    {
      getApiKey: () => apiKey.get(),
      promptForApiKey: () => apiKeys.promptForKey(),
      openInspector: () => inspector.showCurrent(),
      openTranscript: (path) => transcripts.open(path),
      review: {
        ready: () => chat.post({ type: 'proposals', items: diffReview.pendingEdits() }),
        openDiff: (id) => diffReview.open(id),
        previewRestore: (id) => restore.preview(id),
        openRestoreDiff: (id, path) => restore.openDiff(id, path),
        restoreFiles: (id) => restore.restore(id),
      },
    },
    log,
    sink,
  );
  diffReview.onProposals = (items) => chat.post({ type: 'proposals', items });
  restore.chat = chat;
  context.subscriptions.push(
    log,
    controller,
    mcp,
    apiKeys,
    inspector,
    chat,
    apiKeys.onDidChangeKey(() => chat.sendState()),
    new SessionCommands(controller, chat, transcripts),
    new StatusBar(controller),
    new CompactionProgress(controller),
    new SummaryReview(controller, log),
    diffReview,
    restore,
    new ConfigurationFeature(controller, chat, log, settings),
    new ModelPicker(() => requestKey.key(), log),
  );
  log.info(`Splitpoint activated (workspace: ${workspaceRoot ?? 'none'}, trusted: ${vscode.workspace.isTrusted}).`);
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
