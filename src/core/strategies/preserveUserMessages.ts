// Preserve user messages (seed 004): walking newest-first, keep every genuine user prompt until
// `maxUserTokens` is reached; drop every agent-generated item. Kept prompts stay in chronological
// order and the new summary sits at the split point, just after the latest preserved prompt.
import { isTurnStart, type Message } from '../conversation';
import { finalizePlan, noopPlan, SUMMARY_PENDING_TEXT, syntheticMessage, type CompactionPlan, type PlanContext } from '../plan';
import { separateSynthetics } from './common';

export interface PreserveUserMessagesParams {
  maxUserTokens: number;
}

export function planPreserveUserMessages(input: readonly Message[], params: PreserveUserMessagesParams, ctx: PlanContext): CompactionPlan {
  const p = { maxUserTokens: params.maxUserTokens };
  const sep = separateSynthetics(input);
  const prompts = sep.real.filter(isTurnStart);
  if (prompts.length === sep.real.length) {
    return noopPlan('preserve-user-messages', p, input, ctx, 'no agent-generated messages to collapse');
  }
  const notes: string[] = [];
  const kept: Message[] = [];
  let used = 0;
  for (let i = prompts.length - 1; i >= 0; i--) {
    const cost = ctx.tokens.countMessage(prompts[i]);
    if (used + cost > params.maxUserTokens) {
      if (kept.length === 0) {
        // A tail is never empty: the latest prompt is kept even when it alone exceeds the cap.
        kept.push(prompts[i]);
        notes.push(`the latest user prompt alone (${cost} tokens) exceeds maxUserTokens ${params.maxUserTokens}; kept anyway`);
      } else {
        notes.push(`${i + 1} older user prompt${i === 0 ? '' : 's'} over the ${params.maxUserTokens}-token cap go into the summary`);
      }
      break;
    }
    used += cost;
    kept.push(prompts[i]);
  }
  if (kept.length === 0) {
    // No genuine prompt at all: the tail would be empty, which this strategy's shape cannot avoid.
    return noopPlan('preserve-user-messages', p, input, ctx, 'no user prompt to preserve');
  }
  kept.reverse();
  const keptSet = new Set(kept);
  const latestKept = kept[kept.length - 1];
  const summary = syntheticMessage('summary', SUMMARY_PENDING_TEXT);
  return finalizePlan({
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
}
