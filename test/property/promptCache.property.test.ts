// Property: for every generated conversation, the agent's request carries at most 4 cache breakpoints,
// none on a thinking block or empty text, the loopback server (the API's cache_control rules) accepts
// it, the session's messages are untouched, and the call after the previous one reads all of what the
// previous call sent: consecutive calls of the agent loop always hit the cache, however many blocks
// the newest exchange adds (the 20-block lookback is covered by a second history breakpoint).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { toApiMessages, type ApiMessage, type Message } from '../../src/core/conversation/conversation';
import { PrefixCache } from '../../src/core/cost/cost';
import { messageStreamParams } from '../../src/agent/loop/modelRequest';
import { countCacheBreakpoints, type PromptCaching } from '../../src/agent/loop/promptCache';
import { WorkspaceTools } from '../../src/agent/tools';
import type { MessagesRequestBody } from '../loopback/anthropic-server';
import { cacheLayout, canonicalJson, type CacheLayout } from '../loopback/promptCache';
import { asBlocks } from '../helpers/cacheControl';
import { conversationArb } from './arbitraries';

const RUNS = Number(process.env.SPLITPOINT_CACHE_PROPERTY_RUNS ?? 150);
const TOOLS = new WorkspaceTools({ root: process.cwd() }).definitions();

function layoutOf(body: MessagesRequestBody): CacheLayout {
  // Token counts do not matter to the property: a cheap stand-in (chars / 4 of the block without cache_control) keeps 300 runs fast.
  const chars = (v: unknown) => Math.ceil(canonicalJson(v).length / 4);
  const counter = { block: chars, tool: chars, text: chars, scale: 1, perRequest: 0, perMessage: 0 };
  const layout = cacheLayout(body, counter);
  if ('error' in layout) assert.fail(`the API would reject the request: ${layout.error}`);
  return layout;
}

function request(messages: ApiMessage[], caching: PromptCaching): MessagesRequestBody {
  const params = messageStreamParams({
    model: 'claude-sonnet-4-5',
    maxTokens: 1024,
    system: 'You are a test.',
    tools: TOOLS,
    messages,
    caching,
  });
  return JSON.parse(JSON.stringify(params)) as MessagesRequestBody;
}

/** Blocks of the body that carry cache_control, with their types. */
function markedBlocks(body: MessagesRequestBody): Array<{ type: string; text?: unknown }> {
  const out: Array<{ type: string; text?: unknown }> = [];
  for (const m of body.messages ?? []) {
    if (typeof m.content === 'string') continue;
    for (const b of m.content) if (b.cache_control) out.push(b);
  }
  return out;
}

/** Sometimes a last exchange wider than the lookback: N parallel tool calls and their N results. */
const withWideExchange = fc
  .tuple(conversationArb, fc.option(fc.integer({ min: 8, max: 14 }), { freq: 3, nil: undefined }))
  .map(([c, n]) => {
    if (n === undefined) return c;
    const ids = Array.from({ length: n }, (_, i) => `toolu_wide${i}`);
    const wide: Message[] = [
      { id: 'wa', role: 'assistant', content: ids.map((id) => ({ type: 'tool_use', id, name: 'list_files', input: {} })) },
      { id: 'wr', role: 'user', content: ids.map((id) => ({ type: 'tool_result', tool_use_id: id, content: `files of ${id}` })) },
    ];
    return [...c, ...wide];
  });

test('agent requests: at most 4 breakpoints, valid for the API, stored messages untouched, the previous call always read back', () => {
  fc.assert(
    fc.property(withWideExchange, fc.constantFrom<PromptCaching>('5m', '1h', 'off'), (conversation, caching) => {
      const messages = toApiMessages(conversation);
      const snapshot = JSON.stringify(conversation);
      const body = request(messages, caching);
      assert.equal(JSON.stringify(conversation), snapshot, 'the session messages are not modified');
      assert.deepEqual(asBlocks(body.messages), asBlocks(messages as MessagesRequestBody['messages']), 'the same blocks, only marked');
      const n = countCacheBreakpoints(body);
      if (caching === 'off') {
        assert.equal(n, 0);
        return;
      }
      assert.ok(n <= 4 && n >= 3, `${n} breakpoints`);
      for (const b of markedBlocks(body)) {
        assert.ok(b.type !== 'thinking' && b.type !== 'redacted_thinking', `breakpoint on ${b.type}`);
        if (b.type === 'text') assert.ok(String(b.text).trim() !== '', 'breakpoint on empty text');
      }
      const layout = layoutOf(body);

      // The previous call of the loop: without the newest exchange (or without a trailing assistant message).
      const last = messages.length - 1;
      const previous = messages[last].role === 'user' ? messages.slice(0, -2) : messages.slice(0, -1);
      if (previous.length === 0 || previous[previous.length - 1].role !== 'user') return;
      const cache = new PrefixCache(1);
      const before = layoutOf(request(previous, caching));
      const first = cache.call(
        before.segments,
        before.breakpoints.map((b) => b.segment),
      );
      const total = before.segments.reduce((s, x) => s + x.tokens, 0);
      assert.equal(first.cacheWriteTokens, total, 'the previous call wrote all of its request');
      const second = cache.call(
        layout.segments,
        layout.breakpoints.map((b) => b.segment),
      );
      assert.equal(second.cacheReadTokens, total, 'the next call reads all of the previous one');
    }),
    { numRuns: RUNS },
  );
});
