// The request a plan sends: exactly the messages the agent would put on the wire after applying it
// (adjacent same-role messages merged, tool results first, as the pipeline's prepareRequest does).
import { toApiMessages, type ApiMessage } from '../conversation/conversation';
import { applyPlan, type ApplyOptions, type CompactionPlan } from './plan';

/**
 * The Messages API request a plan leaves. An LLM strategy's summary slot holds `options.summary`
 * when given, else the plan's pending-summary text (what a preview shows before the summary call).
 */
export function planRequest(plan: CompactionPlan, options: ApplyOptions = {}): ApiMessage[] {
  if (plan.needsSummary && !options.summary?.trim()) return toApiMessages(plan.output);
  return toApiMessages(applyPlan(plan, options));
}
