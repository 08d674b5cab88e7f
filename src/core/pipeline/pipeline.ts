// The three layers (seeds 000-002), driven by triggers:
//   1. micro-compact before every model call (a view; the session keeps the originals),
//   2. auto-compact when the budget trigger fires (any strategy; default recursive summarization),
//   3. manual compact: the model's compact(focus) tool or the user's command, applied after the
//      current tool batch.
// Every compaction: snapshot -> plan -> (summary) -> transcript written -> compare-and-swap commit.
import type { CacheState, MicroCompactDecision } from '../cost/cacheTypes';
import type { CacheTtl } from '../cost/cost';
import { priceFor } from '../cost/prices';
import { AutoCompactDecider, decisionContext, type AutoCompactDecision } from './autoCompactDecision';
import type { PromptCachingSetting } from './callStats';
import { undoTarget } from './compactionHistory';
import { newMessageId, toApiMessages, type Message } from '../conversation/conversation';
import { errorMessage } from '../base/errors';
import { Emitter } from '../base/events';
import { assertPlanValid } from '../conversation/invariants';
import { addLedgerFacts, type LedgerFactInput, type LedgerFactsOutcome } from './ledgerFacts';
import { IncrementalMicroCompactor, requestFrontiers } from './microCompactor';
import { applyPlan, type CompactionPlan, type PlanContext } from './plan';
import { withLedger, withSessionPins } from './planContexts';
import type {
  CompactionFailure,
  CompactionOutcome,
  CompactionTriggerSource,
  CompactOptions,
  PipelineDeps,
  PipelineSettings,
  PreparedRequest,
  UndoOutcome,
} from './pipelineTypes';
import { isServerStrategy } from './serverContext';
import type { CompactionRecord, SessionLog } from '../session/session';
import { SlicedWork } from '../base/slicedWork';
import { TurnCounter } from './turnCounter';
import { planWith, planWithSliced } from '../strategies';
import { finalSummaryText } from './summaryDraft';
import { restoreTranscript } from '../transcripts/transcripts';
import type { TriggerState } from './triggers';

export type { LedgerFactInput, LedgerFactsOutcome } from './ledgerFacts';
export type {
  AutoCompactSettings,
  CompactionFailure,
  CompactionOutcome,
  CompactionTriggerSource,
  CompactOptions,
  PipelineDeps,
  PipelineSettings,
  PreparedRequest,
  Summarizer,
  UndoOutcome,
} from './pipelineTypes';

export class CompactionPipeline {
  private readonly micro: IncrementalMicroCompactor;
  private pendingManual: { focus?: string; source: CompactionTriggerSource; strategy?: string; review?: boolean } | null = null;
  private running: Promise<CompactionOutcome> | null = null;
  private pendingEvents: string[] = [];
  /** The cache state the last model call reported, for the history version it was made on. */
  private lastCache: { state: CacheState; version: number } | null = null;

  private readonly willCompact = new Emitter<{ strategy: string; trigger: CompactionTriggerSource; summarizing: boolean }>();
  private readonly didCompact = new Emitter<CompactionRecord>();
  private readonly didFail = new Emitter<CompactionFailure>();
  readonly onWillCompact = this.willCompact.event;
  readonly onDidCompact = this.didCompact.event;
  readonly onDidFail = this.didFail.event;

  constructor(
    private readonly deps: PipelineDeps,
    public settings: PipelineSettings,
  ) {
    this.micro = new IncrementalMicroCompactor(settings.microCompact, deps.ctx.tokens, deps.ctx.copies);
    this.didCompact.event(() => this.decider.stats.noteCompaction());
    this.decider.stats.noteHistory(deps.session.messages); // a resumed session's own calls (none in a new one)
  }

  /** The session's call statistics and the last auto-compaction decision (autoCompactDecision.ts). */
  private readonly decider = new AutoCompactDecider();
  private readonly turns = new TurnCounter();

  /** The last auto-compaction decision with its numbers (null before the first model call). */
  autoCompactDecision = (): AutoCompactDecision | null => this.decider.last;

  /** The TTL of the next call's cache breakpoints ('auto': chosen from the gaps between the calls so far). */
  cacheTtl(setting: PromptCachingSetting = this.settings.promptCaching ?? '5m'): CacheTtl | 'off' {
    return this.decider.ttlFor(setting, this.price());
  }

  private price = () => this.deps.price ?? priceFor(this.deps.ctx.model);

  /** The micro-compacted view while warmView() builds it. */
  private readonly warming = new SlicedWork();

  get session(): SessionLog {
    return this.deps.session;
  }

  updateSettings(settings: PipelineSettings): void {
    this.warming.finish();
    this.settings = settings;
    this.micro.configure(settings.microCompact);
  }

  /**
   * Build the micro-compacted view in slices, the event loop running between them (the first view of a
   * long session is thousands of placeholder copies to make and count). A synchronous read meanwhile
   * (currentTokens, prepareRequest, a settings change) finishes it at once: no one reads a partial view.
   */
  async warmView(): Promise<void> {
    if (this.settings.microCompact.enabled) await this.warming.run(this.micro.syncSteps(...this.microSyncArgs()));
  }

  /** warmView() is building the view: a synchronous read now would finish it at once. */
  get warmingView(): boolean {
    return this.warming.running;
  }

  private microSyncArgs(): Parameters<IncrementalMicroCompactor['sync']> {
    const session = this.deps.session;
    const cache = this.cacheState();
    const overheadTokens = this.deps.overheadTokens?.() ?? this.deps.ctx.overheadTokens ?? 0;
    return [session.messages, session.rewriteVersion, { overheadTokens, model: this.deps.ctx.model, ...(cache ? { cache } : {}) }];
  }

  /**
   * What the last model call left in the prompt cache (its usage: cache read + cache write tokens, as
   * the API counts them). Micro-compaction weighs it (cacheAware) and previews price with it; a
   * rewrite of the history (a compaction, an undo) makes it unknown until the next call reports.
   */
  noteCache(state: CacheState | undefined): void {
    this.lastCache = state ? { state, version: this.deps.session.rewriteVersion } : null;
  }

  /** The cache state in local token counts (the engine's), if it is for the current history. */
  private cacheState(): CacheState | undefined {
    const c = this.lastCache;
    if (!c || c.version !== this.deps.session.rewriteVersion) return undefined;
    const f = this.deps.scale?.() ?? 1;
    return { ...c.state, cachedPrefixTokens: f === 1 ? c.state.cachedPrefixTokens : Math.round(c.state.cachedPrefixTokens / f) };
  }

  /** What plans of the live history know: the last call's cache state, what micro-compaction cleared and its tools filter. */
  liveContext(): Pick<PlanContext, 'cache' | 'microCleared' | 'microPointers' | 'microCompactTools'> {
    const cache = this.cacheState();
    const micro = this.settings.microCompact;
    if (micro.enabled) this.microView();
    return {
      ...(cache ? { cache } : {}),
      ...(micro.enabled ? { microCleared: this.micro.cleared, microPointers: this.micro.clearedPointers } : {}),
      ...(micro.enabled && micro.tools && micro.tools.length > 0 ? { microCompactTools: micro.tools } : {}),
    };
  }

  /** The micro-compactor's last batch decision (cleared or held, with its numbers); null when none was needed. */
  microDecision(): MicroCompactDecision | null {
    this.warming.finish();
    return this.settings.microCompact.enabled ? this.micro.lastDecision : null;
  }

  /** Record a structural event (e.g. 'tool-output', 'message') for the next trigger check. */
  noteEvent(event: string): void {
    this.pendingEvents.push(event);
  }

  /** Layer 1: the request view of the history, micro-compacted. Cost is proportional to what changed. */
  prepareRequest(): PreparedRequest {
    const messages = this.deps.session.messages;
    if (!this.settings.microCompact.enabled) {
      return {
        messages: toApiMessages(messages),
        tokens: this.scaled(this.deps.ctx.tokens.countMessages(messages)) + this.overhead(),
        truncatedResults: 0,
      };
    }
    const view = this.microView();
    return {
      messages: toApiMessages(view.messages),
      tokens: this.scaled(view.tokens) + this.overhead(),
      truncatedResults: view.truncatedResults,
      ...requestFrontiers(view.messages, this.micro.frontiers),
    };
  }

  /** The micro-compacted view with the pinned messages restored verbatim (pins survive layer 1 too). */
  private microView(): { messages: readonly Message[]; tokens: number; truncatedResults: number } {
    const session = this.deps.session;
    this.warming.finish();
    this.micro.sync(...this.microSyncArgs());
    const out = { messages: this.micro.messages, tokens: this.micro.tokenTotal, truncatedResults: this.micro.truncatedResults };
    const pins = session.pinnedIds();
    if (pins.size === 0) return out;
    const view = [...out.messages];
    session.messages.forEach((m, i) => {
      if (!pins.has(m.id) || view[i] === m) return;
      out.tokens += this.deps.ctx.tokens.countMessage(m) - this.deps.ctx.tokens.countMessage(view[i]);
      out.truncatedResults -= (view[i].truncated?.results.length ?? 0) - (m.truncated?.results.length ?? 0);
      view[i] = m;
    });
    return { ...out, messages: view };
  }

  /** Tokens the next request would carry (micro-compacted), without building the request. */
  currentTokens(): number {
    if (!this.settings.microCompact.enabled)
      return this.scaled(this.deps.ctx.tokens.countMessages(this.deps.session.messages)) + this.overhead();
    return this.scaled(this.microView().tokens) + this.overhead();
  }

  /** The micro-compacted view of the history (what the model sees), for the inspector. */
  effectiveMessages(): readonly Message[] {
    if (!this.settings.microCompact.enabled) return this.deps.session.messages;
    return this.microView().messages;
  }

  /** Evaluate the auto-compact trigger against the current state (O(1) after the micro sync). */
  checkTrigger(): { fire: boolean; reason: string; state: TriggerState } {
    const state: TriggerState = {
      tokens: this.currentTokens(),
      contextWindow: this.deps.ctx.contextWindow,
      turnCount: this.turns.count(this.deps.session.messages),
      now: (this.deps.now ?? Date.now)(),
      events: this.pendingEvents,
    };
    this.pendingEvents = [];
    const r = this.settings.autoCompact.trigger.evaluate(state);
    return { ...r, state };
  }

  /** Layers 1 + 2, before each model call: auto-compact if the trigger fires, then build the request. */
  async beforeModelCall(signal?: AbortSignal): Promise<PreparedRequest & { compaction?: CompactionOutcome }> {
    let compaction: CompactionOutcome | undefined;
    if (this.settings.autoCompact.enabled && !isServerStrategy(this.settings.autoCompact.strategy)) {
      const check = this.checkTrigger();
      const decision = this.decider.decide(decisionContext(this.settings, this.deps.ctx, check, this.price(), () => this.paysPlan()));
      if (decision.fire) {
        compaction = await this.compact({
          strategy: this.settings.autoCompact.strategy,
          params: this.settings.autoCompact.params,
          trigger: 'auto',
          signal,
          review: this.settings.autoCompact.review === 'always',
        });
      }
    }
    const prepared = this.prepareRequest();
    this.decider.stats.noteCall((this.deps.now ?? Date.now)(), prepared.tokens);
    return { ...prepared, compaction };
  }

  /** The auto-compact strategy's plan now, in the request's tokens (null: nothing to compact). */
  private paysPlan(): { tokensAfter: number; overheadTokens: number; summaryOutputTokens: number } | null {
    const a = this.settings.autoCompact;
    const plan = this.preview(a.strategy, a.params);
    if (plan.noop) return null;
    const overheadTokens = this.overhead();
    return {
      tokensAfter: this.scaled(plan.tokensAfter) + overheadTokens,
      overheadTokens,
      summaryOutputTokens: this.scaled(plan.summaryTokensEstimate),
    };
  }

  /** Layer 3: ask for a compaction after the current tool batch (the compact tool, or the user's command). */
  requestCompaction(source: CompactionTriggerSource, focus?: string, strategy?: string, review?: boolean): void {
    this.pendingManual = { focus, source, strategy, review };
  }

  get hasPendingCompaction(): boolean {
    return this.pendingManual !== null;
  }

  /** Run a requested manual compaction, if any (call after each tool batch completes). */
  async runPendingCompaction(signal?: AbortSignal): Promise<CompactionOutcome | undefined> {
    const pending = this.pendingManual;
    if (!pending) return undefined;
    this.pendingManual = null;
    return this.compact({
      strategy: pending.strategy ?? this.settings.autoCompact.strategy,
      params: pending.strategy ? undefined : this.settings.autoCompact.params,
      focus: pending.focus,
      trigger: pending.source,
      signal,
      // The model's compact tool is reviewed like auto-compaction; the user's request as it asked.
      review: pending.review ?? (pending.source === 'tool' && this.settings.autoCompact.review === 'always'),
    });
  }

  /** What a strategy would do now (pure; nothing changes). */
  preview(strategy: string, params: Record<string, number | string> = {}): CompactionPlan {
    return planWith(strategy, this.deps.session.messages, params, this.planContext());
  }

  /** The plan context with the request overhead (system prompt, tools) counted against the window, the pins, and liveContext(). */
  planContext(): PlanContext {
    const overheadTokens = this.deps.overheadTokens?.() ?? 0;
    const base = overheadTokens > 0 && this.deps.ctx.overheadTokens === undefined ? { ...this.deps.ctx, overheadTokens } : this.deps.ctx;
    let ctx: PlanContext = { ...base, ...this.liveContext() };
    if (this.settings.autoCompact.serverContext) ctx = { ...ctx, serverContext: this.settings.autoCompact.serverContext };
    return withLedger(withSessionPins(ctx, this.deps.session.pinnedIds()), this.deps.session.meta.compactions);
  }

  /** Compact now with any strategy. One compaction at a time; history is unchanged on any failure. */
  async compact(o: CompactOptions): Promise<CompactionOutcome> {
    if (this.running) return { ok: false, reason: 'busy', message: 'A compaction is already running.' };
    this.running = this.doCompact(o);
    try {
      return await this.running;
    } finally {
      this.running = null;
    }
  }

  private fail(o: CompactOptions, reason: CompactionFailure['reason'], message: string, plan?: CompactionPlan): CompactionOutcome {
    if (reason !== 'noop') this.didFail.fire({ strategy: o.strategy, trigger: o.trigger, reason, message });
    return { ok: false, reason, message, plan };
  }

  private async doCompact(o: CompactOptions): Promise<CompactionOutcome> {
    const session = this.deps.session;
    const snapshot = session.snapshot();
    let plan: CompactionPlan;
    try {
      const base = this.planContext();
      const ctx = o.splitAtId === undefined ? base : { ...base, splitAtId: o.splitAtId };
      plan = await planWithSliced(o.strategy, snapshot.messages, o.params ?? {}, ctx); // in slices: a huge history must not hold the host
      assertPlanValid(snapshot.messages, plan);
    } catch (e) {
      return this.fail(o, 'invalid', errorMessage(e));
    }
    if (plan.noop) return this.fail(o, 'noop', `Nothing to compact: ${plan.notes.join('; ')}`, plan);

    this.willCompact.fire({ strategy: o.strategy, trigger: o.trigger, summarizing: plan.needsSummary });
    let summary: string | undefined;
    if (plan.needsSummary) {
      if (!this.deps.summarizer)
        return this.fail(o, 'no-summarizer', `Strategy ${o.strategy} needs a summarizer and none is configured.`, plan);
      const result = await this.deps.summarizer(plan.summarizerInput!, o.focus, o.signal);
      if (!result.ok) return this.fail(o, result.error.reason === 'aborted' ? 'cancelled' : 'summary-failed', result.error.message, plan);
      summary = result.summary;
    }
    let draft: string | undefined;
    if (summary !== undefined && o.review && this.deps.reviewer) {
      const decided = await this.reviewSummary(o, plan, summary);
      if (!decided.ok) return decided.outcome;
      draft = summary;
      summary = decided.text;
    }

    // No await from here to the commit: the transcript holds exactly the history being replaced
    // (including anything appended while the summary was generated).
    const tokensBefore = this.currentTokens();
    let transcriptPath: string;
    let transcriptSha256: string;
    try {
      ({ path: transcriptPath, sha256: transcriptSha256 } = this.deps.transcripts.saveTranscript(
        session.id,
        session.messages,
        `compaction: ${o.strategy} (${o.trigger})`,
      ));
    } catch (e) {
      return this.fail(o, 'transcript-failed', errorMessage(e), plan);
    }
    const next = applyPlan(plan, { summary, transcriptPath });
    const record: CompactionRecord = {
      id: newMessageId('cmp'),
      at: (this.deps.now ?? Date.now)(),
      strategy: o.strategy,
      params: plan.params,
      trigger: o.trigger,
      tokensBefore,
      tokensAfter: 0,
      archivedCount: plan.archived.length,
      truncatedCount: plan.truncated.length,
      transcriptPath,
      transcriptSha256,
      syntheticId: plan.syntheticIndex === null ? null : next[plan.syntheticIndex].id,
      tailStartId: plan.tailStartId,
      resultLength: next.length,
      ...(o.focus ? { focus: o.focus } : {}),
      ...(plan.ledger ? { ledger: plan.ledger } : {}),
      ...(draft !== undefined ? { draft, finalText: summary } : {}),
    };
    let commit;
    try {
      // The record is committed with the new history (one atomic write): a crash cannot separate them.
      commit = session.commitRewrite(snapshot, next, record);
    } catch (e) {
      return this.fail(o, 'transcript-failed', `Could not write the session: ${errorMessage(e)}`, plan);
    }
    if (!commit.ok) return this.fail(o, 'conflict', `Compaction was not applied: ${commit.reason}. The history is unchanged.`, plan);
    // Both figures are what the next request carries (micro-compacted, calibrated, with overhead).
    record.tokensAfter = this.currentTokens();
    session.saveMeta();
    this.didCompact.fire(record);
    return { ok: true, record, plan, carriedOver: commit.carriedOver };
  }

  /** Phase two of a reviewed compaction: the reviewer's final text, or the failure that ends it. */
  private async reviewSummary(
    o: CompactOptions,
    plan: CompactionPlan,
    text: string,
  ): Promise<{ ok: true; text: string } | { ok: false; outcome: CompactionOutcome }> {
    const at = (this.deps.now ?? Date.now)();
    const draft = { id: newMessageId('draft'), strategy: o.strategy, trigger: o.trigger, focus: o.focus, text, plan, createdAt: at };
    let decision;
    try {
      decision = await this.deps.reviewer!(draft, o.signal);
    } catch (e) {
      return { ok: false, outcome: this.fail(o, 'summary-failed', `The summary review failed: ${errorMessage(e)}`, plan) };
    }
    if (!decision.apply) {
      const message = decision.message ?? 'The summary was discarded; the history is unchanged.';
      return { ok: false, outcome: this.fail(o, o.signal?.aborted ? 'cancelled' : 'discarded', message, plan) };
    }
    const final = finalSummaryText(decision.text);
    if (!final.ok) return { ok: false, outcome: this.fail(o, 'summary-failed', final.message, plan) };
    return { ok: true, text: final.text };
  }

  /**
   * Undo the most recent compaction: the history comes back from its transcript, followed by any
   * messages added since. The current history is saved as a transcript first.
   */
  undo(): UndoOutcome {
    const session = this.deps.session;
    const o: CompactOptions = { strategy: 'undo', trigger: 'undo' };
    const fail = (reason: Exclude<UndoOutcome, { ok: true }>['reason'], message: string): UndoOutcome => {
      this.fail(o, reason, message);
      return { ok: false, reason, message };
    };
    const target = undoTarget(session.meta.compactions);
    if (!target.ok) return fail('noop', target.message);
    const undone = target.compaction;
    let restored: Message[];
    try {
      restored = restoreTranscript(undone.transcriptPath, undone.transcriptSha256);
    } catch (e) {
      return fail('invalid', errorMessage(e));
    }
    const snapshot = session.snapshot();
    const since = snapshot.messages.slice(undone.resultLength);
    const tokensBefore = this.currentTokens();
    let transcriptPath: string;
    let transcriptSha256: string;
    try {
      ({ path: transcriptPath, sha256: transcriptSha256 } = this.deps.transcripts.saveTranscript(
        session.id,
        snapshot.messages,
        `undo of ${undone.id}`,
      ));
    } catch (e) {
      return fail('transcript-failed', errorMessage(e));
    }
    const next = [...restored, ...since];
    const record: CompactionRecord = {
      id: newMessageId('cmp'),
      at: (this.deps.now ?? Date.now)(),
      strategy: 'undo',
      params: {},
      trigger: 'undo',
      tokensBefore,
      tokensAfter: 0,
      archivedCount: 0,
      truncatedCount: 0,
      transcriptPath,
      transcriptSha256,
      syntheticId: null,
      tailStartId: next[0]?.id ?? null,
      resultLength: next.length,
    };
    let commit;
    try {
      commit = session.commitRewrite(snapshot, next, record);
    } catch (e) {
      return fail('transcript-failed', `Could not write the session: ${errorMessage(e)}`);
    }
    if (!commit.ok) return fail('conflict', commit.reason);
    record.tokensAfter = this.currentTokens();
    session.saveMeta();
    this.didCompact.fire(record);
    return { ok: true, record, undone, messages: next, carriedOver: since.length };
  }

  /** Add facts to the ledger of the latest compaction and re-apply it, transcript first (ledgerFacts.ts). */
  addLedgerFacts(facts: readonly LedgerFactInput[]): LedgerFactsOutcome {
    if (this.running) return { ok: false, reason: 'busy', message: 'A compaction is running: add the fact when it is done.' };
    return addLedgerFacts(this.deps.session, this.deps.transcripts, facts);
  }

  private overhead(): number {
    return this.scaled(this.deps.overheadTokens?.() ?? 0);
  }

  private scaled(raw: number): number {
    const f = this.deps.scale?.() ?? 1;
    return f === 1 ? raw : Math.round(raw * f);
  }
}
