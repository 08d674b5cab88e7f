// The micro-compaction frontier as a request carries it (issue 25): the leading messages of the view no
// later micro-compaction batch can change (IncrementalMicroCompactor.stableMessages). A cache breakpoint at
// the end of them survives the next batch, so that batch's request reads the prefix up to there from the
// cache and re-writes only what follows, not the whole conversation from the system prompt. The agent
// (src/agent/loop/promptCache.ts) and the replay (src/core/replay/requestCache.ts) mark the same places.
import type { Message } from '../conversation/conversation';

/** Frontiers in view messages (`stableMessages`) and in request messages (`stableApiMessages`). */
export interface RequestFrontiers {
  stableMessages: number[];
  stableApiMessages: number[];
}

/**
 * The frontiers of a request over `view` (counts of stable leading messages, ascending), each cut back to the
 * start of a request message (the API merges a run of same-role messages into one, toApiMessages), kept only
 * when it lies inside the view and before its end.
 */
export function requestFrontiers(view: readonly Message[], frontiers: readonly number[]): RequestFrontiers {
  const stable: number[] = [];
  for (const f of frontiers) {
    let n = Math.min(f, view.length);
    while (n > 0 && n < view.length && view[n - 1].role === view[n].role) n--;
    if (n > 0 && n < view.length && !stable.includes(n)) stable.push(n);
  }
  return { stableMessages: stable, stableApiMessages: stable.map((n) => apiMessageCount(view, n)) };
}

/** How many request (API) messages the first `n` messages make: toApiMessages merges same-role runs. */
export function apiMessageCount(messages: readonly Message[], n: number): number {
  let count = 0;
  for (let i = 0; i < n && i < messages.length; i++) if (i === 0 || messages[i].role !== messages[i - 1].role) count++;
  return count;
}
