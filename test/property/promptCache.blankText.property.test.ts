// Property: the agent's cache breakpoints skip text blocks that are empty or only whitespace. The main
// prompt-cache property's conversations never contain such blocks, so its "no breakpoint on empty text"
// check never meets one; here the same conversations get blank text blocks ('', spaces, newlines) at
// the end of some messages (the last one often), as models and harnesses do write them. Every request
// must still be one the API accepts, with the history breakpoint on the last block that can carry one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { toApiMessages, type ContentBlock, type Message } from '../../src/core/conversation/conversation';
import { messageStreamParams } from '../../src/agent/loop/modelRequest';
import { countCacheBreakpoints, type PromptCaching } from '../../src/agent/loop/promptCache';
import { WorkspaceTools } from '../../src/agent/tools';
import type { MessagesRequestBody } from '../loopback/anthropic-server';
import { cacheLayout, canonicalJson } from '../loopback/promptCache';
import { asBlocks } from '../helpers/cacheControl';
import { conversationArb } from './arbitraries';

const RUNS = Number(process.env.SPLITPOINT_CACHE_PROPERTY_RUNS ?? 150);
const TOOLS = new WorkspaceTools({ root: process.cwd() }).definitions();

const blank = fc.constantFrom('', ' ', '\n', '\n\n', ' \t\n ');

/** Conversations with blank text blocks appended to some messages; the last message gets one often. */
const withBlankText = fc
  .tuple(conversationArb, fc.array(fc.tuple(fc.nat(), blank), { maxLength: 4 }), fc.option(blank, { freq: 2, nil: undefined }))
  .map(([conversation, picks, onLast]) => {
    const out: Message[] = conversation.map((m) => ({ ...m }));
    const append = (i: number, text: string): void => {
      const m = out[i];
      const blocks: ContentBlock[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : [...m.content];
      out[i] = { ...m, content: [...blocks, { type: 'text', text }] };
    };
    for (const [at, text] of picks) append(at % out.length, text);
    if (onLast !== undefined) append(out.length - 1, onLast);
    return out;
  });

function request(messages: ReturnType<typeof toApiMessages>, caching: PromptCaching): MessagesRequestBody {
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

type Wire = { type: string; text?: unknown; cache_control?: unknown };

/** `message.block` of every message block that carries cache_control. */
function marked(body: MessagesRequestBody): string[] {
  const out: string[] = [];
  (body.messages ?? []).forEach((m, i) => {
    if (typeof m.content !== 'string') (m.content as Wire[]).forEach((b, j) => b.cache_control && out.push(`${i}.${j}`));
  });
  return out;
}

/** The last block of the request that can carry a breakpoint (not thinking, not blank text), found independently. */
function lastCarrier(body: MessagesRequestBody): string | undefined {
  const messages = body.messages ?? [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const content = messages[i].content;
    const blocks: Wire[] = typeof content === 'string' ? [{ type: 'text', text: content }] : (content as Wire[]);
    for (let j = blocks.length - 1; j >= 0; j--) {
      const b = blocks[j];
      if (b.type === 'thinking' || b.type === 'redacted_thinking') continue;
      if (b.type === 'text' && String(b.text ?? '').trim() === '') continue;
      return `${i}.${j}`;
    }
  }
  return undefined;
}

test('blank text blocks never carry a breakpoint; the history breakpoint is on the last block that can; the API accepts the request', () => {
  let blankSeen = 0;
  fc.assert(
    fc.property(withBlankText, fc.constantFrom<PromptCaching>('5m', '1h'), (conversation, caching) => {
      const messages = toApiMessages(conversation);
      const snapshot = JSON.stringify(conversation);
      const body = request(messages, caching);
      assert.equal(JSON.stringify(conversation), snapshot, 'the session messages are not modified');
      assert.deepEqual(asBlocks(body.messages), asBlocks(messages as MessagesRequestBody['messages']), 'the same blocks, only marked');
      const n = countCacheBreakpoints(body);
      assert.ok(n <= 4 && n >= 3, `${n} breakpoints`);
      for (const m of body.messages ?? []) {
        if (typeof m.content === 'string') continue;
        for (const b of m.content as Wire[]) {
          if (b.type !== 'text' || String(b.text ?? '').trim() !== '') continue;
          blankSeen++;
          assert.equal(b.cache_control, undefined, `breakpoint on the blank text ${JSON.stringify(b.text)}`);
        }
      }
      assert.equal(marked(body).at(-1), lastCarrier(body), 'the history breakpoint is on the last block that can carry one');
      const chars = (v: unknown) => Math.ceil(canonicalJson(v).length / 4);
      const layout = cacheLayout(body, { block: chars, tool: chars, text: chars, scale: 1, perRequest: 0, perMessage: 0 });
      if ('error' in layout) assert.fail(`the API would reject the request: ${layout.error}`);
    }),
    { numRuns: RUNS },
  );
  assert.ok(blankSeen > RUNS / 2, `blank text blocks met: ${blankSeen}`);
});
