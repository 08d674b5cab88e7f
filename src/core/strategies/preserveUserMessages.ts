// Preserve user messages (seed 004): walking newest-first, keep every genuine user prompt until
// `maxUserTokens` is reached; drop every agent-generated item. Kept prompts stay in chronological
// order and the new summary sits at the split point, just after the latest preserved prompt.
// The cap never exceeds what the window leaves beside the summary.
import { isTurnStart, type Message } from '../conversation/conversation';
import {
  finalizePlan,
  noopPlan,
  requestBudget,
  SUMMARY_PENDING_TEXT,
  syntheticMessage,
  type CompactionPlan,
  type PlanContext,
} from '../pipeline/plan';
import { separateSynthetics, type Separated } from './common';
import { budgetText, planContiguousTail } from './tail';

export interface PreserveUserMessagesParams {
  maxUserTokens: number;
}

export function planPreserveUserMessages(input: readonly Message[], params: PreserveUserMessagesParams, ctx: PlanContext): CompactionPlan {
  const p = { maxUserTokens: params.maxUserTokens };
  const sep = separateSynthetics(input);
  const prompts = sep.real.filter(isTurnStart);
  const nothingToCollapse = prompts.length === sep.real.length;
  if (nothingToCollapse) {
    const plan = noopPlan('preserve-user-messages', p, input, ctx, 'no agent-generated messages to collapse');
    if (plan.fitsWindow) return plan;
  }
  const notes: string[] = [];
  const room = requestBudget(ctx) - ctx.summaryMaxTokens;
  const cap = Math.min(params.maxUserTokens, room);
  if (cap < params.maxUserTokens)
    notes.push(`prompts capped at ${Math.max(0, room)} tokens: what ${budgetText(ctx)} leaves beside the summary`);
  const capName = cap === params.maxUserTokens ? `maxUserTokens ${cap}` : `the ${cap}-token cap`;
  const kept: Message[] = [];
  let used = 0;
  for (let i = prompts.length - 1; i >= 0; i--) {
    const cost = ctx.tokens.countMessage(prompts[i]);
    if (used + cost > cap) {
      if (kept.length === 0) {
        // A tail is never empty: the latest prompt is kept even when it alone exceeds the cap.
        kept.push(prompts[i]);
        notes.push(`the latest user prompt alone (${cost} tokens) exceeds ${capName}; kept anyway`);
      } else {
        notes.push(`${i + 1} older user prompt${i === 0 ? '' : 's'} over the ${cap}-token cap go into the summary`);
      }
      break;
    }
    used += cost;
    kept.push(prompts[i]);
  }
  if (kept.length === 0) {
    // No genuine prompt at all: the tail would be empty, which this strategy's shape cannot avoid.
    const plan = noopPlan('preserve-user-messages', p, input, ctx, 'no user prompt to preserve');
    return plan.fitsWindow ? plan : fittedTail(input, sep, p, ctx, 'no user prompt to preserve');
  }
  kept.reverse();
  const keptSet = new Set(kept);
  const latestKept = kept[kept.length - 1];
  const summary = syntheticMessage('summary', SUMMARY_PENDING_TEXT);
  const plan = finalizePlan({
    strategy: 'preserve-user-messages',
    params: p,
    input,
    output: [...kept, summary],
    ctx,
    splitIndex: input.indexOf(latestKept) + 1,
    tailStartId: kept[0].id,
    needsSummary: true,
    summarizerInput: {
      priorSummaries: sep.synthetics.filter((m) => m.synthetic === 'summary'),
      toSummarize: sep.real.filter((m) => !keptSet.has(m)),
      overlap: [],
    },
    syntheticIndex: kept.length,
    notes,
  });
  if (plan.fitsWindow || plan.noop) return plan;
  return fittedTail(input, sep, p, ctx, `the latest user prompt alone does not fit beside the summary in ${budgetText(ctx)}`);
}

/** Last resort: the prompts go into the summary too; the tail is the longest one that fits (turn-safe). */
function fittedTail(
  input: readonly Message[],
  sep: Separated,
  p: PreserveUserMessagesParams,
  ctx: PlanContext,
  why: string,
): CompactionPlan {
  return planContiguousTail({
    strategy: 'preserve-user-messages',
    params: { ...p },
    input,
    ctx,
    sep,
    rawCut: 1,
    summarize: true,
    notes: [`${why}: the summary takes the prompts too, and the tail keeps the most recent messages that fit`],
  });
}
