// Token budget (seed 003): keep the longest contiguous suffix of real messages that fits in
// `maxTokens` after the synthetic summaries' cost is deducted; drop leading non-prompts.
import type { Message } from '../conversation';
import { noopPlan, type CompactionPlan, type PlanContext } from '../plan';
import { planContiguousTail, separateSynthetics } from './common';

export interface TokenBudgetParams {
  maxTokens: number;
}

export function planTokenBudget(input: readonly Message[], params: TokenBudgetParams, ctx: PlanContext): CompactionPlan {
  const p = { maxTokens: params.maxTokens };
  const sep = separateSynthetics(input);
  const syntheticCost = ctx.tokens.countMessages(sep.synthetics);
  const budget = params.maxTokens - syntheticCost;
  let used = 0;
  let cut = sep.real.length;
  // Walk newest to oldest; stop at the first message that would exceed the budget (a contiguous suffix).
  while (cut > 0) {
    const cost = ctx.tokens.countMessage(sep.real[cut - 1]);
    if (used + cost > budget) break;
    used += cost;
    cut--;
  }
  if (cut === 0) return noopPlan('token-budget', p, input, ctx, `${used + syntheticCost} tokens fit in maxTokens ${params.maxTokens}`);
  const notes: string[] = [];
  if (syntheticCost > 0) notes.push(`synthetic summaries cost ${syntheticCost} tokens, deducted from the budget first`);
  if (cut === sep.real.length) notes.push('the newest message alone exceeds the budget: the last tool exchange is kept anyway');
  return planContiguousTail({ strategy: 'token-budget', params: p, input, ctx, sep, rawCut: cut, summarize: false, notes });
}
