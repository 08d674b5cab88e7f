// Token budget (seed 003): keep the longest contiguous suffix of real messages that fits in
// `maxTokens` after the synthetic summaries' cost is deducted; drop leading non-prompts.
// maxTokens 0 (the default) derives the budget from the window: 40% of the request budget.
import type { Message } from '../conversation/conversation';
import { requestBudget, type CompactionPlan, type PlanContext } from '../pipeline/plan';
import { separateSynthetics } from './common';
import { planContiguousTail } from './tail';

export interface TokenBudgetParams {
  /** Token budget for the kept messages; 0 = AUTO_BUDGET_FRACTION of the request budget. */
  maxTokens: number;
}

/** The share of the request budget (window - answer - overhead) token-budget keeps by default. */
export const AUTO_BUDGET_FRACTION = 0.4;

/** The budget a token-budget plan works with: maxTokens (or its window-derived default), never over the request budget. */
export function effectiveTokenBudget(params: TokenBudgetParams, ctx: PlanContext): { budget: number; note?: string } {
  const request = requestBudget(ctx);
  if (params.maxTokens <= 0) {
    const budget = Math.floor(AUTO_BUDGET_FRACTION * request);
    return { budget, note: `maxTokens derived from the window: ${AUTO_BUDGET_FRACTION * 100}% of the ${request}-token request budget` };
  }
  const pinned = ctx.pinnedTokens ?? 0;
  if (pinned > 0 && params.maxTokens - pinned < request) {
    const budget = Math.max(0, params.maxTokens - pinned);
    return { budget, note: `maxTokens ${params.maxTokens} less ${pinned} pinned tokens: ${budget} for the rest` };
  }
  if (params.maxTokens > request) {
    return { budget: request, note: `maxTokens ${params.maxTokens} is over the ${request}-token request budget: using ${request}` };
  }
  return { budget: params.maxTokens };
}

export function planTokenBudget(input: readonly Message[], params: TokenBudgetParams, ctx: PlanContext): CompactionPlan {
  const { budget: maxTokens, note } = effectiveTokenBudget(params, ctx);
  const p = { maxTokens };
  const sep = separateSynthetics(input);
  const syntheticCost = ctx.tokens.countMessages(sep.synthetics);
  const budget = maxTokens - syntheticCost;
  let used = 0;
  let cut = sep.real.length;
  // Walk newest to oldest; stop at the first message that would exceed the budget (a contiguous suffix).
  while (cut > 0) {
    const cost = ctx.tokens.countMessage(sep.real[cut - 1]);
    if (used + cost > budget) break;
    used += cost;
    cut--;
  }
  const notes: string[] = note ? [note] : [];
  if (cut > 0 && syntheticCost > 0) notes.push(`synthetic summaries cost ${syntheticCost} tokens, deducted from the budget first`);
  if (cut === sep.real.length) notes.push('the newest message alone exceeds the budget: the last tool exchange is kept anyway');
  return planContiguousTail({
    strategy: 'token-budget',
    params: p,
    input,
    ctx,
    sep,
    rawCut: cut,
    summarize: false,
    notes,
    keepAllReason: `${used + syntheticCost} tokens fit in maxTokens ${maxTokens}`,
  });
}
