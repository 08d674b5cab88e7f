// Preserve a recent token fraction (seed 004): walk back from the present until p x total tokens
// are collected, snap forward to the next user prompt, collapse everything earlier into a summary.
import type { Message } from '../conversation/conversation';
import type { CompactionPlan, PlanContext } from '../pipeline/plan';
import { separateSynthetics } from './common';
import { StrategyParamError } from './params';
import { planContiguousTail } from './tail';

export interface RecentTokenFractionParams {
  fraction: number;
}

export function planRecentTokenFraction(input: readonly Message[], params: RecentTokenFractionParams, ctx: PlanContext): CompactionPlan {
  if (!(params.fraction > 0 && params.fraction < 1)) {
    throw new StrategyParamError('recent-token-fraction', 'fraction', `must be > 0 and < 1, got ${params.fraction}`);
  }
  const p = { fraction: params.fraction };
  const sep = separateSynthetics(input);
  const total = ctx.tokens.countMessages(sep.real);
  const target = params.fraction * total;
  let collected = 0;
  let cut = sep.real.length;
  while (cut > 0 && collected < target) {
    cut--;
    collected += ctx.tokens.countMessage(sep.real[cut]);
  }
  return planContiguousTail({
    strategy: 'recent-token-fraction',
    params: p,
    input,
    ctx,
    sep,
    rawCut: cut,
    summarize: true,
    notes: cut === 0 ? [] : [`recent fraction: ${collected} of ${total} tokens (target ${Math.round(target)})`],
    keepAllReason: 'the recent fraction already spans the whole conversation',
  });
}
