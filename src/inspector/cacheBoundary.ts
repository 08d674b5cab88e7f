// The inspector's cache boundary: up to where the last model call was served from the prompt cache.
// The last call's cache read is the longest cached prefix the API found at one of its breakpoints. The
// agent (like Claude Code) puts a breakpoint at the end of every request, so when the read equals an
// earlier call's whole cached request (its read + write), the prefix ends exactly where that call's
// request ended: before its assistant message ("breakpoint"). Otherwise (a compaction or an edit
// changed the history since, or a recording from an agent that marks elsewhere) the boundary is placed
// by adding up the rows' token estimates after the system prompt and tools until the read is reached
// ("estimate"), or at the top when the read covers no more than them.
import type { Message } from '../core';
import type { CacheBoundaryView, MessageRow } from '../protocol';

export function cacheBoundaryOf(
  messages: readonly Message[],
  rows: readonly MessageRow[],
  overheadTokens: number,
): CacheBoundaryView | undefined {
  let last = -1;
  for (let i = messages.length - 1; i >= 0 && last < 0; i--) if (messages[i].usage) last = i;
  if (last < 0) return undefined;
  const read = messages[last].usage!.cacheReadTokens;
  if (read <= 0) return undefined;
  const call = messages[last].id;
  for (let k = last - 1; k > 0; k--) {
    const u = messages[k].usage;
    if (u && u.cacheReadTokens + u.cacheCreationTokens === read) {
      return { afterId: messages[k - 1].id, readTokens: read, callMessageId: call, source: 'breakpoint' };
    }
  }
  let sum = Math.max(0, overheadTokens);
  let afterId: string | null = null;
  for (let i = 0; i < last && i < rows.length; i++) {
    if (sum + rows[i].tokens > read) break;
    sum += rows[i].tokens;
    afterId = rows[i].id;
  }
  return { afterId, readTokens: read, callMessageId: call, source: 'estimate' };
}
