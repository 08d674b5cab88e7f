// Planning around pins, the same way for every strategy: the strategy plans the history without the
// pinned messages (their tokens count against its budget as overhead), then the pinned messages go back
// verbatim in their original order: before the tail (after the summary or opener) when they are older
// than it, at their own place when they are inside it. The plan is then finalized on the full input,
// so kept / archived / truncated, tokens and the window fit are measured on what is really sent.
import type { Message } from '../conversation/conversation';
import { finalizePlan, placeholderText, syntheticMessage, type CompactionPlan, type PlanContext } from '../pipeline/plan';
import { pinnedIn } from '../ledger/pins';

export type PlanFn = (messages: readonly Message[], params: Record<string, number>, ctx: PlanContext) => CompactionPlan;

/** `plan` made pin-aware: with no pin in `messages` it is `plan` itself. */
export function planAroundPins(plan: PlanFn): PlanFn {
  return (messages, params, ctx) => {
    const pinned = pinnedIn(messages, ctx.pinnedIds);
    if (pinned.size === 0) return plan(messages, params, ctx);
    const rest = messages.filter((m) => !pinned.has(m.id));
    const pins = messages.filter((m) => pinned.has(m.id));
    const pinnedTokens = ctx.tokens.countMessages(pins);
    const innerCtx: PlanContext = {
      ...ctx,
      pinnedIds: undefined,
      overheadTokens: (ctx.overheadTokens ?? 0) + pinnedTokens,
      pinnedTokens,
    };
    // A split chosen at a pinned message (split-at's ctx.splitAtId) moves past the pins.
    const split = (ctx as PlanContext & { splitAtId?: string }).splitAtId;
    if (split !== undefined) Object.assign(innerCtx, { splitAtId: unpinnedFrom(messages, pinned, split) });
    const inner = plan(rest, params, innerCtx);
    return withPins(messages, rest, pins, pinnedTokens, inner, ctx);
  };
}

function withPins(
  input: readonly Message[],
  rest: readonly Message[],
  pins: readonly Message[],
  pinnedTokens: number,
  inner: CompactionPlan,
  ctx: PlanContext,
): CompactionPlan {
  const indexOf = new Map<string, number>();
  input.forEach((m, i) => indexOf.set(m.id, i));
  const output = mergePins(inner.output, pins, indexOf);
  let syntheticIndex = inner.syntheticIndex === null ? null : output.indexOf(inner.output[inner.syntheticIndex]);
  // A pinned assistant message older than everything kept would open the request: an opener goes first.
  if (output.length > 0 && output[0].role !== 'user') {
    const kept = new Set(output.map((m) => m.id));
    output.unshift(syntheticMessage('placeholder', placeholderText(input.filter((m) => !kept.has(m.id)).length)));
    syntheticIndex = syntheticIndex === null ? 0 : syntheticIndex + 1;
  }
  const splitIndex = inner.splitIndex >= rest.length ? input.length : (indexOf.get(rest[inner.splitIndex].id) ?? input.length);
  const s = inner.summarizerInput;
  const plan = finalizePlan({
    strategy: inner.strategy,
    params: inner.params,
    input,
    output,
    ctx,
    splitIndex,
    // Everything pinned: the pins are the tail.
    tailStartId: inner.tailStartId ?? output.find((m) => !m.synthetic)?.id ?? null,
    needsSummary: inner.needsSummary,
    summarizerInput: s ? { priorSummaries: s.priorSummaries, toSummarize: s.toSummarize, overlap: s.overlap } : null,
    syntheticIndex,
    notes: [...inner.notes, pinNote(pins.length, pinnedTokens)],
  });
  return {
    ...plan,
    pinned: pins.map((m) => m.id),
    pinnedTokens,
    ...(inner.microCompaction ? { microCompaction: inner.microCompaction } : {}),
  };
}

/** A split chosen at a pinned message moves to the next message that is not pinned (the pin stays anyway). */
function unpinnedFrom(messages: readonly Message[], pinned: ReadonlySet<string>, id: string): string | undefined {
  const at = messages.findIndex((m) => m.id === id);
  if (at < 0) return id;
  return messages.slice(at).find((m) => !pinned.has(m.id))?.id;
}

function pinNote(count: number, tokens: number): string {
  return `${count} pinned message${count === 1 ? '' : 's'} kept verbatim before the tail (${tokens} tokens, counted against the budget)`;
}

/**
 * The strategy's output with the pins put back: leading synthetic messages (summary, opener, prior
 * summaries) stay first; each pin goes just before the first kept real message newer than it.
 */
function mergePins(output: readonly Message[], pins: readonly Message[], indexOf: ReadonlyMap<string, number>): Message[] {
  let lead = 0;
  while (lead < output.length && output[lead].synthetic) lead++;
  const merged: Message[] = output.slice(0, lead);
  let next = 0;
  for (const m of output.slice(lead)) {
    const at = m.synthetic ? undefined : indexOf.get(m.id);
    if (at !== undefined) while (next < pins.length && (indexOf.get(pins[next].id) ?? 0) < at) merged.push(pins[next++]);
    merged.push(m);
  }
  while (next < pins.length) merged.push(pins[next++]);
  return merged;
}
