// What the inspector panel asks of the host, computed on the engine's public calls: the session
// view (messages, what the model sees, compactions, overhead, per-strategy defaults), strategy
// previews on the current session or on an inspected recording, message details, and the
// transcripts a webview may open. Read-only: applying and undoing go through the pipeline.
//
// A target is what the panel shows: the current session or an inspected recording, either at its
// current context or just before one of its past compactions (time travel). An inspected recording
// is shown as recorded: no micro-compaction of the view, the window the recording names, and the
// overhead fitted from its recorded usage (or unknown), never this extension's own agent's.
import {
  autoCompactThreshold,
  calibratedPlanCost,
  canUndo,
  compactionInEffect,
  contextWindowFor,
  costNote,
  errorMessage,
  fittedOverhead,
  microCompactedView,
  planCostOnView,
  planTokensOnView,
  planWith,
  preparePlanInput,
  recordedCacheState,
  recordingCalibration,
  resolveStrategy,
  restoreTranscript,
  runSteps,
  runStepsSliced,
  sessionWindow,
  STRATEGIES,
  withPlanPrepSteps,
  type CompactionPipeline,
  type CompactionPlan,
  type CompactionRecord,
  type ImportResult,
  type Message,
  type MessageTokenCounter,
  type PlanContext,
  type PlanCost,
  type RecordedCompaction,
  type RecordingCalibration,
  type SessionLog,
  type Steps,
  type SessionMeta,
  type StandingContext,
  type TextTokenizer,
} from '../../core';
import { buildInspectorSession, type InspectorSessionInput } from '../../inspector/inspectorModel';
import { messageDetail } from '../../inspector/messageText';
import { planToView } from '../../inspector/planViews';
import { planProbeViewSteps, recordedProbeViews, recordedProbeViewsSteps } from '../../inspector/probeViews';
import { markOutside, outsideCompaction, standingView } from '../../inspector/standingView';
import { agentOf, timeTravelLabel } from '../../inspector/recordedViews';
import type {
  InspectorSession,
  MessageDetail,
  PlanView,
  ProbeScoreView,
  StandingView,
  TimeTravelPoint,
  UsageBreakdown,
} from '../../protocol';
import type { HostSettings } from '../../settings/hostSettings';

/** The parts of the current session the inspector reads. */
export interface InspectedSession {
  readonly session: SessionLog;
  readonly pipeline: CompactionPipeline;
  readonly ctx: PlanContext;
}

/** A session file opened in the inspector (read-only), as imported. */
export interface InspectedRecording {
  source: string;
  result: ImportResult;
  /**
   * The counter its figures use while the host's worker has not counted it yet (a quick estimate, for a
   * first paint); absent: the host's counter. With one, the overhead is not fitted (shown as unknown).
   */
  counter?: MessageTokenCounter;
}

/** What the panel shows: a recording (absent: the current session), at a past compaction (1-based) or now (null). */
export interface InspectorTarget {
  file?: InspectedRecording;
  at: number | null;
}

export interface InspectorServiceDeps {
  /** The current session (it changes on a new chat or a resume). */
  current: () => InspectedSession;
  settings: () => HostSettings;
  counter: MessageTokenCounter;
  strategyParams: (name: string) => Record<string, number>;
  /** System prompt and tool definitions, in tokens. */
  overheadParts: () => { system: number; tools: number };
  /** What the live session's requests carry outside the history (instructions, task list), and how to count it. */
  standing?: () => { context: StandingContext; tokenizer: TextTokenizer };
  /** Reads a transcript (time travel on the current session); tests may inject one. */
  readTranscript?: (path: string) => Message[];
}

/** The context a target resolves to: the messages strategies plan on, and how to show them. */
/** The context a preview plans with (split-at's chosen message, when given). */
function planCtx(c: ResolvedContext, splitAtId: string | undefined): PlanContext {
  return splitAtId === undefined ? c.ctx : { ...c.ctx, splitAtId };
}

interface ResolvedContext {
  messages: readonly Message[];
  /** What the model sees of `messages` (the live session's micro-compacted view; else `messages`). */
  effective: readonly Message[];
  /** Messages shown but not planned on (archived by recorded compactions), for details. */
  archived: readonly RecordedCompaction[];
  ctx: PlanContext;
  /** Whether previews count before/after on the micro-compacted view (the live current session only). */
  microView: boolean;
}

const CURRENT: InspectorTarget = { at: null };

export class InspectorService {
  private readonly transcripts = new Map<string, Message[]>();
  private readonly fits = new WeakMap<ImportResult, number | null>();
  private readonly calibrations = new WeakMap<ImportResult, RecordingCalibration | null>();
  private readonly recordedProbes = new WeakMap<ImportResult, ProbeScoreView[]>();

  constructor(private readonly deps: InspectorServiceDeps) {}

  /** The current session, editable (apply, undo) at its current context; read-only before a past compaction. */
  currentSession(at: number | null = null): InspectorSession {
    const { session, pipeline } = this.deps.current();
    const meta = session.meta;
    const points = meta.compactions.map((c, k) => ownPoint(c, k + 1));
    const chosen = validAt(at, points);
    const base = this.baseInput(meta);
    if (chosen === null) {
      const standing = this.standingNow();
      return buildInspectorSession({
        ...base,
        ...(standing ? { standing } : {}),
        autoCompactDecision: pipeline.autoCompactDecision(),
        source: 'Current session',
        readOnly: false,
        messages: session.messages,
        effective: pipeline.effectiveMessages(),
        canUndo: canUndo(meta.compactions),
        tailStartId: compactionInEffect(meta.compactions)?.tailStartId ?? null,
        ...(points.length > 0 ? { timeTravel: { at: null, points } } : {}),
      });
    }
    const messages = this.transcript(meta.compactions[chosen - 1].transcriptPath);
    return buildInspectorSession({
      ...base,
      source: 'Current session',
      readOnly: true,
      messages,
      effective: messages,
      canUndo: false,
      tailStartId: null,
      timeTravel: { at: chosen, points },
    });
  }

  /** A recording (a transcript, or another agent's session) as recorded, read-only; `at` as in InspectorTarget. */
  sessionFor(file: InspectedRecording, at: number | null = null): InspectorSession {
    const { result } = file;
    // The first paint (estimated counts) goes without probes: they come with the exactly counted view.
    const probes = file.counter ? [] : this.probesOf(result);
    const points = recordedPoints(result, probes);
    const chosen = validAt(at, points);
    const fit = file.counter ? null : this.fitted(result);
    const ctx = this.recordingCtx(file, fit);
    const messages = chosen === null ? result.messages : result.compactions[chosen - 1].before;
    const input: InspectorSessionInput = {
      ...this.baseInput({ id: file.source, title: file.source, createdAt: 0, updatedAt: 0, compactions: [] }),
      source: file.source,
      readOnly: true,
      messages,
      effective: messages,
      ctx,
      overhead: { system: fit ?? 0, tools: 0 },
      overheadSource: fit === null ? 'unknown' : 'fitted',
      ...windowFields(windowOf(result, this.deps.settings().contextWindow)),
      // The auto-compact threshold is this extension's agent's; the recording's agent had its own.
      autoCompactThreshold: null,
      canUndo: false,
      tailStartId: null,
      archived: result.compactions.slice(0, chosen === null ? undefined : chosen - 1),
      archivedProbes: probes,
    };
    if (points.length > 0) input.timeTravel = { at: chosen, points };
    return buildInspectorSession(input);
  }

  /** Plan a strategy on what a target shows (the current session's current context by default). Pure. */
  preview(
    strategy: string,
    params: Record<string, number>,
    requestId: number,
    target: InspectorTarget = CURRENT,
    splitAtId?: string,
  ): PlanView {
    const started = performance.now();
    const c = this.resolve(target);
    const plan = planWith(strategy, c.messages, params, planCtx(c, splitAtId));
    return runSteps(this.planView(plan, c, target, requestId, started));
  }

  /**
   * preview on a host that must not wait (the inspector's): the same view, with the plan's per-message
   * passes done ahead in slices (preparePlanInput), then the one synchronous planner and view over the
   * prepared messages, then the view's passes (the probes) in slices. Plans what the target shows when
   * called; the webview drops a superseded reply.
   */
  async previewSliced(
    strategy: string,
    params: Record<string, number>,
    requestId: number,
    target: InspectorTarget = CURRENT,
    splitAtId?: string,
  ): Promise<PlanView> {
    const started = performance.now();
    const resolved = this.resolve(target);
    // A copy: what is appended to the live session while the slices run is not planned (as planWithSliced).
    const c: ResolvedContext = { ...resolved, messages: resolved.messages.slice() };
    const ctx = planCtx(c, splitAtId);
    const strategyPlan = resolveStrategy(strategy, params);
    const prep = await preparePlanInput(c.messages, ctx.tokens);
    const plan = await runStepsSliced(withPlanPrepSteps(prep, strategyPlan.planSteps(c.messages, ctx)));
    return runStepsSliced(withPlanPrepSteps(prep, this.planView(plan, c, target, requestId, started)));
  }

  /** The view of a plan made on what `c` resolved: priced, counted on the request view, probed, marked. */
  private *planView(
    plan: CompactionPlan,
    c: ResolvedContext,
    target: InspectorTarget,
    requestId: number,
    started: number,
  ): Steps<PlanView> {
    const view = planToView(plan, requestId, performance.now() - started);
    // The view's copies of a huge plan's ids and the recording's calls (for its calibration) in turns of their own.
    yield;
    // A recording's preview is priced in its own model's tokens (its calibration) when it recorded enough calls.
    const calibration = target.file && !target.file.counter ? this.calibration(target.file.result) : null;
    if (calibration && plan.cost && !plan.noop) viewCost(view, calibratedPlanCost(plan, c.messages, c.ctx, calibration));
    // Before/after on what the model sees (micro-compacted), so the figures agree with the rows; the cost too.
    if (c.microView) {
      const totals = planTokensOnView(plan, c.effective, this.deps.settings().microCompact, c.ctx);
      Object.assign(view, totals);
      if (plan.strategy !== 'micro-compact' && !plan.noop)
        viewCost(view, planCostOnView(plan.output, c.messages, c.effective, totals, c.ctx));
    }
    // Tokens, cost and what the request still answers, side by side (issue 22).
    const micro = this.deps.settings().microCompact;
    yield;
    const probes = yield* planProbeViewSteps(
      c.messages,
      plan,
      c.microView ? (output) => microCompactedView(output, micro, c.ctx) : undefined,
    );
    if (probes) view.probes = probes;
    const standing = target.file || target.at !== null ? undefined : this.standingNow();
    if (standing) this.markOutside(view, c.messages, standing, c.ctx);
    view.computeMs = performance.now() - started;
    return view;
  }

  /** The live session's standing context with its tokens (absent: the host gives none). */
  private standingNow() {
    const s = this.deps.standing?.();
    return s ? standingView(s.context, s.tokenizer) : undefined;
  }

  /** What the plan's request still carries outside compaction, and whether a plan over the limit is so because of it. */
  private markOutside(view: PlanView, messages: readonly Message[], standing: StandingView, ctx: PlanContext): void {
    const pinnedIds = new Set(view.pinned ?? []);
    const pinned = view.pinnedTokens ?? this.deps.counter.countMessages(messages.filter((m) => pinnedIds.has(m.id)));
    // The request must fit the window with room for the answer (the engine's requestBudget with nothing outside).
    const limit = Math.max(0, ctx.contextWindow - ctx.maxOutputTokens);
    markOutside(view, outsideCompaction(this.deps.overheadParts(), standing, pinned), limit);
  }

  /** The detail of a message the target shows: in the context planned on, or archived by a recorded compaction. */
  detail(id: string, target: InspectorTarget = CURRENT): MessageDetail | undefined {
    const c = this.resolve(target);
    const counter = target.file?.counter ?? this.deps.counter;
    const i = c.messages.findIndex((m) => m.id === id);
    if (i !== -1) {
      const eff = c.effective[i] ?? c.messages[i];
      return messageDetail(c.messages[i], eff, counter.countMessage(eff));
    }
    for (const compaction of c.archived) {
      const m = compaction.before.find((x) => x.id === id);
      if (m) return messageDetail(m, m, counter.countMessage(m));
    }
    return undefined;
  }

  /** Transcript paths the current session knows (the only ones a webview may ask to open). */
  knownTranscripts(): Set<string> {
    return new Set(this.deps.current().session.meta.compactions.map((c) => c.transcriptPath));
  }

  private resolve(target: InspectorTarget): ResolvedContext {
    if (target.file) {
      const { result } = target.file;
      const chosen = validAt(target.at, recordedPoints(result));
      const messages = chosen === null ? result.messages : result.compactions[chosen - 1].before;
      const archived = result.compactions.slice(0, chosen === null ? undefined : chosen - 1);
      const ctx = this.recordingCtx(target.file, target.file.counter ? null : this.fitted(result));
      // What the recording's last call there left in the cache: previews are not priced on an assumed cache.
      const cache = recordedCacheState(messages);
      return { messages, effective: messages, archived, ctx: cache ? { ...ctx, cache } : ctx, microView: false };
    }
    const { session, pipeline } = this.deps.current();
    const ctx = this.currentCtx();
    const records = session.meta.compactions;
    const chosen = validAt(
      target.at,
      records.map((c, k) => ownPoint(c, k + 1)),
    );
    if (chosen === null) {
      // The live history: the last call's cache state and what micro-compaction cleared (its batches).
      return {
        messages: session.messages,
        effective: pipeline.effectiveMessages(),
        archived: [],
        ctx: { ...ctx, ...pipeline.liveContext() },
        microView: true,
      };
    }
    const messages = this.transcript(records[chosen - 1].transcriptPath);
    return { messages, effective: messages, archived: [], ctx, microView: false };
  }

  /** The current session's plan context with its pins (persisted with the session; every plan respects them). */
  private currentCtx(): PlanContext {
    const { session, ctx } = this.deps.current();
    const pinnedIds = session.pinnedIds();
    return pinnedIds.size > 0 ? { ...ctx, pinnedIds } : ctx;
  }

  /** The plan context for a recording: its own window and counter, and its fitted overhead inside the request budget. */
  private recordingCtx(file: InspectedRecording, fit: number | null): PlanContext {
    const ctx = this.deps.current().ctx;
    const window = windowOf(file.result, this.deps.settings().contextWindow).window;
    return { ...ctx, ...(file.counter ? { tokens: file.counter } : {}), contextWindow: window, overheadTokens: fit ?? 0 };
  }

  private calibration(result: ImportResult): RecordingCalibration | null {
    let calibration = this.calibrations.get(result);
    if (calibration === undefined) {
      calibration = recordingCalibration(result, this.deps.counter);
      this.calibrations.set(result, calibration);
    }
    return calibration;
  }

  /**
   * What the counted view of a recording computes on the host, done ahead in slices: its recorded
   * compactions' probes (generating them took 150 ms in one piece on a 2.9 MB Codex session, and a
   * followed session is shown counted again after each burst of appends). sessionFor then finds them.
   */
  async prepareRecording(result: ImportResult): Promise<void> {
    if (this.recordedProbes.has(result)) return;
    const probes = await runStepsSliced(recordedProbeViewsSteps(result));
    this.recordedProbes.set(result, probes);
  }

  /** Each recorded compaction's probes, scored on what the recording kept (computed once per import). */
  private probesOf(result: ImportResult): ProbeScoreView[] {
    let probes = this.recordedProbes.get(result);
    if (!probes) {
      probes = recordedProbeViews(result);
      this.recordedProbes.set(result, probes);
    }
    return probes;
  }

  private fitted(result: ImportResult): number | null {
    let fit = this.fits.get(result);
    if (fit === undefined) {
      fit = fittedOverhead(result, this.deps.counter);
      this.fits.set(result, fit);
    }
    return fit;
  }

  private transcript(path: string): Message[] {
    let messages = this.transcripts.get(path);
    if (!messages) {
      messages = this.deps.readTranscript ? this.deps.readTranscript(path) : readTranscriptFile(path);
      this.transcripts.set(path, messages);
    }
    return messages;
  }

  private baseInput(
    meta: SessionMeta,
  ): Omit<InspectorSessionInput, 'source' | 'readOnly' | 'messages' | 'effective' | 'canUndo' | 'tailStartId'> {
    const strategyParams: Record<string, Record<string, number>> = {};
    for (const s of STRATEGIES) strategyParams[s.name] = this.deps.strategyParams(s.name);
    const settings = this.deps.settings();
    return {
      sessionId: meta.id,
      title: meta.title,
      compactions: meta.compactions,
      ctx: this.currentCtx(),
      overhead: this.deps.overheadParts(),
      autoCompactThreshold: autoCompactThreshold(settings.autoCompact, settings.contextWindow),
      strategyParams,
    };
  }
}

/** The view's cost (and its cost note) replaced by `cost`. */
function viewCost(view: PlanView, cost: PlanCost): void {
  view.cost = { ...cost, nextRequestUSD: { ...cost.nextRequestUSD } };
  view.notes = view.notes.map((n) => (n.startsWith('cache: ') ? costNote(cost) : n));
}

/** `at` if it names one of the points, else null (the current context). */
function validAt(at: number | null, points: readonly TimeTravelPoint[]): number | null {
  return at !== null && Number.isInteger(at) && at >= 1 && at <= points.length ? at : null;
}

function ownPoint(c: CompactionRecord, at: number): TimeTravelPoint {
  return { at, label: timeTravelLabel(at, `Splitpoint ${c.strategy}`, c.trigger, c.tokensBefore), messages: c.archivedCount };
}

function recordedPoints(result: ImportResult, probes: readonly ProbeScoreView[] = []): TimeTravelPoint[] {
  return result.compactions.map((c, k) => ({
    at: k + 1,
    label: timeTravelLabel(k + 1, agentOf(c.source), c.trigger, c.preTokens),
    messages: c.before.length,
    ...(probes[k] ? { probes: probes[k] } : {}),
  }));
}

type InspectorWindow = { window: number; source: NonNullable<UsageBreakdown['windowSource']>; note?: string };

/**
 * The window to show a recording against: the recording's, else the 1M tier its recorded usage proves
 * (Claude Code records no window), else its model's, else the settings' (a model the table does not know).
 */
export function windowOf(result: ImportResult, settingsWindow: number): InspectorWindow {
  const w = sessionWindow(result);
  if (w.source === 'recorded') return { window: w.window, source: 'recording' };
  if (w.source === 'inferred-from-usage') return { window: w.window, source: 'inferred-from-usage', ...(w.note ? { note: w.note } : {}) };
  return contextWindowFor(w.model) !== undefined ? { window: w.window, source: 'model' } : { window: settingsWindow, source: 'settings' };
}

function windowFields(w: InspectorWindow): Pick<InspectorSessionInput, 'windowSource' | 'windowNote'> {
  return { windowSource: w.source, ...(w.note ? { windowNote: w.note } : {}) };
}

function readTranscriptFile(path: string): Message[] {
  try {
    return restoreTranscript(path);
  } catch (e) {
    throw new Error(`Could not read the transcript ${path}: ${errorMessage(e)}`, { cause: e });
  }
}
