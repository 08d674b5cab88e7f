// VS Code glue only: activate() creates the controller and lists the features, each a class that
// owns its disposables and gets what it needs in its constructor (built in dependency order; where
// two features need each other, one follows the other's event). Each feature is built inside its own
// guard (features.ts): one that throws is reported and the others still activate. Everything with
// behaviour lives in src/agent (controller) and src/core.
import * as vscode from 'vscode';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { AgentController } from '../agent/service/controller';
import { vscodeRipgrepCandidates } from '../agent/tools';
import { errorMessage } from '../core';
import { ApiKeyCommands, ApiKeySecret, keyGate } from './apiKeyCommands';
import { ApplyTunedSettings } from './applyTunedSettings';
import type { ApiKeyGate } from './baseUrlConsent';
import { ChatFeature } from './chatFeature';
import { CompactionProgress } from './compactionProgress';
import { ConfigurationFeature } from './configurationFeature';
import { ContinueCommand } from './continueCommand';
import { CheckpointRestore } from './checkpointRestore';
import { DiffReview } from './diffReview';
import { failureSink } from './failureSink';
import { FeatureActivation, unavailable } from './features';
import { FollowFeature } from './followFeature';
import { InspectorFeature } from './inspectorFeature';
import { McpFeature } from './mcpFeature';
import { ModelPicker } from './modelPicker';
import type { ChatReview } from './reviewRouting';
import type { FailureSink } from './router';
import { SessionCommands } from './sessionCommands';
import { SessionsView } from './sessionsView';
import { SettingsReader } from './settings';
import { StatusBar } from './statusBar';
import { SummaryReview } from './summaryReview';
import { TranscriptOpener } from './transcriptOpener';

/** What every feature may be given: the window's services, built before any feature. */
interface Services {
  context: vscode.ExtensionContext;
  log: vscode.LogOutputChannel;
  sink: FailureSink;
  settings: SettingsReader;
  apiKey: ApiKeySecret;
  requestKey: ApiKeyGate;
  controller: AgentController;
  transcripts: TranscriptOpener;
}

const INSTRUCTIONS_ALLOWED_KEY = 'splitpoint.instructionsAllowed';

export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel('Splitpoint', { log: true });
  context.subscriptions.push(log);
  const sink = failureSink(log);
  const features = new FeatureActivation(context.subscriptions, sink);
  const storageDir = (context.storageUri ?? context.globalStorageUri).fsPath;
  mkdirSync(storageDir, { recursive: true });
  const workspaceRoot = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const apiKey = new ApiKeySecret(context.secrets);
  const settings = new SettingsReader(log);
  // Requests get the key only for Anthropic's API or a base URL the user allowed (asked once per origin).
  const requestKey = keyGate(apiKey, context.globalState, () => settings.read().baseUrl);
  // The agent is built with the MCP servers' tools (none if that feature failed); their notices go to its chat.
  const mcp = features.activate('MCP servers', () => new McpFeature(log, settings, context.workspaceState));
  const controller = new AgentController({
    workspaceRoot,
    storageDir,
    settings: settings.read(),
    getApiKey: () => requestKey.key(),
    trusted: vscode.workspace.isTrusted,
    // Instruction files in an untrusted workspace: sent once the user allowed them there (remembered per workspace).
    instructionsAllowed: context.workspaceState.get<boolean>(INSTRUCTIONS_ALLOWED_KEY) === true,
    rememberAllowed: () => void context.workspaceState.update(INSTRUCTIONS_ALLOWED_KEY, true),
    log: { info: (m) => log.info(m), warn: (m) => log.warn(m), error: (m) => log.error(m) },
    // The search tool runs the rg that VS Code ships (else findRipgrep's npm package or PATH).
    ripgrepPath: vscodeRipgrepCandidates(vscode.env.appRoot).find((p) => existsSync(p)),
    mcp: mcp?.host,
  });
  context.subscriptions.push(controller);
  if (mcp) context.subscriptions.push(mcp.onNotice((message) => controller.chatNotice(message)));
  // A failure (the counter disposed as the window closes while it runs) is logged, never unhandled.
  controller.warmup().catch((e: unknown) => log.warn(`The session was not counted ahead: ${errorMessage(e)}`));
  const transcripts = new TranscriptOpener(controller, log);
  activateFeatures(features, { context, log, sink, settings, apiKey, requestKey, controller, transcripts });
  log.info(`Splitpoint activated (workspace: ${workspaceRoot ?? 'none'}, trusted: ${vscode.workspace.isTrusted}).`);
  if (features.failed.length > 0) log.warn(`Activated without: ${features.failed.join(', ')}.`);
}

/** The features, each in its own guard, in dependency order: the chat after the features it calls. */
function activateFeatures(features: FeatureActivation, s: Services): void {
  const { context, log, sink, controller } = s;
  const apiKeys = features.activate('API key commands', () => new ApiKeyCommands(s.apiKey, controller, log, s.requestKey));
  const inspector = features.activate(
    'Context inspector',
    () => new InspectorFeature(context.extensionUri, controller, s.transcripts, log, sink),
  );
  const diffReview = features.activate('Diff review', () => new DiffReview(controller, log));
  const restore = features.activate('File restore', () => new CheckpointRestore(controller));
  const chat = features.activate(
    'Chat view',
    () =>
      new ChatFeature(
        context.extensionUri,
        controller,
        {
          getApiKey: () => s.apiKey.get(),
          onDidChangeKey: apiKeys?.onDidChangeKey,
          promptForApiKey: apiKeys ? () => apiKeys.promptForKey() : unavailable('API key commands'),
          openInspector: inspector ? () => inspector.showCurrent() : unavailable('Context inspector'),
          openTranscript: (path) => s.transcripts.open(path),
          review: chatReview(diffReview, restore),
          onDidChangeRestorePlan: restore?.onDidChangePlan,
        },
        log,
        sink,
      ),
  );
  // Without the chat, what would reveal or refresh it says so (reveal) or has nothing to do (state).
  const chatView = chat ?? { reveal: unavailable('Chat view'), sendState: () => undefined };
  features.activate('Session commands', () => new SessionCommands(controller, chatView, s.transcripts));
  features.activate('Continue in Splitpoint', () => new ContinueCommand(s, chatView));
  features.activate('Status bar', () => new StatusBar(controller));
  // Agent Sessions (issue 24): the view reads nothing until it is opened; a row follows its session in the inspector.
  const storageDir = (context.storageUri ?? context.globalStorageUri).fsPath;
  features.activate('Agent sessions', () => new SessionsView({ splitpointDir: join(storageDir, 'sessions'), log }));
  if (inspector) features.activate('Follow sessions', () => new FollowFeature(inspector, controller, log));
  features.activate('Compaction progress', () => new CompactionProgress(controller));
  features.activate('Summary review', () => new SummaryReview(controller, log));
  features.activate('Settings', () => new ConfigurationFeature(controller, chatView, log, s.settings));
  features.activate('Model picker', () => new ModelPicker(() => s.requestKey.key(), log, s.settings));
  features.activate('Apply tuned settings', () => new ApplyTunedSettings(log));
}

/** The chat's file-review buttons: the diff editor's and the restore's (a feature that did not start says so). */
function chatReview(diffReview: DiffReview | undefined, restore: CheckpointRestore | undefined): ChatReview {
  return {
    openDiff: diffReview ? (id) => diffReview.open(id) : unavailable('Diff review'),
    previewRestore: restore ? (id) => restore.preview(id) : unavailable('File restore'),
    openRestoreDiff: restore ? (id, path) => restore.openDiff(id, path) : unavailable('File restore'),
    restoreFiles: restore ? (id) => restore.restore(id) : unavailable('File restore'),
  };
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
