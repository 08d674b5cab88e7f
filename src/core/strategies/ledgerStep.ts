// The ledger step every plan goes through (the engine's, the same for every strategy): the artifact
// ledger of what the plan archives, merged with the previous compaction's, rides in the summary turn
// (LLM strategies: after the pending summary, and the summarizer appends it to the summary it writes)
// or in the tail's synthetic opener (the others). Its budget comes out of the same request budget the
// strategy fits: the strategy plans with the ledger's budget reserved, and the loss report says what
// leaves the model's view without surviving in the new context.
import type { Message } from '../conversation/conversation';
import type { ArtifactLedger } from '../ledger/ledger';
import { fittedLedgerSteps, rawLedgerSteps, STEP_ITEMS } from '../ledger/ledgerExtract';
import { isEmptyLedger, ledgerTokens, renderLedger } from '../ledger/ledgerMerge';
import { lossReportSteps } from '../ledger/lossReport';
import { runSteps, type Steps } from '../base/slicedWork';
import {
  placeholderText,
  requestBudget,
  SUMMARY_PENDING_TEXT,
  syntheticMessage,
  type CompactionPlan,
  type PlanContext,
} from '../pipeline/plan';

/** The ledger's budget: a tenth of the request budget, at most 4,000 tokens. */
export const LEDGER_BUDGET_FRACTION = 0.1;
export const LEDGER_MAX_TOKENS = 4_000;
/** Room for the opener's own line beside the ledger. */
const OPENER_MARGIN_TOKENS = 40;

export function ledgerBudget(ctx: PlanContext): number {
  return Math.min(LEDGER_MAX_TOKENS, Math.floor(LEDGER_BUDGET_FRACTION * requestBudget(ctx)));
}

/** The text of a summary-turn or opener carrying `ledger` after `head`. */
export function withLedgerText(head: string, ledger: ArtifactLedger): string {
  return `${head}\n\n${renderLedger(ledger)}`;
}

/**
 * Plan with `plan`, then carry the ledger. A plan that archives no real message is returned as is;
 * otherwise the strategy plans again with the ledger's budget reserved out of the request budget.
 */
export function planWithLedger(input: readonly Message[], ctx: PlanContext, plan: (ctx: PlanContext) => CompactionPlan): CompactionPlan {
  return runSteps(planWithLedgerSteps(input, ctx, plan));
}

/** planWithLedger, the ledger's passes over what the plan archives yielding between slices (the plans themselves run whole). */
export function* planWithLedgerSteps(
  input: readonly Message[],
  ctx: PlanContext,
  plan: (ctx: PlanContext) => CompactionPlan,
): Steps<CompactionPlan> {
  const first = plan(ctx);
  if (!ctx.ledger || first.noop || !archivesReal(first, input)) return first;
  const budget = ledgerBudget(ctx);
  const reserved = { ...ctx, overheadTokens: (ctx.overheadTokens ?? 0) + budget + OPENER_MARGIN_TOKENS };
  yield;
  const second = plan(reserved);
  const base = second.noop || !second.fitsWindow ? first : second;
  yield;
  return yield* attachLedgerSteps(base, input, ctx, budget);
}

function archivesReal(plan: CompactionPlan, input: readonly Message[]): boolean {
  return plan.archived.some((e) => !input[e.index].synthetic);
}

/** The plan with its ledger in the summary turn or opener, `tokensAfter` and `fitsWindow` recounted, and its loss report. */
export function attachLedger(plan: CompactionPlan, input: readonly Message[], ctx: PlanContext, budget: number): CompactionPlan {
  return runSteps(attachLedgerSteps(plan, input, ctx, budget));
}

/** attachLedger, yielding between slices of its passes over the archived messages (one raw ledger of them, not two). */
export function* attachLedgerSteps(
  plan: CompactionPlan,
  input: readonly Message[],
  ctx: PlanContext,
  budget: number,
): Steps<CompactionPlan> {
  const archived: Message[] = [];
  for (let k = 0; k < plan.archived.length; k++) {
    const m = input[plan.archived[k].index];
    if (!m.synthetic) archived.push(m);
    if ((k + 1) % STEP_ITEMS === 0) yield;
  }
  const raw = yield* rawLedgerSteps(archived);
  const ledger = yield* fittedLedgerSteps(raw, { budgetTokens: budget, counter: ctx.tokens, previous: ctx.previousLedger });
  yield;
  const keptIds = new Set(plan.kept.map((e) => e.id));
  const lost = yield* lossReportSteps(archived, ledger, keptIds, raw);
  if (isEmptyLedger(ledger)) return { ...plan, fitsWindow: plan.tokensAfter <= requestBudget(ctx), ledger: null, lost };
  const output = [...plan.output];
  let syntheticIndex = plan.syntheticIndex;
  if (plan.needsSummary && syntheticIndex !== null) {
    output[syntheticIndex] = { ...output[syntheticIndex], content: withLedgerText(SUMMARY_PENDING_TEXT, ledger) };
  } else if (syntheticIndex !== null && output[syntheticIndex].synthetic === 'placeholder') {
    output[syntheticIndex] = { ...output[syntheticIndex], content: withLedgerText(placeholderText(plan.archived.length), ledger) };
  } else {
    // No opener of its own: one goes before the first real message (after any prior summaries).
    syntheticIndex = output.findIndex((m) => !m.synthetic);
    if (syntheticIndex < 0) syntheticIndex = output.length;
    output.splice(syntheticIndex, 0, syntheticMessage('placeholder', withLedgerText(placeholderText(plan.archived.length), ledger)));
  }
  const ledgerCost = ledgerTokens(ledger, ctx.tokens);
  // The summary turn holds the summary and the ledger after it: its estimate counts both.
  const summaryTokensEstimate = plan.needsSummary ? plan.summaryTokensEstimate + ledgerCost : plan.summaryTokensEstimate;
  let tokensAfter = 0;
  output.forEach((m, i) => {
    tokensAfter += plan.needsSummary && i === syntheticIndex ? summaryTokensEstimate : ctx.tokens.countMessage(m);
  });
  const requestTokens = requestBudget(ctx);
  // A compaction never increases the tokens it was asked to reduce, and a plan that fitted still fits:
  // otherwise the plan goes without its ledger, and its loss report says what leaves.
  if (tokensAfter >= plan.tokensBefore || (plan.tokensAfter <= requestTokens && tokensAfter > requestTokens)) {
    const unledgered = yield* lossReportSteps(archived, null, keptIds, raw);
    return { ...plan, fitsWindow: plan.tokensAfter <= requestTokens, ledger: null, lost: unledgered };
  }
  const summarizerInput = plan.summarizerInput ? { ...plan.summarizerInput, ledger } : plan.summarizerInput;
  return {
    ...plan,
    output,
    syntheticIndex,
    tokensAfter,
    summaryTokensEstimate,
    fitsWindow: tokensAfter <= requestTokens,
    ledger,
    lost,
    summarizerInput,
  };
}
