// Pins: messages the user marked compaction-resistant. A pinned message survives every strategy
// verbatim (never archived, never truncated), in its original order, placed before the tail (after the
// summary or opener): `[summary turn] + [pinned messages, in order] + messages from the pointer on`.
// A tool_use and its tool_result travel together, so pinning one pins its partner (the closed set).
// The strategies plan around the pins (see strategies/pinned.ts); this module resolves the set.
import { hasToolResults, hasToolUses, toolResults, toolUses, type Message } from '../conversation/conversation';
import { SplitpointError } from '../base/errors';

export class UnknownPinError extends SplitpointError {
  constructor(
    readonly id: string,
    why = 'no message with that id in this conversation',
  ) {
    super(`cannot pin message "${id}": ${why}`);
    this.name = 'UnknownPinError';
  }
}

export type PinResolution = { ok: true; pinned: Set<string> } | { ok: false; error: UnknownPinError };

/**
 * The closed set of pins for `ids` over `messages`: every id must name a message (else an error naming
 * the first unknown id); an assistant tool_use message pins the user message carrying its results and
 * a tool_result message pins the assistant message carrying its tool_use.
 */
export function resolvePins(messages: readonly Message[], ids: Iterable<string>): PinResolution {
  const index = new Map<string, number>();
  messages.forEach((m, i) => index.set(m.id, i));
  const wanted: number[] = [];
  for (const id of ids) {
    const i = index.get(id);
    if (i === undefined) return { ok: false, error: new UnknownPinError(id) };
    if (messages[i].synthetic)
      return { ok: false, error: new UnknownPinError(id, `it is a compaction ${messages[i].synthetic}, not a message`) };
    wanted.push(i);
  }
  return { ok: true, pinned: closePins(messages, wanted) };
}

/** `resolvePins` for a stored pin set: ids no longer in `messages` (or synthetic) are skipped, never an error. */
export function pinnedIn(messages: readonly Message[], ids: ReadonlySet<string> | undefined): Set<string> {
  if (!ids || ids.size === 0) return new Set();
  const wanted: number[] = [];
  messages.forEach((m, i) => {
    if (ids.has(m.id) && !m.synthetic) wanted.push(i);
  });
  return closePins(messages, wanted);
}

function closePins(messages: readonly Message[], wanted: readonly number[]): Set<string> {
  const pinned = new Set<string>();
  for (const i of wanted) {
    const m = messages[i];
    pinned.add(m.id);
    if (m.role === 'assistant' && hasToolUses(m)) {
      const next = messages[i + 1];
      const useIds = new Set(toolUses(m).map((u) => u.id));
      if (next && next.role === 'user' && toolResults(next).some((r) => useIds.has(r.tool_use_id))) pinned.add(next.id);
    }
    if (m.role === 'user' && hasToolResults(m)) {
      const prev = messages[i - 1];
      const resultIds = new Set(toolResults(m).map((r) => r.tool_use_id));
      if (prev && prev.role === 'assistant' && toolUses(prev).some((u) => resultIds.has(u.id))) pinned.add(prev.id);
    }
  }
  return pinned;
}
