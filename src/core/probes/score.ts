// The offline score: which probes' expected answers are present in what the model would receive
// (kept messages, summary, ledger, pins), after normalisation (case, whitespace, quotes and
// backticks; a path in full or relative to the session's common folder). The floor that needs no
// model: a fact absent from the request cannot be answered from it.
import type { Message } from '../conversation/conversation';
import { type CompactionPlan } from '../pipeline/plan';
import { requestText } from '../replay/recall';
import { generateProbesSteps } from './generate';
import { runSteps, type Steps } from '../base/slicedWork';
import { IdSet } from '../base/sharded';
import { STEP_ITEMS } from '../ledger/ledgerExtract';
import { commonFolder, holds, normalise } from './normalize';
import { PROBE_KINDS, type Probe, type ProbeKind, type ProbeOptions, type ProbeScore, type ScoredProbe } from './types';

export interface ScoreOptions {
  /** Messages left out of what counts (e.g. a replay's stand-in summaries, which count for nothing). */
  ignore?: (m: Message) => boolean;
}

/** The folder the file paths the probes ask for share (a summary names files relative to it). */
export function probeRoot(probes: readonly Probe[]): string {
  const paths = probes
    .filter((p) => p.kind === 'artifact' || (p.kind === 'continuation' && p.exact))
    .flatMap((p) => p.expected.filter((e) => e.startsWith('/') && !/\s/.test(e)));
  return commonFolder(paths);
}

/** Answerable rate of scored probes, overall and by kind (null where there are none). */
export function summarise(scored: ScoredProbe[]): ProbeScore {
  const rate = (ps: readonly ScoredProbe[]) => (ps.length === 0 ? null : ps.filter((p) => p.answerable).length / ps.length);
  const recallByKind = {} as Record<ProbeKind, number | null>;
  for (const k of PROBE_KINDS) recallByKind[k] = rate(scored.filter((p) => p.kind === k));
  return { probes: scored, recall: rate(scored), recallByKind };
}

/** Score `probes` on normalised request text. */
export function scoreOnText(probes: readonly Probe[], text: string): ProbeScore {
  const haystack = normalise(text);
  const root = probeRoot(probes);
  return summarise(probes.map((p) => ({ ...p, answerable: p.expected.some((e) => holds(haystack, e, root)) })));
}

/** The string values of tool inputs, unescaped (requestText has them as JSON, where quotes and newlines are escaped). */
function toolInputStrings(messages: readonly Message[]): string {
  const out: string[] = [];
  const walk = (v: unknown, depth: number) => {
    if (typeof v === 'string') out.push(v);
    else if (v && typeof v === 'object' && depth < 8) for (const x of Object.values(v)) walk(x, depth + 1);
  };
  for (const m of messages)
    if (typeof m.content !== 'string') for (const b of m.content) if (b.type === 'tool_use') walk((b as { input?: unknown }).input, 0);
  return out.join('\n');
}

/** Which probes the messages the model would receive answer. */
export function scoreProbes(probes: readonly Probe[], received: readonly Message[], options: ScoreOptions = {}): ProbeScore {
  const counted = options.ignore ? received.filter((m) => !options.ignore?.(m)) : received;
  return scoreOnText(probes, `${requestText(counted)}\n${toolInputStrings(counted)}`);
}

export interface PlanProbeOptions extends ProbeOptions {
  /** The summary a summarizing plan's slot will hold, when known (else the slot counts its ledger only). */
  summary?: string;
}

/**
 * The probes of what `plan` archives (from `history`, the messages it was planned on), scored on the
 * request the plan leaves: kept messages, pins, the opener or summary slot with its ledger. A
 * summarizing plan's preview has no summary text: its slot counts the ledger only (`summaryCounted: false`).
 */
export function scorePlan(history: readonly Message[], plan: CompactionPlan, options: PlanProbeOptions = {}): PlanProbes {
  return runSteps(scorePlanSteps(history, plan, options));
}

export interface PlanProbes {
  probes: Probe[];
  score: ProbeScore;
  summaryCounted: boolean;
}

/** scorePlan, yielding between slices of its passes over the history (generateProbesSteps). */
export function* scorePlanSteps(history: readonly Message[], plan: CompactionPlan, options: PlanProbeOptions = {}): Steps<PlanProbes> {
  // Sharded: a plan may archive hundreds of thousands of messages (one Set rehashed them in one step as it grew).
  const archivedIds = new IdSet();
  for (let k = 0; k < plan.archived.length; k++) {
    archivedIds.add(plan.archived[k].id);
    if ((k + 1) % STEP_ITEMS === 0) yield;
  }
  const archived: Message[] = [];
  const later: Message[] = [];
  for (let i = 0; i < history.length; i++) {
    const m = history[i];
    if (archivedIds.has(m.id)) archived.push(m);
    else if (i >= plan.splitIndex && m.synthetic === undefined) later.push(m);
    if ((i + 1) % STEP_ITEMS === 0) yield;
  }
  const probes = yield* generateProbesSteps({ archived, later }, options);
  const summary = options.summary?.trim();
  const received = plan.output.map((m, i) =>
    i === plan.syntheticIndex && plan.needsSummary && summary
      ? { ...m, content: `${summary}\n\n${typeof m.content === 'string' ? m.content : ''}` }
      : m,
  );
  return { probes, score: scoreProbes(probes, received), summaryCounted: !plan.needsSummary || summary !== undefined };
}
