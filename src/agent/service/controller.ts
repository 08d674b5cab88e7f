// The host-side brain of the extension, free of `vscode` so it is tested in plain Node. A facade:
// it wires parts that each do one job and re-exposes their events to the extension.
//   SessionScope      one chat session (history, chat log, pipeline, agent loop), swapped as one
//   ChatProjector     agent events and compactions -> chat items (inside the scope)
//   ApprovalBroker    pending approvals, early decisions, reject-all on stop / new chat
//   CalibrationStore  the token calibration per model, kept across restarts
//   AgentFactory      client, tools and system prompt for an agent loop; their token overhead
//   SummaryRunner     LLM summaries for the pipeline, cancellable from the host
//   InspectorService  inspector views, previews and details on the engine's public calls
import { join } from 'node:path';
import {
  autoCompactThreshold,
  Emitter,
  errorMessage,
  SessionFileStore,
  type CalibratedCounter,
  type CompactionFailure,
  type CompactionOutcome,
  type CompactionPipeline,
  type CompactionRecord,
  type Disposable,
  type ImportResult,
  type PipelineSettings,
  type SessionLog,
  type UndoOutcome,
} from '../../core';
import type { ChatItem, ChatState, ContextMeter, InspectorSession, MessageDetail } from '../../protocol';
import type { AgentEvent, AgentLoop } from '../loop/agent';
import { AgentFactory, agentSettingsChanged } from '../loop/agentFactory';
import { ApprovalBroker, type DecisionOutcome } from '../loop/approvalBroker';
import { CalibrationStore } from './calibrationStore';
import { HostCounting } from '../loop/hostCounting';
import { pipelineSettingsFor, strategyParamsFor, transcriptDirFor } from '../../settings/engineSettings';
import type { HostSettings } from '../../settings/hostSettings';
import { FileReview } from './fileReview';
import { InspectorService, type InspectedRecording, type InspectorTarget } from './inspectorService';
import { MissingApiKeyError } from '../loop/missingApiKeyError';
import { ProbeChecks } from './probeChecks';
import { promptContent, type PromptAttachments } from './promptAttachments';
import { messageListsOf } from './recordingLoader';
import { RequestCount } from '../loop/requestCount';
import { SessionScope } from './sessionScope';
import { StandingService } from '../instructions/standingService';
import { SummaryDrafts } from './summaryDrafts';
import { SummaryRunner } from '../loop/summaryRunner';
import type { CompactNowOptions, ControllerDeps, SessionSummary } from './controllerTypes';

export { MissingApiKeyError } from '../loop/missingApiKeyError';
export type { ControllerDeps, ControllerLog, SessionSummary } from './controllerTypes';

export class AgentController implements Disposable {
  private readonly store: SessionFileStore;
  /** Token counting on a worker thread (the memo and short-text cache answer the engine's synchronous counts). */
  private readonly counting: HostCounting;
  private readonly calibrations: CalibrationStore;
  private readonly agents: AgentFactory;
  private readonly summaries: SummaryRunner;
  private readonly approvals: ApprovalBroker;
  private readonly inspector: InspectorService;
  /** Summary drafts waiting for review (events: opened, closed). */
  readonly drafts = new SummaryDrafts();
  readonly review: FileReview; // edits pending review (diff editor) and file checkpoints
  readonly probes: ProbeChecks; // "Check this compaction": probe questions asked of the compacted context (issue 22)
  readonly standing: StandingService; // instruction files, the user's and kept instructions, the task list (issue 23)
  private calibration: CalibratedCounter;
  private settings: HostSettings;
  private scope: SessionScope;
  private compacting = false;
  private readonly requestCount: RequestCount;

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
    this.counting = new HostCounting(deps.log, deps.counting);
    this.calibrations = new CalibrationStore(join(deps.storageDir, 'calibration.json'), this.counting.counter, deps.log);
    this.calibration = this.calibrations.load(this.settings.model);
    const standingDeps = { setting: () => this.settings.instructions, session: () => this.scope.session };
    this.standing = new StandingService({ ...deps, ...standingDeps });
    this.agents = new AgentFactory({ ...deps, tokenizer: this.counting.tokenizer, ...this.standing.agentHooks() });
    this.requestCount = new RequestCount({
      ...deps,
      calibration: () => this.calibration,
      rawOverhead: () => this.rawOverheadTokens(),
      countTokens: (key, messages) => this.agents.countInputTokens(key, this.settings, messages),
      saved: () => this.calibrations.save(this.settings.model, this.calibration),
    });
    this.summaries = new SummaryRunner({
      getApiKey: deps.getApiKey,
      settings: () => this.settings,
      tokenizer: this.counting.tokenizer,
      log: deps.log,
    });
    this.approvals = new ApprovalBroker({ isAwaitingApproval: (id) => this.scope.isAwaitingApproval(id), log: deps.log });
    this.inspector = new InspectorService({
      current: () => this.scope,
      settings: () => this.settings,
      counter: this.counting.counter,
      strategyParams: (name) => this.strategyParams(name),
      overheadParts: () => this.agents.overheadParts(this.settings),
      standing: () => ({ context: this.standing.context(), tokenizer: this.counting.tokenizer }),
    });
    this.review = new FileReview(deps, { settings: () => this.settings, current: () => this.scope, busy: () => this.busy });
    const probeDeps = { current: () => this.scope, settings: () => this.settings, undo: () => this.undo() };
    this.probes = new ProbeChecks({ ...deps, ...probeDeps, agents: this.agents, tokenizer: this.counting.tokenizer });
    this.scope = this.openScope(this.store.list()[0]?.id);
  }

  /** The token calibration of the current model: reported input ≈ prefix + factor × o200k count. */
  calibrationState(): { prefix: number; factor: number; observations: number } {
    const c = this.calibration;
    return { prefix: c.prefix, factor: c.factor, observations: c.observations };
  }

  // -------------------------------------------------------------------------------------------
  // Sessions

  get session(): SessionLog {
    return this.scope.session;
  }
  get pipeline(): CompactionPipeline {
    return this.scope.pipeline;
  }
  pin = (id: string): void => this.scope.pin(id);
  unpin = (id: string): void => this.scope.unpin(id);
  chatNotice = (message: string): void => this.scope.chat.notice(message); // e.g. an MCP server that stopped
  pinnedIds = (): ReadonlySet<string> => this.scope.session.pinnedIds();
  /** From a prompt's send until its run ends (the first request's count_tokens included). */
  private sending = false;
  get busy(): boolean {
    return this.sending || this.scope.busy;
  }

  listSessions(): SessionSummary[] {
    return this.store.list().map((m) => ({ id: m.id, title: m.title, updatedAt: m.updatedAt, compactions: m.compactions.length }));
  }

  /** Start a new, empty chat (the current one stays on disk and can be resumed). */
  newChat(): void {
    if (this.busy) void this.stop();
    this.switchSession(undefined);
  }

  resume(id: string): void {
    if (!this.store.list().some((m) => m.id === id)) throw new Error(`There is no saved session "${id}".`);
    if (this.busy) void this.stop();
    this.switchSession(id);
  }

  private switchSession(id: string | undefined): void {
    this.scope.dispose();
    this.approvals.rejectAll('The chat was closed.');
    this.drafts.cancelAll('The chat was closed; the history is unchanged.');
    this.scope = this.openScope(id);
    this.chatReset.fire();
    this.sessionChanged.fire();
    this.warmup().catch((e: unknown) => this.deps.log.warn(`The session was not counted ahead: ${errorMessage(e)}`));
  }

  private openScope(id: string | undefined): SessionScope {
    const scope: SessionScope = new SessionScope({
      store: this.store,
      id,
      settings: this.settings,
      pipelineSettings: this.pipelineSettings(),
      counter: this.counting.counter,
      transcriptDir: transcriptDirFor(this.settings, this.deps.workspaceRoot, this.deps.storageDir),
      transcriptRoot: this.deps.workspaceRoot,
      // The summary request reuses this session's conversation (its agent's last request and cached prefix).
      summarizer: (input, focus, signal) => this.summaries.run(input, focus, signal, scope.agent),
      // The summary phase is over when a draft waits; auto-compaction's draft has a deadline.
      reviewer: this.drafts.reviewer(
        () => this.settings,
        () => this.setCompacting(false),
      ),
      overheadTokens: () => this.requestCount.pipelineOverhead(),
      scale: () => this.calibration.factor,
      log: this.deps.log,
      hooks: {
        chatChanged: (c) => (c.kind === 'reset' ? this.chatReset.fire() : this.chatChanged.fire(c)),
        sessionChanged: () => {
          this.sessionChanged.fire();
          this.fireContext();
        },
        compactionStarted: (e) => this.onCompactionStarted(e.strategy, e.trigger, e.summarizing),
        compacted: (r) => this.onCompacted(r),
        compactionFailed: (f) => this.onCompactionFailed(f),
      },
    });
    return scope;
  }

  private pipelineSettings(): PipelineSettings {
    return pipelineSettingsFor(this.settings, (name) => this.strategyParams(name));
  }

  /** Settings defaults for a strategy, validated (bad settings fall back to the built-in defaults). */
  strategyParams(name: string): Record<string, number> {
    return strategyParamsFor(this.settings, name, (m) => this.deps.log.warn(m));
  }

  /** Apply changed settings without a reload. */
  updateSettings(settings: HostSettings): void {
    const old = this.settings;
    const modelChanged = agentSettingsChanged(old, settings);
    this.settings = settings;
    this.scope.applySettings(settings, this.pipelineSettings());
    if (modelChanged && !this.busy) {
      this.scope.dropAgent();
      this.calibration = this.calibrations.load(settings.model);
    }
    this.fireContext();
    this.sessionChanged.fire();
  }

  /** The API key changed (set or cleared): rebuild the client on next use. */
  apiKeyChanged(): void {
    if (!this.busy) this.scope.dropAgent();
  }

  // -------------------------------------------------------------------------------------------
  // Chat

  chatState(hasApiKey: boolean): ChatState {
    return {
      sessionId: this.scope.session.id,
      title: this.scope.session.meta.title,
      items: this.scope.chatLog.all(),
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
      // Until the worker has counted the session and its view is built (see warmup) nothing is counted on this thread.
      used: this.counting.settled && !this.scope.pipeline.warmingView ? this.scope.pipeline.currentTokens() : 0,
      window: this.settings.contextWindow,
      threshold: autoCompactThreshold(this.settings.autoCompact, this.settings.contextWindow),
      cache: this.scope.usage.meter(this.scope.pipeline.cacheTtl(this.settings.promptCaching), this.settings.model),
    };
  }

  private fireContext(): void {
    this.contextChanged.fire(this.contextMeter());
  }

  private rawOverheadTokens(): number {
    const parts = this.agents.overheadParts(this.settings);
    return parts.system + parts.tools + this.standing.tokens(this.counting.tokenizer);
  }

  private async ensureAgent(): Promise<AgentLoop> {
    const key = await this.deps.getApiKey();
    if (!key) throw new MissingApiKeyError();
    const scope = this.scope;
    return scope.agentFor(key, () =>
      this.agents.create({
        apiKey: key,
        settings: this.settings,
        pipeline: scope.pipeline,
        calibration: this.calibration,
        ...this.review.wire(scope, this.approvals, (e) => this.onAgentEvent(scope, e)),
      }),
    );
  }

  /** Send a prompt. Errors (no key, busy) become chat items; nothing throws to the view. */
  async send(text: string, extra: Pick<PromptAttachments, 'blocks' | 'files'> = { blocks: [], files: [] }): Promise<void> {
    const prompt = text.trim(); // with extra: @-mentioned files' content and images (promptAttachments.ts)
    if (!prompt && extra.blocks.length === 0) return;
    let agent: AgentLoop;
    try {
      agent = await this.ensureAgent();
    } catch (e) {
      this.scope.chat.error(errorMessage(e), false);
      return;
    }
    if (this.busy) {
      this.scope.chat.notice('The agent is still working; stop it or wait before sending another message.');
      return;
    }
    this.sending = true;
    const session = this.scope.session;
    if (session.messages.length === 0 && session.meta.title === 'New chat') {
      session.setTitle(prompt.replace(/\s+/g, ' ').slice(0, 60) || 'Image');
      // The chat view shows the title from its state: send it again.
      this.chatReset.fire();
    }
    this.scope.chat.userPrompt(prompt, extra);
    this.fireBusy(true);
    try {
      await this.requestCount.measureFirstRequest(this.scope, this.scope.pipeline.effectiveMessages(), promptContent(prompt, extra.blocks));
      this.fireContext();
      await agent.run(prompt, extra.blocks);
    } catch (e) {
      this.scope.chat.error(errorMessage(e), false);
    } finally {
      this.sending = false;
      this.fireBusy(this.busy);
      this.fireContext();
    }
  }

  async retry(): Promise<void> {
    const agent = this.scope.agent;
    if (!agent || agent.busy || !agent.canRetry) return;
    this.fireBusy(true);
    try {
      await agent.retry();
    } catch (e) {
      this.scope.chat.error(errorMessage(e), false);
    } finally {
      this.fireBusy(this.busy);
    }
  }

  async stop(): Promise<void> {
    this.summaries.abort();
    this.approvals.rejectAll('Stopped by the user.');
    await this.scope.agent?.stop();
    this.fireBusy(this.busy);
  }

  private fireBusy(busy: boolean): void {
    this.busyChanged.fire({ busy, compacting: this.compacting });
  }

  approve = (toolUseId: string, alwaysAllow = false): DecisionOutcome =>
    this.approvals.decide(toolUseId, alwaysAllow ? { approved: true, alwaysAllow } : { approved: true });
  reject = (toolUseId: string, reason?: string): DecisionOutcome =>
    this.approvals.decide(toolUseId, { approved: false, reason: reason?.trim() || 'The user rejected this change.' });

  /** An event of the agent of `scope`: its chat shows it (while current); the host hears what concerns it. */
  private onAgentEvent(scope: SessionScope, e: AgentEvent): void {
    if (scope === this.scope) scope.chat.project(e);
    switch (e.type) {
      case 'tool-awaiting-approval':
        this.noticed.fire({ level: 'info', message: `Splitpoint is waiting for your approval: ${e.request.title}` });
        break;
      case 'usage':
        this.calibrations.save(this.settings.model, this.calibration);
        this.fireContext();
        break;
      case 'turn-ended':
        this.fireContext();
        break;
      default:
        // compaction-* events are handled through the pipeline's own events (also outside runs).
        break;
    }
  }

  // -------------------------------------------------------------------------------------------
  // Compaction

  private setCompacting(on: boolean, strategy?: string): void {
    this.compacting = on;
    this.fireBusy(this.busy);
    this.compactionProgress.fire({ running: on, strategy, abort: on ? () => this.summaries.abort() : undefined });
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
    this.scope.chat.compacted(r);
    this.probes.compacted(r); // the divider's check, priced; run at once with probes.afterCompaction = always
    this.deps.log.info(
      `Compaction ${r.strategy} (${r.trigger}): ${r.tokensBefore} -> ${r.tokensAfter} tokens; transcript ${r.transcriptPath}`,
    );
    this.fireContext();
  }

  private onCompactionFailed(f: CompactionFailure): void {
    this.setCompacting(false);
    this.scope.chat.compactionFailed(f);
    if (f.reason !== 'cancelled') this.noticed.fire({ level: 'error', message: `Compaction failed: ${f.message}` });
  }

  /**
   * Compact now with the configured (or given) strategy. While the agent works, the compaction is
   * queued and runs after the current tool batch.
   */
  async compactNow(o: CompactNowOptions = {}): Promise<CompactionOutcome | { ok: 'queued' }> {
    const strategy = o.strategy ?? this.settings.autoCompact.strategy;
    if (this.busy) {
      this.scope.pipeline.requestCompaction(o.trigger ?? 'manual', o.focus, strategy, o.review);
      this.scope.chat.notice(`Compaction (${strategy}) will run after the current tool calls.`);
      return { ok: 'queued' };
    }
    const outcome = await this.scope.pipeline.compact({
      ...o,
      strategy,
      params: o.params ?? this.strategyParams(strategy),
      trigger: o.trigger ?? 'manual',
    });
    if (!outcome.ok && outcome.reason === 'noop') this.noticed.fire({ level: 'info', message: outcome.message });
    return outcome;
  }

  /** Compact now; an LLM summary waits as a draft until applyDraft(id, text) (as edited) / discardDraft(id). */
  draftSummary(o: CompactNowOptions = {}): Promise<CompactionOutcome | { ok: 'queued' }> {
    return this.compactNow({ ...o, review: true });
  }
  applyDraft(id: string, text: string): boolean {
    return this.drafts.apply(id, text);
  }
  discardDraft(id: string): boolean {
    return this.drafts.discard(id);
  }

  undo(): UndoOutcome {
    if (this.busy) return { ok: false, reason: 'busy', message: 'Stop the agent before undoing a compaction.' };
    const outcome = this.scope.pipeline.undo();
    if (outcome.ok) this.scope.chat.compactionUndone(outcome.undone);
    else this.noticed.fire({ level: outcome.reason === 'noop' ? 'info' : 'error', message: outcome.message });
    return outcome;
  }

  // -------------------------------------------------------------------------------------------
  // Inspector

  inspectorSession(at: number | null = null): InspectorSession {
    return this.inspector.currentSession(at);
  }

  /** A recording (a transcript, or another agent's session) as recorded, read-only. */
  inspectorFor(file: InspectedRecording, at: number | null = null): InspectorSession {
    return this.inspector.sessionFor(file, at);
  }

  /** Plan a strategy on what a target shows (the current session by default). Pure. previewSliced: the same, its passes in slices. */
  readonly preview: InspectorService['preview'] = (...a) => this.inspector.preview(...a);
  readonly previewSliced: InspectorService['previewSliced'] = (...a) => this.inspector.previewSliced(...a);

  detail(id: string, target?: InspectorTarget): MessageDetail | undefined {
    return this.inspector.detail(id, target);
  }

  /** Transcript paths this session knows (the only ones a webview may ask to open). */
  knownTranscripts(): Set<string> {
    return this.inspector.knownTranscripts();
  }

  /** Count the session on the worker thread (never this one), build its micro-compacted view in slices, then show the meter. */
  async warmup(): Promise<void> {
    const scope = this.scope;
    const overhead = this.agents.prepareOverhead(this.settings, this.counting);
    const counted = Promise.all([this.counting.prefill(() => [scope.session.messages]), overhead]);
    if (await scope.whileOpen(counted.then(() => scope.pipeline.warmView()))) this.fireContext();
  }

  /** Count a recording on the worker thread and score its compactions in slices: the inspector's synchronous views find both done. */
  countRecording = (result: ImportResult): Promise<void> =>
    this.counting.prefill(() => messageListsOf(result)).then(() => this.inspector.prepareRecording(result));

  dispose(): void {
    this.summaries.abort();
    this.drafts.dispose();
    this.review.dispose();
    this.approvals.rejectAll('The extension is shutting down.');
    this.scope.dispose();
    this.counting.dispose();
    for (const e of [this.busyChanged, this.contextChanged, this.sessionChanged, this.chatReset]) e.dispose();
    for (const e of [this.chatChanged, this.noticed, this.compactionProgress]) e.dispose();
  }
}
