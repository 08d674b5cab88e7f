// The request view: what the model sees of a history (micro-compacted). Strategies plan on the full
// history; hosts show the view (timeline, usage bar), so a preview's before/after figures are measured
// on the view too, or they would not agree with the rows they are shown next to.
import type { Message } from '../conversation/conversation';
import type { MicroCompactSettings } from './microCompactor';
import type { CompactionPlan, PlanContext } from './plan';
import { planMicroCompact } from '../strategies/microCompact';

/**
 * What the model would see of `messages` under these micro-compaction settings, decided afresh (no
 * earlier batch, no cache state: a history that was just rewritten has neither).
 */
export function microCompactedView(messages: readonly Message[], micro: MicroCompactSettings, ctx: PlanContext): Message[] {
  return planMicroCompact(messages, micro, { ...ctx, cache: undefined, microCleared: undefined }).output;
}

/**
 * A plan's tokens before and after, counted on the request view: `viewBefore` is the view of the
 * history the plan was made from; the result is micro-compacted the same way, and a summary slot
 * counts as the plan's summary estimate.
 */
export function planTokensOnView(
  plan: CompactionPlan,
  viewBefore: readonly Message[],
  micro: MicroCompactSettings,
  ctx: PlanContext,
): { tokensBefore: number; tokensAfter: number } {
  const tokensBefore = ctx.tokens.countMessages(viewBefore);
  if (plan.noop) return { tokensBefore, tokensAfter: tokensBefore };
  const viewAfter = microCompactedView(plan.output, micro, ctx);
  let tokensAfter = ctx.tokens.countMessages(viewAfter);
  if (plan.needsSummary && plan.syntheticIndex !== null) {
    tokensAfter += plan.summaryTokensEstimate - ctx.tokens.countMessage(viewAfter[plan.syntheticIndex]);
  }
  return { tokensBefore, tokensAfter };
}
