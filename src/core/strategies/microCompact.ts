// Micro-compaction (layer 1, seeds 000-002): tool results older than the most recent `keepRecent`
// and longer than `minChars` become "[Previous: used <tool>]". Block type, tool_use_id and is_error
// stay, so the request stays valid; nothing is archived, the originals stay in the session.
// The results are cleared in batches (microBatch.ts): `triggerTokens`, `clearAtLeast`, the `tools`
// filter and, with `cacheAware`, only when the batch pays back the cached prefix it re-writes.
// `ctx.microCleared` names the results the live view already cleared: they stay cleared.
// With `supersede`, a result a later call superseded (supersede.ts) is a candidate whatever its age,
// and becomes "[superseded: <what> in call N]" instead of the placeholder.
import { planCostFor } from '../cost/cacheCost';
import { toolNamesById, type Message, type ToolResultBlock } from '../conversation/conversation';
import { decideBatch, decisionNote, isCandidate, placeholderTokens, type MicroCompactSettings } from '../pipeline/microBatch';
import { finalizePlan, type CompactionPlan, type PlanContext } from '../pipeline/plan';
import { isPointerCandidate, pointerTokens, replacedInView, resultTokens, supersessionsOf, type Supersession } from '../pipeline/supersede';
import { budgetText } from './tail';

export type MicroCompactParams = MicroCompactSettings;

/** The plan's params, numeric as every plan's (cacheAware 0/1); the tools filter is in the notes. */
function numericParams(p: MicroCompactParams): Record<string, number> {
  return {
    keepRecent: p.keepRecent,
    minChars: p.minChars,
    ...(p.triggerTokens !== undefined ? { triggerTokens: p.triggerTokens } : {}),
    ...(p.clearAtLeast !== undefined ? { clearAtLeast: p.clearAtLeast } : {}),
    ...(p.cacheAware !== undefined ? { cacheAware: p.cacheAware ? 1 : 0 } : {}),
    ...(p.horizonTurns !== undefined ? { horizonTurns: p.horizonTurns } : {}),
    ...(p.supersede !== undefined ? { supersede: p.supersede ? 1 : 0 } : {}),
  };
}

function earlierNote(before: ReadonlyMap<number, ReadonlySet<string>>): string[] {
  const n = [...before.values()].reduce((k, s) => k + s.size, 0);
  return n === 0 ? [] : [`${n} result${n === 1 ? '' : 's'} cleared by earlier batches stay${n === 1 ? 's' : ''} cleared`];
}

function supersededNote(n: number): string[] {
  return n === 0 ? [] : [`${n} of the batch's results ${n === 1 ? 'is' : 'are'} superseded by a later call (replaced by a pointer)`];
}

function add(map: Map<number, Set<string>>, index: number, id: string): void {
  let ids = map.get(index);
  if (!ids) map.set(index, (ids = new Set()));
  ids.add(id);
}

const NO_SUPERSESSIONS: ReadonlyMap<string, Supersession> = new Map();

export function planMicroCompact(input: readonly Message[], params: MicroCompactParams, ctx: PlanContext): CompactionPlan {
  const names = toolNamesById(input);
  const cleared = ctx.microCleared;
  const superseded = params.supersede ? supersessionsOf(input) : NO_SUPERSESSIONS;
  // Results that are (or become) pointers: those the live view cleared as pointers, and this batch's superseded ones.
  const pointers = new Map<string, Supersession>();
  // Every tool_result block in order: (message index, block).
  const all: Array<{ index: number; block: ToolResultBlock }> = [];
  input.forEach((m, index) => {
    if (m.role !== 'user' || typeof m.content === 'string') return;
    for (const b of m.content) if (b.type === 'tool_result') all.push({ index, block: b as ToolResultBlock });
  });
  const oldCount = Math.max(0, all.length - params.keepRecent);
  const before = new Map<number, Set<string>>();
  const batch = new Map<number, Set<string>>();
  let placeholderSum = 0;
  const sup = { candidates: 0, clearableTokens: 0, savedTokens: 0 };
  all.forEach(({ index, block }, k) => {
    const id = block.tool_use_id;
    const s = superseded.get(id);
    if (cleared?.has(id)) {
      add(before, index, id);
      if (s && ctx.microPointers?.has(id)) pointers.set(id, s);
    } else if (s && isPointerCandidate(block, s, names, params)) {
      add(batch, index, id);
      pointers.set(id, s);
      const pointer = pointerTokens(s, ctx.tokens);
      placeholderSum += pointer;
      // Only the results age alone would not clear yet ride along (the others count as old results do).
      if (k >= oldCount || !isCandidate(block, names, params)) {
        sup.candidates++;
        sup.clearableTokens += resultTokens(block, ctx.tokens);
        sup.savedTokens += resultTokens(block, ctx.tokens) - pointer;
      }
    } else if (k < oldCount && isCandidate(block, names, params)) {
      add(batch, index, id);
      placeholderSum += placeholderTokens(names.get(id) ?? 'unknown tool', ctx.tokens);
    }
  });
  // The current request view (earlier batches applied), and the view with this batch cleared too.
  const view = input.map((m, i) => {
    const ids = before.get(i);
    return ids ? replacedInView(m, ids, names, pointers, ctx.copies) : m;
  });
  let savedTokens = 0;
  let first = input.length;
  const cleaned = new Map<number, Message>();
  for (const [i, ids] of batch) {
    const all = before.has(i) ? new Set([...before.get(i)!, ...ids]) : ids;
    const after = replacedInView(input[i], all, names, pointers, ctx.copies);
    cleaned.set(i, after);
    savedTokens += ctx.tokens.countMessage(view[i]) - ctx.tokens.countMessage(after);
    first = Math.min(first, i);
  }
  let unchangedPrefixTokens = 0;
  for (let i = 0; i < first; i++) unchangedPrefixTokens += ctx.tokens.countMessage(view[i]);
  const viewTokens = unchangedPrefixTokens + view.slice(first).reduce((n, m) => n + ctx.tokens.countMessage(m), 0);
  const candidates = [...batch.values()].reduce((n, s) => n + s.size, 0);
  const decision = decideBatch(
    { candidates, clearableTokens: savedTokens + placeholderSum, savedTokens, viewTokens, unchangedPrefixTokens, superseded: sup },
    params,
    ctx,
    input,
  );
  const output = decision.action === 'cleared' ? view.map((m, i) => cleaned.get(i) ?? m) : view;
  const tools = params.tools && params.tools.length > 0 ? [`tools: ${params.tools.join(', ')}`] : [];
  const plan = finalizePlan({
    strategy: 'micro-compact',
    params: numericParams(params),
    input,
    output,
    ctx,
    splitIndex: 0,
    tailStartId: input[0]?.id ?? null,
    needsSummary: false,
    syntheticIndex: null,
    notes: [decisionNote(decision), ...supersededNote(sup.candidates), ...earlierNote(before), ...tools],
  });
  plan.microCompaction = decision;
  // Priced against the current request view (earlier batches applied), not the raw history.
  plan.cost = planCostFor(view, plan.output, { tokensBefore: viewTokens, tokensAfter: plan.tokensAfter }, ctx);
  // Micro-compact never archives: it alone may leave a request over the window, and says so.
  if (!plan.fitsWindow) {
    plan.notes.push(
      `placeholders alone are not enough: ${plan.tokensAfter} tokens do not fit ${budgetText(ctx)}; a strategy that archives is needed`,
    );
  }
  return plan;
}
