// Micro-compaction (layer 1, seeds 000-002): tool results older than the most recent `keepRecent`
// and longer than `minChars` become "[Previous: used <tool>]". Block type, tool_use_id and is_error
// stay, so the request stays valid; nothing is archived, the originals stay in the session.
import { toolNamesById, type Message, type ToolResultBlock } from '../conversation';
import { finalizePlan, type CompactionPlan, type PlanContext } from '../plan';
import { replacedWithPlaceholders, worthReplacing } from './common';
import { budgetText } from './tail';

export interface MicroCompactParams {
  keepRecent: number;
  minChars: number;
}

export function planMicroCompact(input: readonly Message[], params: MicroCompactParams, ctx: PlanContext): CompactionPlan {
  const p = { keepRecent: params.keepRecent, minChars: params.minChars };
  const names = toolNamesById(input);
  // Every tool_result block in order: (message index, block).
  const all: Array<{ index: number; block: ToolResultBlock }> = [];
  input.forEach((m, index) => {
    if (m.role !== 'user' || typeof m.content === 'string') return;
    for (const b of m.content) if (b.type === 'tool_result') all.push({ index, block: b as ToolResultBlock });
  });
  const old = all.slice(0, Math.max(0, all.length - params.keepRecent));
  const byMessage = new Map<number, Set<string>>();
  for (const { index, block } of old) {
    if (!worthReplacing(block, names, params.minChars)) continue;
    let ids = byMessage.get(index);
    if (!ids) byMessage.set(index, (ids = new Set()));
    ids.add(block.tool_use_id);
  }
  const output = input.map((m, i) => {
    const ids = byMessage.get(i);
    return ids ? replacedWithPlaceholders(m, ids, names, ctx.copies) : m;
  });
  const replaced = [...byMessage.values()].reduce((n, s) => n + s.size, 0);
  const plan = finalizePlan({
    strategy: 'micro-compact',
    params: p,
    input,
    output,
    ctx,
    splitIndex: 0,
    tailStartId: input[0]?.id ?? null,
    needsSummary: false,
    syntheticIndex: null,
    notes: [
      replaced === 0
        ? 'no old tool result over the size threshold'
        : `${replaced} old tool result${replaced === 1 ? '' : 's'} replaced by placeholders`,
    ],
  });
  // Micro-compact never archives: it alone may leave a request over the window, and says so.
  if (!plan.fitsWindow) {
    plan.notes.push(
      `placeholders alone are not enough: ${plan.tokensAfter} tokens do not fit ${budgetText(ctx)}; a strategy that archives is needed`,
    );
  }
  return plan;
}
