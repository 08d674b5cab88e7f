// Prompt caching: where a request carries cache_control breakpoints. The API caches the exact prefix
// (tools -> system -> messages) that ends at a breakpoint, and a later request reads the longest cached
// prefix it finds at one of its breakpoints or up to about 20 blocks before one; at most 4 breakpoints
// per request. So the agent marks:
//   1. the last tool definition (the tools, which change only with the workspace's trust);
//   2. the system prompt (sent as one text block; tools + system);
//   3. the last cacheable block of the history (moves every call: the next call reads it back);
//   4. when the newest exchange adds more blocks than the lookback sees, also the end of the previous
//      request's history, where the previous call wrote its entry;
//   5. with micro-compaction, the end of the messages no later batch can change (the frontier, and the
//      previous call's when a batch moved it): a batch then re-writes the prefix from there, not from the
//      system prompt. The tools' breakpoint yields its slot to it (the system prompt's caches the tools too).
// Never on thinking / redacted_thinking blocks or empty text (the API rejects those). The breakpoints
// go into copies: the session's messages, shared with the request by reference, are never touched.
import type Anthropic from '@anthropic-ai/sdk';
import {
  LOOKBACK_SEGMENTS,
  MAX_CACHE_BREAKPOINTS,
  type ApiMessage,
  type CacheTtl,
  type ContentBlock,
  type PromptCaching,
  type PromptCachingSetting,
} from '../../core';

/** The `splitpoint.promptCaching` setting (core's type): the TTL of the breakpoints, or none. */
export type { PromptCaching, PromptCachingSetting };

export type CacheControl = { type: 'ephemeral'; ttl?: CacheTtl };

export function cacheControlFor(ttl: CacheTtl): CacheControl {
  // 5m is the API's default TTL: sent without `ttl`, as the documentation's examples do.
  return ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
}

/** A block a breakpoint may sit on: not thinking, not redacted thinking, not empty text. */
export function isCacheableBlock(b: ContentBlock): boolean {
  if (b.type === 'thinking' || b.type === 'redacted_thinking') return false;
  if (b.type === 'text') return typeof b.text === 'string' && b.text.trim() !== '';
  return true;
}

/** Where a breakpoint goes in the messages: message index and block index (in its block form). */
export interface BlockRef {
  message: number;
  block: number;
}

function blocksOfContent(content: ApiMessage['content']): ContentBlock[] {
  return typeof content === 'string' ? (content.trim() === '' ? [] : [{ type: 'text', text: content }]) : content;
}

/** The last cacheable block at or before message `from` (scanning back through earlier messages). */
export function lastCacheableBlock(messages: readonly ApiMessage[], from: number): BlockRef | undefined {
  for (let i = Math.min(from, messages.length - 1); i >= 0; i--) {
    const blocks = blocksOfContent(messages[i].content);
    for (let j = blocks.length - 1; j >= 0; j--) if (isCacheableBlock(blocks[j])) return { message: i, block: j };
  }
  return undefined;
}

/** Content blocks strictly after `a` up to and including `b`. */
function blocksBetween(messages: readonly ApiMessage[], a: BlockRef, b: BlockRef): number {
  let n = 0;
  for (let i = a.message; i <= b.message; i++) {
    const count = blocksOfContent(messages[i].content).length;
    const start = i === a.message ? a.block + 1 : 0;
    const end = i === b.message ? b.block + 1 : count;
    n += Math.max(0, end - start);
  }
  return n;
}

/**
 * The history breakpoints: the last cacheable block, and the previous request's end when the newest
 * exchange is longer than the lookback (the message before the last assistant reply, or before a
 * trailing assistant message: a paused turn being continued).
 */
export function historyBreakpoints(messages: readonly ApiMessage[], slots: number): BlockRef[] {
  if (slots <= 0 || messages.length === 0) return [];
  const last = lastCacheableBlock(messages, messages.length - 1);
  if (!last) return [];
  const lastIndex = messages.length - 1;
  const prevEndIndex = messages[lastIndex].role === 'assistant' ? lastIndex - 1 : lastIndex - 2;
  const prev = slots > 1 && prevEndIndex >= 0 ? lastCacheableBlock(messages, prevEndIndex) : undefined;
  if (prev && (prev.message < last.message || prev.block < last.block) && blocksBetween(messages, prev, last) >= LOOKBACK_SEGMENTS) {
    return [prev, last];
  }
  return [last];
}

/** `messages` with cache_control on the given blocks: only the marked messages and blocks are copies. */
export function markBlocks(messages: readonly ApiMessage[], refs: readonly BlockRef[], control: CacheControl): ApiMessage[] {
  const out = [...messages];
  for (const ref of refs) {
    const blocks = [...blocksOfContent(out[ref.message].content)];
    blocks[ref.block] = { ...blocks[ref.block], cache_control: control };
    out[ref.message] = { role: out[ref.message].role, content: blocks };
  }
  return out;
}

/**
 * The micro-compaction frontier breakpoints: the last cacheable block of the first `n` request messages, for
 * each n of `stable` (ascending), skipping any that `taken` already marks or that is not before the last one.
 */
export function frontierBreakpoints(messages: readonly ApiMessage[], stable: readonly number[], taken: readonly BlockRef[]): BlockRef[] {
  const out: BlockRef[] = [];
  const last = taken[taken.length - 1];
  for (const n of stable) {
    if (n <= 0 || n >= messages.length) continue;
    const ref = lastCacheableBlock(messages, n - 1);
    if (!ref || (last && (ref.message > last.message || (ref.message === last.message && ref.block >= last.block)))) continue;
    if ([...taken, ...out].some((r) => r.message === ref.message && r.block === ref.block)) continue;
    out.push(ref);
  }
  return out;
}

/**
 * The request with its cache breakpoints (none with 'off'): the system prompt becomes one text block.
 * Never more than MAX_CACHE_BREAKPOINTS. `stable` (request message counts, ascending: the micro-compaction
 * frontiers, PreparedRequest.stableApiMessages) adds a breakpoint at the end of each, so a micro-compaction
 * batch re-writes the cached prefix from the frontier on instead of from the system prompt. The history's
 * breakpoints come first, then the system prompt's, then the frontiers (newest first: the one this request
 * writes, then the one it reads), and the last tool definition's only when a slot is left: the system
 * prompt's breakpoint caches the tools too (they come before it).
 */
export function withPromptCaching(
  params: Anthropic.MessageStreamParams,
  caching: PromptCaching,
  stable: readonly number[] = [],
): Anthropic.MessageStreamParams {
  if (caching === 'off') return params;
  const control = cacheControlFor(caching);
  const out: Anthropic.MessageStreamParams = { ...params };
  const system = typeof params.system === 'string' ? params.system : undefined;
  const hasSystem = system !== undefined && system.trim() !== '';
  const hasTools = params.tools !== undefined && params.tools.length > 0;
  const messages = params.messages as ApiMessage[];
  const history = historyBreakpoints(messages, MAX_CACHE_BREAKPOINTS - (hasSystem ? 1 : 0) - (hasTools && stable.length === 0 ? 1 : 0));
  const room = MAX_CACHE_BREAKPOINTS - history.length - (hasSystem ? 1 : 0);
  const frontiers = frontierBreakpoints(messages, stable, history).reverse().slice(0, Math.max(0, room));
  if (hasTools && history.length + frontiers.length + (hasSystem ? 1 : 0) < MAX_CACHE_BREAKPOINTS) {
    const tools = [...params.tools!];
    tools[tools.length - 1] = { ...tools[tools.length - 1], cache_control: control } as Anthropic.ToolUnion;
    out.tools = tools;
  }
  if (hasSystem) out.system = [{ type: 'text', text: system, cache_control: control }];
  out.messages = markBlocks(messages, [...frontiers, ...history], control) as Anthropic.MessageParam[];
  return out;
}

/** How many cache_control breakpoints a request carries (tools, system blocks, message blocks and their nested blocks). */
export function countCacheBreakpoints(params: { tools?: unknown; system?: unknown; messages?: unknown }): number {
  let n = 0;
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) for (const x of v) visit(x);
    else if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (o.cache_control !== undefined && o.cache_control !== null) n++;
      if (Array.isArray(o.content)) visit(o.content);
    }
  };
  visit(params.tools);
  visit(params.system);
  visit(params.messages);
  return n;
}
