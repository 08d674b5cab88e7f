// Turn-boundary safety: where a kept window may begin without splitting a turn or a tool exchange.
import { hasToolResults, isTurnStart, type Message } from './conversation';

/** First index >= cut that starts a turn (a genuine user prompt), or -1. */
export function snapToTurnStart(messages: readonly Message[], cut: number): number {
  for (let i = Math.max(0, cut); i < messages.length; i++) if (isTurnStart(messages[i])) return i;
  return -1;
}

/**
 * A tool-exchange boundary: a position where the kept window may open without separating an
 * assistant tool_use from the user message that carries its tool_results, i.e. any message that is
 * not a tool_result carrier. (A window opening with an assistant message needs a synthetic user opener.)
 */
export function isExchangeBoundary(messages: readonly Message[], i: number): boolean {
  const m = messages[i];
  return m !== undefined && !m.synthetic && !(m.role === 'user' && hasToolResults(m));
}

export interface SafeCut {
  /** Index of the first kept message. */
  index: number;
  /** How the index was found. */
  snappedTo: 'turn-start' | 'exchange-boundary';
  /** The kept window opens with an assistant message: a synthetic user opener must precede it. */
  needsOpener: boolean;
}

/**
 * Where to begin the kept window given a raw cut: snap forward to the next turn start; when no turn
 * starts at or after the cut (one prompt followed by hundreds of tool calls), snap to the nearest
 * tool-exchange boundary instead, forward first, then backward. Never returns an empty window when
 * `messages` holds a boundary at all; returns null when it holds none.
 */
export function safeCut(messages: readonly Message[], cut: number): SafeCut | null {
  const start = Math.min(Math.max(0, cut), messages.length);
  const turn = snapToTurnStart(messages, start);
  if (turn !== -1) return { index: turn, snappedTo: 'turn-start', needsOpener: false };
  for (let i = start; i < messages.length; i++) if (isExchangeBoundary(messages, i)) return describe(messages, i);
  for (let i = Math.min(start, messages.length) - 1; i >= 0; i--) if (isExchangeBoundary(messages, i)) return describe(messages, i);
  return null;
}

function describe(messages: readonly Message[], i: number): SafeCut {
  const turnStart = isTurnStart(messages[i]);
  return { index: i, snappedTo: turnStart ? 'turn-start' : 'exchange-boundary', needsOpener: messages[i].role !== 'user' };
}
