// server-compact: the API's server-side compaction (`compact_20260112`, see ../serverContext.ts for the
// documented rules and their sources). Two cases:
// - the history holds a compaction block the server returned (a non-null summary) with messages before
//   it: the API ignores those messages, so the plan archives them (transcript first, like every
//   compaction) behind a placeholder opener, and the tail starts at the assistant message carrying the
//   block, which is sent back verbatim. The agent applies this right after the server compacted.
// - otherwise the plan EMULATES the server for the preview: over the trigger, the server would
//   summarize the conversation into a compaction block at the start of its next reply. The preview
//   keeps the current turn (a local plan needs a tail); "Compact now" with it summarizes locally.
import { blocksOf, type Message } from '../conversation/conversation';
import { finalizePlan, noopPlan, placeholderText, syntheticMessage, type CompactionPlan, type PlanContext } from '../pipeline/plan';
import { compactEdit, compactionSummaryOf } from '../pipeline/serverContext';
import { separateSynthetics } from './common';
import { EMULATION_NOTE, withFitNote } from './serverClearToolUses';
import { planContiguousTail } from './tail';

export function planServerCompact(input: readonly Message[], params: Record<string, number>, ctx: PlanContext): CompactionPlan {
  const p = { ...params };
  const at = lastCompactionIndex(input);
  if (at > 0 && input.slice(0, at).some((m) => !m.synthetic)) return planBehindBlock(input, at, p, ctx);

  const edit = compactEdit(params, ctx.serverContext);
  // What the server counts: everything from the last compaction block on (it ignores what is before).
  const effective = at >= 0 ? input.slice(at) : input;
  const inputTokens = (ctx.overheadTokens ?? 0) + ctx.tokens.countMessages(effective);
  const notes = [`${EMULATION_NOTE} (compact_20260112)`];
  if (inputTokens <= edit.trigger.value) {
    const plan = noopPlan('server-compact', p, input, ctx, notes[0]);
    plan.notes.push(`below the trigger: ~${inputTokens} estimated input tokens <= ${edit.trigger.value}; the server would not compact`);
    return withFitNote(plan, ctx);
  }
  notes.push(
    `over the trigger (~${inputTokens} > ${edit.trigger.value}): the server would summarize the conversation into a compaction block ` +
      `at the start of its next reply${edit.pause_after_compaction ? ' and pause (stop_reason "compaction")' : ''}; ` +
      'this preview keeps the current turn',
  );
  const sep = separateSynthetics(input);
  const plan = planContiguousTail({
    strategy: 'server-compact',
    params: p,
    input,
    ctx,
    sep,
    rawCut: sep.real.length - 1,
    summarize: true,
    notes,
    keepAllReason: 'nothing before the current turn to summarize',
  });
  return withFitNote(plan, ctx);
}

/** The last assistant message carrying a successful compaction block (-1: none). */
function lastCompactionIndex(input: readonly Message[]): number {
  for (let i = input.length - 1; i >= 0; i--) if (input[i].role === 'assistant' && compactionSummaryOf(input[i]) !== undefined) return i;
  return -1;
}

/** Archive everything before the block the server returned; the tail opens with a placeholder, then the block's message. */
function planBehindBlock(input: readonly Message[], at: number, params: Record<string, number>, ctx: PlanContext): CompactionPlan {
  const opener = syntheticMessage('placeholder', placeholderText(at));
  const blocks = blocksOf(input[at]).length;
  const plan = finalizePlan({
    strategy: 'server-compact',
    params,
    input,
    output: [opener, ...input.slice(at)],
    ctx,
    splitIndex: at,
    tailStartId: input[at].id,
    needsSummary: false,
    syntheticIndex: 0,
    notes: [
      `the server compacted: the compaction block in ${input[at].id} (${blocks} block${blocks === 1 ? '' : 's'}) replaces the ${at} ` +
        'messages before it, which the API ignores from now on',
    ],
  });
  const pins = input.slice(0, at).filter((m) => ctx.pinnedIds?.has(m.id)).length;
  if (pins > 0)
    plan.notes.push(`${pins} pinned message${pins === 1 ? '' : 's'} before the block archived too: the server does not know pins`);
  return withFitNote(plan, ctx);
}
