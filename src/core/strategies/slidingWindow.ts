// Sliding window (seed 003): keep the last `maxEvents` real messages. Synthetic summaries are kept
// first and do not count against the budget; the cut snaps forward to the next user prompt.
import type { Message } from '../conversation/conversation';
import type { CompactionPlan, PlanContext } from '../pipeline/plan';
import { separateSynthetics } from './common';
import { planContiguousTail } from './tail';

export interface SlidingWindowParams {
  maxEvents: number;
}

export function planSlidingWindow(input: readonly Message[], params: SlidingWindowParams, ctx: PlanContext): CompactionPlan {
  const p = { maxEvents: params.maxEvents };
  const sep = separateSynthetics(input);
  return planContiguousTail({
    strategy: 'sliding-window',
    params: p,
    input,
    ctx,
    sep,
    rawCut: sep.real.length - params.maxEvents,
    summarize: false,
    keepAllReason: `${sep.real.length} real messages <= maxEvents ${params.maxEvents}`,
  });
}
