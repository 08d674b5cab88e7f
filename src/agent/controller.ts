// The host-side brain of the extension, free of `vscode` so it is tested in plain Node: one chat
// session at a time (its model history, its chat log, its pipeline and agent loop), approvals,
// manual compaction, inspector previews/apply/undo, and session listing/resume.
import { mkdirSync, readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import {
  autoCompactThreshold,
  budgetTrigger,
  CachingTextTokenizer,
  CalibratedCounter,
  canUndo,
  compactionInEffect,
  CompactionPipeline,
  createTokenizer,
  DEFAULT_PLAN_CONTEXT,
  DEFAULT_TOKENIZER,
  Emitter,
  errorMessage,
  getStrategy,
  MemoizedMessageCounter,
  microCompactedView,
  newMessageId,
  planTokensOnView,
  planWith,
  ReplacementCache,
  resolveParams,
  SessionFileStore,
  SplitpointError,
  STRATEGIES,
  SummarizationError,
  summarize,
  TranscriptStore,
  writeFileAtomic,
  type CompactionOutcome,
  type CompactionRecord,
  type Disposable,
  type Message,
  type PipelineSettings,
  type PlanContext,
  type SessionLog,
  type SessionMeta,
  type UndoOutcome,
} from '../core';
import { buildInspectorSession, messageDetail, planToView } from '../inspectorModel';
import type { ChatItem, ChatState, ContextMeter, InspectorSession, MessageDetail, PlanView } from '../protocol';
import { AgentLoop, defaultSystemPrompt, requestOverheadTokens, type AgentEvent } from './agent';
import { AnthropicLlmClient } from './anthropicClient';
import { ChatLog } from './chatLog';
import type { HostSettings } from './hostSettings';
import { WorkspaceTools, type ApprovalDecision, type ApprovalGate, type ApprovalRequest } from './tools';

export interface ControllerLog {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface ControllerDeps {
  /** The workspace folder the tools are confined to (undefined: no folder open, tools refuse paths). */
  workspaceRoot: string | undefined;
  /** Where sessions and chat logs live (the extension's storage). */
  storageDir: string;
  settings: HostSettings;
  getApiKey: () => Promise<string | undefined>;
  trusted: boolean;
  log: ControllerLog;
  /** Injected in tests. */
  createClient?: (apiKey: string, baseURL: string | undefined) => Anthropic;
}

export class MissingApiKeyError extends SplitpointError {
  constructor() {
    super('No Anthropic API key is set. Run "Splitpoint: Set API Key" to add one (it is kept in VS Code\'s secret storage).');
    this.name = 'MissingApiKeyError';
  }
}

export interface SessionSummary {
  id: string;
  title: string;
  updatedAt: number;
  compactions: number;
}

/** An approval waiting for the user's click. */
interface PendingApproval {
  resolve: (d: ApprovalDecision) => void;
}

export class AgentController implements Disposable {
  private readonly store: SessionFileStore;
  private readonly tokenizer: CachingTextTokenizer;
  private readonly counter: MemoizedMessageCounter;
  private calibration: CalibratedCounter;
  private settings: HostSettings;
  private sessionLog!: SessionLog;
  private chatLog!: ChatLog;
  private pipelineInstance!: CompactionPipeline;
  private agent: AgentLoop | undefined;
  private agentKey: string | undefined;
  private readonly approvals = new Map<string, PendingApproval>();
  /** Decisions that arrived before the agent asked (the card is shown as soon as the call streams in). */
  private readonly earlyDecisions = new Map<string, ApprovalDecision>();
  private sessionSubs: Disposable[] = [];
  private compacting = false;
  private manualAbort: AbortController | undefined;
  /** Streaming state: which chat item receives the deltas of content block i of step s. */
  private streamItems = new Map<string, string>();
  private staticOverhead: { system: number; tools: number } | undefined;
  /** The plan context the pipeline uses; settings changes update it in place. */
  private ctx!: PlanContext;

  private readonly busyChanged = new Emitter<{ busy: boolean; compacting: boolean }>();
  private readonly contextChanged = new Emitter<ContextMeter>();
  private readonly sessionChanged = new Emitter<void>();
  private readonly chatReset = new Emitter<void>();
  private readonly chatChanged = new Emitter<{ kind: 'item'; item: ChatItem } | { kind: 'delta'; id: string; text: string }>();
  private readonly noticed = new Emitter<{ level: 'info' | 'error'; message: string }>();
  private readonly compactionProgress = new Emitter<{ running: boolean; strategy?: string; abort?: () => void }>();
  readonly onDidChangeBusy = this.busyChanged.event;
  readonly onDidChangeContext = this.contextChanged.event;
  /** The model's history or its compactions changed (inspector refresh). */
  readonly onDidChangeSession = this.sessionChanged.event;
  /** A different session is now current, the chat was cleared, or its title changed: send the whole state again. */
  readonly onDidResetChat = this.chatReset.event;
  readonly onDidChangeChat = this.chatChanged.event;
  readonly onNotice = this.noticed.event;
  readonly onCompactionProgress = this.compactionProgress.event;

  constructor(private readonly deps: ControllerDeps) {
    this.settings = deps.settings;
    this.store = new SessionFileStore(join(deps.storageDir, 'sessions'));
    // Short texts (placeholders, prompts, tool names) repeat endlessly: remember their counts.
    this.tokenizer = new CachingTextTokenizer(createTokenizer(DEFAULT_TOKENIZER));
    this.counter = new MemoizedMessageCounter(this.tokenizer);
    this.calibration = this.loadCalibration(this.settings.model);
    const latest = this.store.list()[0];
    if (latest) this.openSession(latest.id);
    else this.openSession(undefined);
  }

  // -------------------------------------------------------------------------------------------
  // Calibration: the ratio between the API's reported input tokens and our o200k estimate, per
  // model, kept across restarts (small requests are too noisy to learn from).

  private calibrationFile(): string {
    return join(this.deps.storageDir, 'calibration.json');
  }

  private readCalibrations(): Record<string, unknown> {
    try {
      const all = JSON.parse(readFileSync(this.calibrationFile(), 'utf8')) as unknown;
      return typeof all === 'object' && all !== null && !Array.isArray(all) ? (all as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  }

  private loadCalibration(model: string): CalibratedCounter {
    const options = { model, minEstimatedTokens: 1_000 };
    const snapshot = this.readCalibrations()[model];
    if (snapshot === undefined) return new CalibratedCounter(this.counter, options);
    try {
      return CalibratedCounter.fromJSON(this.counter, snapshot, options);
    } catch (e) {
      this.deps.log.warn(`Ignoring the saved calibration for ${model}: ${errorMessage(e)}`);
      return new CalibratedCounter(this.counter, options);
    }
  }

  private saveCalibration(): void {
    try {
      const all = this.readCalibrations();
      all[this.settings.model] = this.calibration.toJSON();
      writeFileAtomic(this.calibrationFile(), JSON.stringify(all, null, 2));
    } catch (e) {
      this.deps.log.warn(`Could not save the token calibration: ${errorMessage(e)}`);
    }
  }

  /** The current calibration factor (API-reported / local estimate). */
  get calibrationFactor(): number {
    return this.calibration.factor;
  }

  // -------------------------------------------------------------------------------------------
  // Sessions

  get session(): SessionLog {
    return this.sessionLog;
  }
  get pipeline(): CompactionPipeline {
    return this.pipelineInstance;
  }
  get busy(): boolean {
    return this.agent?.busy ?? false;
  }

  listSessions(): SessionSummary[] {
    return this.store.list().map((m) => ({ id: m.id, title: m.title, updatedAt: m.updatedAt, compactions: m.compactions.length }));
  }

  /** Start a new, empty chat (the current one stays on disk and can be resumed). */
  newChat(): void {
    if (this.busy) void this.stop();
    this.openSession(undefined);
  }

  resume(id: string): void {
    if (!this.store.list().some((m) => m.id === id)) throw new Error(`There is no saved session "${id}".`);
    if (this.busy) void this.stop();
    this.openSession(id);
  }

  private openSession(id: string | undefined): void {
    for (const s of this.sessionSubs) s.dispose();
    this.sessionSubs = [];
    this.agent?.dispose();
    this.agent = undefined;
    this.chatLog?.dispose();
    this.sessionLog?.dispose();
    this.rejectAllApprovals('The chat was closed.');
    if (id) {
      const { log, errors } = this.store.load(id);
      for (const e of errors) this.deps.log.warn(`Session ${e.file}:${e.line}: ${e.message} (line skipped)`);
      this.sessionLog = log;
    } else {
      this.sessionLog = this.store.create(newMessageId('chat'), 'New chat');
    }
    mkdirSync(this.store.dir, { recursive: true });
    this.chatLog = ChatLog.load(join(this.store.dir, `${this.sessionLog.id.replace(/[^A-Za-z0-9_-]/g, '_')}.chat.json`));
    this.pipelineInstance = new CompactionPipeline(
      {
        session: this.sessionLog,
        transcripts: new TranscriptStore({ dir: this.transcriptDir() }),
        ctx: (this.ctx = this.planContext()),
        summarizer: (input, focus, signal) => this.runSummarizer(input, focus, signal),
        overheadTokens: () => this.overheadTokens(),
        scale: () => this.calibration.factor,
      },
      this.pipelineSettings(),
    );
    this.sessionSubs.push(
      this.chatLog.onDidChange((c) => {
        if (c.kind === 'reset') this.chatReset.fire();
        else this.chatChanged.fire(c);
      }),
      this.sessionLog.onDidChange(() => {
        this.sessionChanged.fire();
        this.fireContext();
      }),
      this.pipelineInstance.onWillCompact((e) => this.onCompactionStarted(e.strategy, e.trigger, e.summarizing)),
      this.pipelineInstance.onDidCompact((r) => this.onCompacted(r)),
      this.pipelineInstance.onDidFail((f) => {
        this.setCompacting(false);
        if (f.reason === 'cancelled') {
          this.chatLog.upsert({ kind: 'notice', id: newMessageId('note'), message: `Compaction (${f.strategy}) was cancelled; the history is unchanged.` });
          return;
        }
        this.chatLog.upsert({ kind: 'error', id: newMessageId('err'), message: `Compaction (${f.strategy}, ${f.trigger}) failed: ${f.message}`, retryable: false });
        this.noticed.fire({ level: 'error', message: `Compaction failed: ${f.message}` });
      }),
    );
    this.chatReset.fire();
    this.sessionChanged.fire();
    this.fireContext();
  }

  private transcriptDir(): string {
    const folder = this.settings.transcriptFolder;
    if (isAbsolute(folder)) return folder;
    return this.deps.workspaceRoot ? resolve(this.deps.workspaceRoot, folder) : join(this.deps.storageDir, 'transcripts');
  }

  private planContext(): PlanContext {
    return {
      ...DEFAULT_PLAN_CONTEXT,
      tokens: this.counter,
      contextWindow: this.settings.contextWindow,
      maxOutputTokens: this.settings.maxOutputTokens,
      copies: new ReplacementCache(),
    };
  }

  private pipelineSettings(): PipelineSettings {
    const s = this.settings;
    return {
      microCompact: { enabled: true, keepRecent: s.microCompact.keepRecent, minChars: s.microCompact.minChars },
      autoCompact: {
        enabled: s.autoCompact.enabled,
        strategy: s.autoCompact.strategy,
        params: this.strategyParams(s.autoCompact.strategy),
        trigger: budgetTrigger({ fraction: s.autoCompact.threshold }),
      },
    };
  }

  /** Settings defaults for a strategy, validated (bad settings fall back to the built-in defaults). */
  strategyParams(name: string): Record<string, number> {
    const def = getStrategy(name);
    try {
      return resolveParams(def, this.settings.strategyParams[name] ?? {});
    } catch (e) {
      this.deps.log.warn(`Ignoring splitpoint.strategyParams["${name}"]: ${errorMessage(e)}`);
      return resolveParams(def, {});
    }
  }

  /** Apply changed settings without a reload. */
  updateSettings(settings: HostSettings): void {
    const modelChanged = settings.model !== this.settings.model || settings.baseUrl !== this.settings.baseUrl || settings.maxOutputTokens !== this.settings.maxOutputTokens;
    this.settings = settings;
    this.pipelineInstance.updateSettings(this.pipelineSettings());
    this.ctx.contextWindow = settings.contextWindow;
    this.ctx.maxOutputTokens = settings.maxOutputTokens;
    if (modelChanged && !this.busy) {
      this.agent?.dispose();
      this.agent = undefined;
      this.calibration = this.loadCalibration(settings.model);
    }
    this.fireContext();
    this.sessionChanged.fire();
  }

  /** The API key changed (set or cleared): rebuild the client on next use. */
  apiKeyChanged(): void {
    if (!this.busy) {
      this.agent?.dispose();
      this.agent = undefined;
    }
  }

  // -------------------------------------------------------------------------------------------
  // Chat

  chatState(hasApiKey: boolean): ChatState {
    return {
      sessionId: this.sessionLog.id,
      title: this.sessionLog.meta.title,
      items: this.chatLog.all(),
      busy: this.busy,
      compacting: this.compacting,
      context: this.contextMeter(),
      hasApiKey,
      model: this.settings.model,
      trusted: this.deps.trusted,
    };
  }

  contextMeter(): ContextMeter {
    return {
      // Until the tokenizer has loaded (off the activation path, see warmup) nothing is counted.
      used: this.tokenizer.loaded ? this.pipelineInstance.currentTokens() : 0,
      window: this.settings.contextWindow,
      threshold: autoCompactThreshold(this.settings.autoCompact, this.settings.contextWindow),
    };
  }

  private fireContext(): void {
    this.contextChanged.fire(this.contextMeter());
  }

  private async ensureAgent(): Promise<AgentLoop> {
    const key = await this.deps.getApiKey();
    if (!key) throw new MissingApiKeyError();
    if (this.agent && this.agentKey === key) return this.agent;
    this.agent?.dispose();
    const client = this.deps.createClient ? this.deps.createClient(key, this.settings.baseUrl) : new Anthropic({ apiKey: key, baseURL: this.settings.baseUrl, maxRetries: 2 });
    const { tools, system } = this.toolsAndSystem();
    const gate: ApprovalGate = { request: (req, signal) => this.awaitApproval(req, signal) };
    this.agent = new AgentLoop({
      client,
      model: this.settings.model,
      maxTokens: this.settings.maxOutputTokens,
      system,
      pipeline: this.pipelineInstance,
      tools,
      approvals: gate,
      calibration: this.calibration,
      tokenizer: this.tokenizer,
      contextWindow: this.settings.contextWindow,
      onEvent: (e) => this.onAgentEvent(e),
    });
    this.agentKey = key;
    return this.agent;
  }

  /** The agent's tools and system prompt (read-only tools in an untrusted workspace or without a folder). */
  private toolsAndSystem(): { tools: WorkspaceTools; system: string } {
    const readOnly = !this.deps.trusted || !this.deps.workspaceRoot;
    const tools = new WorkspaceTools({
      root: this.deps.workspaceRoot ?? this.deps.storageDir,
      readOnly,
      limits: { defaultCommandTimeoutMs: this.settings.commandTimeoutMs },
    });
    return { tools, system: defaultSystemPrompt({ readOnly, workspaceRoot: this.deps.workspaceRoot }) };
  }

  /** System prompt and tool definitions, in tokens (the agent sends exactly these; known before it exists). */
  private overheadParts(): { system: number; tools: number } {
    if (!this.staticOverhead) {
      const { tools, system } = this.toolsAndSystem();
      const systemTokens = this.tokenizer.countText(system);
      this.staticOverhead = { system: systemTokens, tools: requestOverheadTokens(this.tokenizer, system, tools.definitions()) - systemTokens };
    }
    return this.staticOverhead;
  }

  private overheadTokens(): number {
    const parts = this.overheadParts();
    return parts.system + parts.tools;
  }

  /** Send a prompt. Errors (no key, busy) become chat items; nothing throws to the view. */
  async send(text: string): Promise<void> {
    const prompt = text.trim();
    if (!prompt) return;
    let agent: AgentLoop;
    try {
      agent = await this.ensureAgent();
    } catch (e) {
      this.chatLog.upsert({ kind: 'error', id: newMessageId('err'), message: errorMessage(e), retryable: false });
      return;
    }
    if (agent.busy) {
      this.chatLog.upsert({ kind: 'notice', id: newMessageId('note'), message: 'The agent is still working; stop it or wait before sending another message.' });
      return;
    }
    if (this.sessionLog.messages.length === 0 && this.sessionLog.meta.title === 'New chat') {
      this.sessionLog.setTitle(prompt.replace(/\s+/g, ' ').slice(0, 60));
      // The chat view shows the title from its state: send it again.
      this.chatReset.fire();
    }
    this.chatLog.upsert({ kind: 'user', id: newMessageId('chat_u'), text: prompt });
    this.busyChanged.fire({ busy: true, compacting: this.compacting });
    try {
      await agent.run(prompt);
    } catch (e) {
      this.chatLog.upsert({ kind: 'error', id: newMessageId('err'), message: errorMessage(e), retryable: false });
    } finally {
      this.busyChanged.fire({ busy: this.busy, compacting: this.compacting });
      this.fireContext();
    }
  }

  async retry(): Promise<void> {
    const agent = this.agent;
    if (!agent || agent.busy || !agent.canRetry) return;
    this.busyChanged.fire({ busy: true, compacting: this.compacting });
    try {
      await agent.retry();
    } catch (e) {
      this.chatLog.upsert({ kind: 'error', id: newMessageId('err'), message: errorMessage(e), retryable: false });
    } finally {
      this.busyChanged.fire({ busy: this.busy, compacting: this.compacting });
    }
  }

  async stop(): Promise<void> {
    this.manualAbort?.abort();
    this.rejectAllApprovals('Stopped by the user.');
    await this.agent?.stop();
    this.busyChanged.fire({ busy: this.busy, compacting: this.compacting });
  }

  approve(toolUseId: string): void {
    this.resolveApproval(toolUseId, { approved: true });
  }

  reject(toolUseId: string, reason?: string): void {
    this.resolveApproval(toolUseId, { approved: false, reason: reason?.trim() || 'The user rejected this change.' });
  }

  private resolveApproval(toolUseId: string, decision: ApprovalDecision): void {
    const pending = this.approvals.get(toolUseId);
    if (!pending) {
      const item = this.chatLog.get(toolUseId);
      if (item && item.kind === 'tool' && item.status === 'awaiting-approval') this.earlyDecisions.set(toolUseId, decision);
      else this.deps.log.warn(`No approval is pending for ${toolUseId}; ignored.`);
      return;
    }
    this.approvals.delete(toolUseId);
    pending.resolve(decision);
  }

  private awaitApproval(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> {
    return new Promise((resolveDecision) => {
      const done = (d: ApprovalDecision) => {
        signal.removeEventListener('abort', onAbort);
        resolveDecision(d);
      };
      const onAbort = () => {
        this.approvals.delete(req.toolUseId);
        done({ approved: false, reason: 'Stopped by the user.' });
      };
      if (signal.aborted) return onAbort();
      const early = this.earlyDecisions.get(req.toolUseId);
      if (early) {
        this.earlyDecisions.delete(req.toolUseId);
        return resolveDecision(early);
      }
      signal.addEventListener('abort', onAbort, { once: true });
      this.approvals.set(req.toolUseId, { resolve: done });
    });
  }

  private rejectAllApprovals(reason: string): void {
    this.earlyDecisions.clear();
    for (const [id, p] of this.approvals) {
      this.approvals.delete(id);
      p.resolve({ approved: false, reason });
    }
  }

  // -------------------------------------------------------------------------------------------
  // Agent events -> chat items

  private onAgentEvent(e: AgentEvent): void {
    switch (e.type) {
      case 'turn-started':
        this.streamItems.clear();
        break;
      case 'text-delta':
      case 'thinking-delta': {
        const key = `${e.runId}:${e.step}:${e.index}`;
        let id = this.streamItems.get(key);
        const text = e.type === 'text-delta' ? e.text : e.thinking;
        if (!id) {
          id = newMessageId(e.type === 'text-delta' ? 'chat_a' : 'chat_t');
          this.streamItems.set(key, id);
          this.chatLog.upsert(e.type === 'text-delta' ? { kind: 'assistant', id, text, streaming: true } : { kind: 'thinking', id, text, streaming: true });
        } else {
          this.chatLog.appendText(id, text);
        }
        break;
      }
      case 'tool-call-started':
        this.chatLog.upsert({ kind: 'tool', id: e.toolUseId, name: e.name, input: '', status: 'running' });
        break;
      case 'tool-call-input':
        this.chatLog.update(e.toolUseId, 'tool', { input: prettyJson(e.input), ...(e.name === 'run_command' ? { command: commandOf(e.input) } : {}) });
        break;
      case 'assistant-message':
      case 'assistant-interrupted': {
        // The streamed items become final; on an error nothing was kept, so streamed text is marked as such.
        for (const [key, id] of this.streamItems) {
          if (!key.startsWith(`${e.runId}:${e.step}:`)) continue;
          const item = this.chatLog.get(id);
          if (item && (item.kind === 'assistant' || item.kind === 'thinking')) {
            const suffix = e.type === 'assistant-interrupted' ? (e.reason === 'cancelled' ? '\n\n*(stopped)*' : '\n\n*(interrupted by an error; not kept)*') : '';
            this.chatLog.upsert({ ...item, text: item.text + (item.kind === 'assistant' ? suffix : ''), streaming: false });
          }
        }
        break;
      }
      case 'tool-awaiting-approval':
        this.chatLog.update(e.request.toolUseId, 'tool', { status: 'awaiting-approval', ...(e.request.diff ? { diff: e.request.diff } : {}), ...(e.request.command ? { command: e.request.command } : {}) });
        this.noticed.fire({ level: 'info', message: `Splitpoint is waiting for your approval: ${e.request.title}` });
        break;
      case 'tool-approval-resolved':
        this.chatLog.update(e.toolUseId, 'tool', { status: e.approved ? 'running' : 'rejected' });
        break;
      case 'tool-running':
        this.chatLog.update(e.toolUseId, 'tool', { status: 'running' });
        break;
      case 'tool-output': {
        const item = this.chatLog.get(e.toolUseId);
        if (item && item.kind === 'tool') this.chatLog.upsert({ ...item, output: (item.output ?? '') + e.chunk });
        break;
      }
      case 'tool-result': {
        const item = this.chatLog.get(e.toolUseId);
        if (item && item.kind === 'tool') {
          const status = item.status === 'rejected' ? 'rejected' : e.cancelled ? 'cancelled' : e.isError ? 'error' : 'done';
          this.chatLog.upsert({ ...item, status, output: e.output, isError: e.isError });
        }
        this.markTruncatedCards();
        break;
      }
      case 'usage':
        this.saveCalibration();
        this.fireContext();
        break;
      case 'error':
        this.chatLog.upsert({ kind: 'error', id: newMessageId('err'), message: e.message, retryable: e.retryable });
        break;
      case 'notice':
        this.chatLog.upsert({ kind: 'notice', id: newMessageId('note'), message: e.message });
        break;
      case 'turn-ended':
        this.markTruncatedCards();
        this.fireContext();
        break;
      default:
        // compaction-* events are handled through the pipeline's own events (also outside runs).
        break;
    }
  }

  /** Tool cards whose results micro-compaction now replaces in what the model sees get a badge. */
  private markTruncatedCards(): void {
    for (const m of this.pipelineInstance.effectiveMessages()) {
      if (!m.truncated) continue;
      for (const r of m.truncated.results) {
        const item = this.chatLog.get(r.toolUseId);
        if (item && item.kind === 'tool' && !item.truncated) this.chatLog.upsert({ ...item, truncated: { originalChars: r.originalChars } });
      }
    }
  }

  // -------------------------------------------------------------------------------------------
  // Compaction

  private setCompacting(on: boolean, strategy?: string): void {
    this.compacting = on;
    this.busyChanged.fire({ busy: this.busy, compacting: on });
    this.compactionProgress.fire({ running: on, strategy, abort: on ? () => this.manualAbort?.abort() : undefined });
  }

  private onCompactionStarted(strategy: string, trigger: string, summarizing: boolean): void {
    if (summarizing) this.setCompacting(true, strategy);
    this.deps.log.info(`Compaction started: ${strategy} (${trigger})${summarizing ? ', generating a summary' : ''}`);
  }

  private onCompacted(r: CompactionRecord): void {
    this.setCompacting(false);
    if (r.trigger === 'undo') {
      // undo() marks the undone divider and adds its own notice; an undo is not a compaction.
      this.fireContext();
      return;
    }
    this.chatLog.upsert({
      kind: 'compaction',
      id: r.id,
      strategy: r.strategy,
      trigger: r.trigger,
      tokensBefore: r.tokensBefore,
      tokensAfter: r.tokensAfter,
      transcriptPath: r.transcriptPath,
      archivedCount: r.archivedCount,
    });
    this.deps.log.info(`Compaction ${r.strategy} (${r.trigger}): ${r.tokensBefore} -> ${r.tokensAfter} tokens; transcript ${r.transcriptPath}`);
    this.fireContext();
  }

  private async runSummarizer(input: Parameters<typeof summarize>[0], focus: string | undefined, signal?: AbortSignal) {
    const key = await this.deps.getApiKey();
    if (!key) {
      return { ok: false as const, attempts: 0, error: new SummarizationError('failed', new MissingApiKeyError().message) };
    }
    const client = new AnthropicLlmClient({ apiKey: key, baseURL: this.settings.baseUrl, model: this.settings.model });
    const merged = this.mergeSignals(signal);
    return summarize(input, {
      client,
      tokenizer: this.tokenizer,
      contextWindow: this.settings.contextWindow,
      maxSummaryTokens: Math.min(this.settings.maxOutputTokens, 4_096),
      focus,
      signal: merged,
      onRetry: (r) => this.deps.log.warn(`Summary attempt ${r.attempt} failed (${r.error.message}); retrying in ${r.delayMs} ms`),
    });
  }

  /** The summary can be cancelled from the progress notification too. */
  private mergeSignals(signal?: AbortSignal): AbortSignal {
    this.manualAbort = new AbortController();
    if (!signal) return this.manualAbort.signal;
    const ac = this.manualAbort;
    if (signal.aborted) ac.abort();
    else signal.addEventListener('abort', () => ac.abort(), { once: true });
    return ac.signal;
  }

  /**
   * Compact now with the configured (or given) strategy. While the agent works, the compaction is
   * queued and runs after the current tool batch.
   */
  async compactNow(o: { focus?: string; strategy?: string; params?: Record<string, number>; trigger?: 'manual' | 'inspector' } = {}): Promise<CompactionOutcome | { ok: 'queued' }> {
    const strategy = o.strategy ?? this.settings.autoCompact.strategy;
    if (this.busy) {
      this.pipelineInstance.requestCompaction(o.trigger ?? 'manual', o.focus, strategy);
      this.chatLog.upsert({ kind: 'notice', id: newMessageId('note'), message: `Compaction (${strategy}) will run after the current tool calls.` });
      return { ok: 'queued' };
    }
    const outcome = await this.pipelineInstance.compact({
      strategy,
      params: o.params ?? this.strategyParams(strategy),
      focus: o.focus,
      trigger: o.trigger ?? 'manual',
    });
    if (!outcome.ok && outcome.reason === 'noop') this.noticed.fire({ level: 'info', message: outcome.message });
    return outcome;
  }

  undo(): UndoOutcome {
    if (this.busy) return { ok: false, reason: 'busy', message: 'Stop the agent before undoing a compaction.' };
    const outcome = this.pipelineInstance.undo();
    if (outcome.ok) {
      const item = this.chatLog.get(outcome.undone.id);
      if (item && item.kind === 'compaction') this.chatLog.upsert({ ...item, undone: true });
      this.chatLog.upsert({ kind: 'notice', id: newMessageId('note'), message: `Undid the last compaction: the history is back from ${outcome.undone.transcriptPath}.` });
    } else if (outcome.reason !== 'noop') {
      this.noticed.fire({ level: 'error', message: outcome.message });
    } else {
      this.noticed.fire({ level: 'info', message: outcome.message });
    }
    return outcome;
  }

  // -------------------------------------------------------------------------------------------
  // Inspector

  inspectorSession(): InspectorSession {
    return this.buildInspector('Current session', false, this.sessionLog.messages, this.pipelineInstance.effectiveMessages(), this.sessionLog.meta);
  }

  /** Any session file (a transcript, or another agent's session) as a read-only inspector view. */
  inspectorFor(source: string, messages: Message[], effective: readonly Message[]): InspectorSession {
    return this.buildInspector(source, true, messages, effective, { id: source, title: source, createdAt: 0, updatedAt: 0, compactions: [] });
  }

  private buildInspector(source: string, readOnly: boolean, messages: readonly Message[], effective: readonly Message[], meta: SessionMeta): InspectorSession {
    const strategyParams: Record<string, Record<string, number>> = {};
    for (const s of STRATEGIES) strategyParams[s.name] = this.strategyParams(s.name);
    const overhead = this.overheadParts();
    return buildInspectorSession({
      source,
      readOnly,
      sessionId: meta.id,
      title: meta.title,
      messages,
      effective,
      compactions: meta.compactions,
      ctx: this.ctx,
      overhead,
      autoCompactThreshold: autoCompactThreshold(this.settings.autoCompact, this.settings.contextWindow),
      strategyParams,
      canUndo: !readOnly && canUndo(meta.compactions),
      tailStartId: readOnly ? null : (compactionInEffect(meta.compactions)?.tailStartId ?? null),
    });
  }

  /** Plan a strategy on the current session or on given messages (inspected files). Pure. */
  preview(strategy: string, params: Record<string, number>, requestId: number, messages?: readonly Message[]): PlanView {
    const started = performance.now();
    const plan = planWith(strategy, messages ?? this.sessionLog.messages, params, this.ctx);
    const view = planToView(plan, requestId, performance.now() - started);
    // Before/after on what the model sees (micro-compacted), so the figures agree with the rows.
    const viewBefore = messages ? this.microCompacted(messages) : this.pipelineInstance.effectiveMessages();
    Object.assign(view, planTokensOnView(plan, viewBefore, this.settings.microCompact, this.ctx));
    view.computeMs = performance.now() - started;
    return view;
  }

  /** What the model would see of `messages` under the current micro-compaction settings. */
  microCompacted(messages: readonly Message[]): Message[] {
    return microCompactedView(messages, this.settings.microCompact, this.ctx);
  }

  detail(id: string, messages?: readonly Message[], effective?: readonly Message[]): MessageDetail | undefined {
    const list = messages ?? this.sessionLog.messages;
    const eff = effective ?? this.pipelineInstance.effectiveMessages();
    const i = list.findIndex((m) => m.id === id);
    if (i === -1) return undefined;
    return messageDetail(list[i], eff[i] ?? list[i], this.counter.countMessage(eff[i] ?? list[i]));
  }

  /** Transcript paths this session knows (the only ones a webview may ask to open). */
  knownTranscripts(): Set<string> {
    return new Set(this.sessionLog.meta.compactions.map((c) => c.transcriptPath));
  }

  /** Warm the tokenizer's ranks off the activation path. */
  warmup(): void {
    setTimeout(() => {
      try {
        this.tokenizer.warmup();
        this.fireContext();
      } catch (e) {
        this.deps.log.error(`Tokenizer failed to load: ${errorMessage(e)}`);
      }
    }, 0);
  }

  dispose(): void {
    this.manualAbort?.abort();
    this.rejectAllApprovals('The extension is shutting down.');
    for (const s of this.sessionSubs) s.dispose();
    this.agent?.dispose();
    this.chatLog.dispose();
    this.sessionLog.dispose();
    for (const e of [this.busyChanged, this.contextChanged, this.sessionChanged, this.chatReset, this.chatChanged, this.noticed, this.compactionProgress]) e.dispose();
  }
}

function prettyJson(v: unknown): string {
  try {
    return JSON.stringify(v, null, 2) ?? '';
  } catch {
    return String(v);
  }
}

function commandOf(input: unknown): string | undefined {
  return typeof input === 'object' && input !== null && typeof (input as { command?: unknown }).command === 'string' ? (input as { command: string }).command : undefined;
}
