// The conversation a summary request reuses (core's ConversationRequest): the agent's last request as
// it was sent (system, tools and messages with their cache breakpoints, byte for byte, so its cached
// prefix is read back), followed by what the history gained since, without new breakpoints (that tail
// is read once, by the summary: writing it to the cache would only cost). When nothing of the history
// can be cached (no request sent for it yet, a compaction or undo rewrote it since, the last request's
// cache TTL has run out, or caching is off), there is nothing to reuse: the reason comes back instead,
// and the summarizer sends its standalone request (cheaper than writing the whole history to the cache).
import type Anthropic from '@anthropic-ai/sdk';
import {
  CACHE_TTL_MS,
  blocksOf,
  toApiMessages,
  type ApiMessage,
  type ConversationRequest,
  type Message,
  type PromptCaching,
  type SystemTextBlock,
} from '../../core';

/** What the agent sent last, and for which history. */
export interface SentRequest {
  params: Anthropic.MessageStreamParams;
  /** Session messages the request carried (the first `sessionLength`), at `rewriteVersion`. */
  sessionLength: number;
  rewriteVersion: number;
  /** When it was sent (epoch ms): its cache entries live for the TTL from then. */
  sentAt: number;
  /** The API's total input for it (uncached + cache read + cache write), once its reply reported usage. */
  inputTokens?: number;
}

export interface SummaryConversationSource {
  sent: SentRequest | undefined;
  /** The session's messages and rewrite version now. */
  session: readonly Message[];
  rewriteVersion: number;
  /** The history as the next request would carry it (micro-compacted), index-aligned with `session`. */
  effective: readonly Message[];
  /** The agent's prompt caching (the TTL of its breakpoints), and the time now (epoch ms). */
  caching: PromptCaching;
  now: number;
  /** Estimated API input tokens of messages, and of a whole request's non-message part. */
  countMessages: (messages: readonly Message[]) => number;
  overheadTokens: number;
}

/** Index of the API message each session message lands in (toApiMessages merges same-role runs). */
function apiIndexOf(messages: readonly Message[], start: number, firstIndex: number, prevRole: string | undefined): Map<string, number> {
  const out = new Map<string, number>();
  let index = firstIndex;
  let role = prevRole;
  for (let i = start; i < messages.length; i++) {
    const m = messages[i];
    if (role !== m.role) {
      index++;
      role = m.role;
    }
    out.set(m.id, index);
  }
  return out;
}

function systemOf(params: Anthropic.MessageStreamParams): string | readonly SystemTextBlock[] {
  return (params.system ?? '') as string | readonly SystemTextBlock[];
}

/** Why the history has no cached prefix to reuse, or undefined when the last request's has. */
function notCached(s: SummaryConversationSource): string | undefined {
  const sent = s.sent;
  if (s.caching === 'off') return 'prompt caching is off';
  if (!sent) return 'no request has been sent for this history yet';
  if (sent.rewriteVersion !== s.rewriteVersion || sent.sessionLength > s.session.length)
    return 'the history was rewritten (compacted or undone) since the last request';
  const age = s.now - sent.sentAt;
  if (age >= CACHE_TTL_MS[s.caching])
    return `the last request was sent ${Math.round(age / 1000)} s ago: its cache (TTL ${s.caching}) has expired`;
  return undefined;
}

/** The conversation for a summary request, or why there is no cached prefix to reuse (see the file comment). */
export function summaryConversation(s: SummaryConversationSource): ConversationRequest | { unusable: string } {
  const reason = notCached(s);
  if (reason) return { unusable: reason };
  const sent = s.sent!;
  const sentMessages = sent.params.messages as ApiMessage[];
  const since = s.effective.slice(sent.sessionLength);
  const head = s.effective.slice(0, sent.sessionLength);
  const lastRole = sentMessages[sentMessages.length - 1]?.role;
  const messageIndex = apiIndexOf(head, 0, -1, undefined);
  for (const [id, i] of apiIndexOf(s.effective, sent.sessionLength, sentMessages.length - 1, lastRole)) messageIndex.set(id, i);
  const messages = [...sentMessages];
  for (const m of toApiMessages(since)) {
    const last = messages[messages.length - 1];
    // A history that gained a same-role message (a prompt after a cancelled request): one turn, as
    // toApiMessages would make it; the sent blocks keep their place and breakpoints.
    if (last && last.role === m.role) messages[messages.length - 1] = { role: m.role, content: [...blocksOf(last), ...blocksOf(m)] };
    else messages.push(m);
  }
  const sentTokens = sent.inputTokens ?? s.countMessages(head) + s.overheadTokens;
  return {
    model: sent.params.model,
    system: systemOf(sent.params),
    tools: sent.params.tools ?? [],
    messages,
    messageIndex,
    tokens: sentTokens + (since.length > 0 ? s.countMessages(since) : 0),
  };
}
