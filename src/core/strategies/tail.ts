// The one output shape of every contiguous-tail strategy, fitted to the window:
// `[synthetics, or a new summary] + [opener if the tail opens with an assistant message] + the tail`.
// A strategy names where it would like to cut; if the result does not fit the request budget, the cut
// moves forward (turn starts first, then tool-exchange boundaries in the last turn) and, as a last
// resort, tool results in the tail are truncated. The plan's notes say what had to be done.
import { toolNamesById, type Message } from '../conversation/conversation';
import {
  finalizePlan,
  noopPlan,
  placeholderText,
  requestBudget,
  SUMMARY_PENDING_TEXT,
  syntheticMessage,
  type CompactionPlan,
  type PlanContext,
} from '../pipeline/plan';
import { safeCut } from '../conversation/snap';
import type { Separated } from './common';
import { fitCandidates, truncateTailToFit } from './fit';

export interface TailPlanArgs {
  strategy: string;
  params: Record<string, number>;
  input: readonly Message[];
  ctx: PlanContext;
  sep: Separated;
  /** Raw cut as an index into `sep.real`: the first real message the strategy wants to keep (<= 0: keep all). */
  rawCut: number;
  /** LLM strategy: the archived part (and prior summaries) collapse into a new summary. */
  summarize: boolean;
  /** LLM strategies: how many kept messages to show the summarizer as context. */
  overlapSize?: number;
  notes?: string[];
  /** Replace kept messages (e.g. truncated copies) by id before the plan is finalized. */
  replace?: (tail: Message[]) => Message[];
  /** Why keeping everything is right when it fits (the no-op note); used when rawCut <= 0. */
  keepAllReason?: string;
}

/**
 * Build a plan that keeps a contiguous tail of real messages starting at a turn-safe cut, within the
 * context's request budget. Non-LLM strategies keep prior synthetics first; LLM strategies fold them
 * into the new summary.
 */
export function planContiguousTail(a: TailPlanArgs): CompactionPlan {
  const notes = [...(a.notes ?? [])];
  if (a.rawCut <= 0) return keepAllOrFit(a, notes, a.keepAllReason ?? 'everything is already inside the window');
  const cut = safeCut(a.sep.real, a.rawCut);
  if (!cut) return noopPlan(a.strategy, a.params, a.input, a.ctx, 'no real message to keep: nothing to compact');
  if (cut.index !== a.rawCut) {
    notes.push(
      cut.snappedTo === 'turn-start'
        ? `cut moved from message ${a.rawCut} to ${cut.index} to start on a user prompt`
        : `no user prompt after the cut: cut at the tool-exchange boundary at message ${cut.index}`,
    );
  }
  if (cut.index === 0) return keepAllOrFit(a, notes, 'everything is already inside the window');
  const plan = buildTail(a, cut.index, notes);
  return plan.fitsWindow ? plan : fitTail(a, cut.index, notes);
}

/** Keeping everything: a no-op when it fits, else the tail is shrunk like any other plan. */
function keepAllOrFit(a: TailPlanArgs, notes: string[], reason: string): CompactionPlan {
  const all = noopPlan(a.strategy, a.params, a.input, a.ctx, reason);
  if (all.fitsWindow || a.sep.real.length === 0) return all;
  return fitTail(a, 0, [...notes, `keeping everything (${all.tokensBefore} tokens) would not fit ${budgetText(a.ctx)}`]);
}

export function budgetText(ctx: PlanContext): string {
  const overhead = ctx.overheadTokens ? ` - overhead ${ctx.overheadTokens}` : '';
  return `the ${requestBudget(ctx)}-token request budget (window ${ctx.contextWindow} - answer ${ctx.maxOutputTokens}${overhead})`;
}

/**
 * The first cut after `from` whose plan fits: the earliest turn start, else the earliest tool-exchange
 * boundary after the last turn start; failing both, the smallest tail with tool results truncated.
 */
function fitTail(a: TailPlanArgs, from: number, notes: string[]): CompactionPlan {
  const { sep, ctx } = a;
  const budget = requestBudget(ctx);
  const candidates = fitCandidates(sep.real, from);
  const suffix = suffixTokens(sep.real, ctx);
  const fixed = a.summarize ? ctx.summaryMaxTokens : ctx.tokens.countMessages(sep.synthetics);
  for (const j of candidates) {
    // Without a replace step the kept messages are counted as they are: skip cuts that cannot fit.
    if (!a.replace && fixed + suffix[j] > budget) continue;
    const plan = buildTail(a, j, notes);
    if (plan.fitsWindow) {
      plan.notes.push(`shrunk to fit ${budgetText(ctx)}: the tail starts at message ${sep.realIndex[j]} (${plan.tokensAfter} tokens)`);
      return plan;
    }
  }
  const last = candidates.length > 0 ? candidates[candidates.length - 1] : from;
  const names = toolNamesById(sep.real);
  let truncatedResults = 0;
  const plan = buildTail(a, last, notes, (tail) => {
    const opener = !a.summarize && sep.synthetics.length === 0 && tail[0].role !== 'user' ? openerTokens(last, ctx) : 0;
    const excess = fixed + opener + ctx.tokens.countMessages(tail) - budget;
    const r = truncateTailToFit(tail, excess, names, ctx);
    truncatedResults = r.truncated;
    return r.tail;
  });
  const start = `the tail starts at message ${sep.realIndex[last]}`;
  if (plan.fitsWindow) {
    const truncated = `${truncatedResults} tool result${truncatedResults === 1 ? '' : 's'} in it truncated`;
    plan.notes.push(`shrunk to fit ${budgetText(ctx)}: ${start}, ${truncated} (${plan.tokensAfter} tokens)`);
  } else {
    plan.notes.push(
      `does not fit ${budgetText(ctx)}: ${plan.tokensAfter} tokens even with the smallest tail (${start}) and every tool result in it truncated`,
    );
  }
  return plan;
}

function openerTokens(archivedCount: number, ctx: PlanContext): number {
  return ctx.tokens.countMessage(syntheticMessage('placeholder', placeholderText(archivedCount)));
}

/** suffix[j] = tokens of real[j..]; suffix[real.length] = 0. */
function suffixTokens(real: readonly Message[], ctx: PlanContext): number[] {
  const suffix = new Array<number>(real.length + 1).fill(0);
  for (let j = real.length - 1; j >= 0; j--) suffix[j] = suffix[j + 1] + ctx.tokens.countMessage(real[j]);
  return suffix;
}

/** The plan that keeps `sep.real[index..]` (after the strategy's replace step and an optional shrink). */
function buildTail(a: TailPlanArgs, index: number, notes: string[], shrink?: (tail: Message[]) => Message[]): CompactionPlan {
  const { sep, input, ctx } = a;
  let tail = sep.real.slice(index);
  if (a.replace) tail = a.replace(tail);
  if (shrink) tail = shrink(tail);
  const archivedReal = sep.real.slice(0, index);
  const splitIndex = sep.realIndex[index];
  const tailStartId = tail[0].id;
  const priorSummaries = sep.synthetics.filter((m) => m.synthetic === 'summary');

  if (a.summarize && (index > 0 || priorSummaries.length > 0)) {
    const summary = syntheticMessage('summary', SUMMARY_PENDING_TEXT);
    return finalizePlan({
      strategy: a.strategy,
      params: a.params,
      input,
      output: [summary, ...tail],
      ctx,
      splitIndex,
      tailStartId,
      needsSummary: true,
      summarizerInput: { priorSummaries, toSummarize: archivedReal, overlap: tail.slice(0, a.overlapSize ?? 0) },
      syntheticIndex: 0,
      notes: [...notes],
    });
  }

  const output: Message[] = [...sep.synthetics];
  let syntheticIndex: number | null = null;
  if (tail[0].role !== 'user' && output.length === 0) {
    syntheticIndex = output.length;
    output.push(syntheticMessage('placeholder', placeholderText(archivedReal.length)));
  }
  for (const m of tail) output.push(m);
  return finalizePlan({
    strategy: a.strategy,
    params: a.params,
    input,
    output,
    ctx,
    splitIndex,
    tailStartId,
    needsSummary: false,
    syntheticIndex,
    notes: [...notes],
  });
}
