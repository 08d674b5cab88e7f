// The loopback server rejects what the real API rejects, with the real message (BadRequestError through the
// real @anthropic-ai/sdk); consecutive same-role messages are merged; the context window is enforced.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BadRequestError } from '@anthropic-ai/sdk';
import { countTextTokens } from './anthropic-server';
import { rejection } from '../helpers/async';
import { loopbackWithSdk, MODEL, raw } from './sdkTestSupport';

const sdk = loopbackWithSdk();
const { server } = sdk;

/** Invalid bodies: what each case is, the body, and the real API's error message. */
const INVALID_BODIES: Array<[string, Record<string, unknown>, string]> = [
  ['missing model', { max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }, 'model: Field required'],
  [
    'a tool name outside ^[a-zA-Z0-9_-]{1,64}$ (e.g. an MCP tool named with a dot)',
    {
      model: MODEL,
      max_tokens: 10,
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ name: 'mcp__fs__read.file', input_schema: { type: 'object' } }],
    },
    "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'",
  ],
  [
    'two tools with one name',
    {
      model: MODEL,
      max_tokens: 10,
      messages: [{ role: 'user', content: 'hi' }],
      tools: [
        { name: 'echo', input_schema: { type: 'object' } },
        { name: 'echo', input_schema: { type: 'object' } },
      ],
    },
    'tools: Tool names must be unique.',
  ],
  ['missing max_tokens', { model: MODEL, messages: [{ role: 'user', content: 'hi' }] }, 'max_tokens: Field required'],
  ['missing messages', { model: MODEL, max_tokens: 10 }, 'messages: Field required'],
  [
    'first message from the assistant',
    {
      model: MODEL,
      max_tokens: 10,
      messages: [
        { role: 'assistant', content: 'hello' },
        { role: 'user', content: 'hi' },
      ],
    },
    'messages: first message must use the "user" role',
  ],
  [
    'empty content in a non-final message',
    {
      model: MODEL,
      max_tokens: 10,
      messages: [
        { role: 'user', content: 'a' },
        { role: 'assistant', content: '' },
        { role: 'user', content: 'b' },
      ],
    },
    'messages.1: all messages must have non-empty content except for the optional final assistant message',
  ],
  [
    'empty content array in a user message',
    { model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: [] }] },
    'messages.0: all messages must have non-empty content except for the optional final assistant message',
  ],
  [
    'whitespace-only text block',
    { model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: [{ type: 'text', text: '  \n' }] }] },
    'messages: text content blocks must contain non-whitespace text',
  ],
  [
    'tool_use without tool_result in the next message',
    {
      model: MODEL,
      max_tokens: 10,
      messages: [
        { role: 'user', content: 'do it' },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'toolu_A', name: 'x', input: {} },
            { type: 'tool_use', id: 'toolu_B', name: 'y', input: {} },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_A', content: 'ok' }] },
      ],
    },
    'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_B.' +
      ' Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
  ],
  [
    'tool_use answered only after an intervening text turn',
    {
      model: MODEL,
      max_tokens: 10,
      messages: [
        { role: 'user', content: 'do it' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_A', name: 'x', input: {} }] },
        { role: 'user', content: 'wait' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_A', content: 'late' }] },
      ],
    },
    'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_A.' +
      ' Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
  ],
  [
    'tool_result whose tool_use is not in the previous assistant message',
    {
      model: MODEL,
      max_tokens: 10,
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'result:' },
            { type: 'tool_result', tool_use_id: 'toolu_ghost', content: 'x' },
          ],
        },
      ],
    },
    'messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_ghost.' +
      ' Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
  ],
];

describe('validation errors surface as BadRequestError with the real message', () => {
  for (const [name, body, message] of INVALID_BODIES) {
    test(`${name} → 400 "${message.slice(0, 60)}…"`, async () => {
      server.queue.text('must not be consumed');
      const err = await rejection(sdk.client.messages.create(raw(body)));
      assert.ok(err instanceof BadRequestError, `expected BadRequestError, got ${String(err)}`);
      assert.equal(err.status, 400);
      assert.equal(err.type, 'invalid_request_error');
      assert.equal(err.apiMessage, message);
      assert.deepEqual(err.error, { type: 'error', error: { type: 'invalid_request_error', message }, request_id: err.requestID });
      assert.match(err.requestID ?? '', /^req_011C/);
      assert.equal(err.headers.get('x-should-retry'), 'false');
      assert.equal(server.queue.length, 1, 'an invalid request does not consume a scripted reply');
      assert.equal(server.requests[0]!.source, 'validation');
    });
  }
});

test('consecutive same-role messages are merged (documented API behaviour), so tool pairing spans them', async () => {
  server.queue.text('merged fine');
  const msg = await sdk.client.messages.create({
    model: MODEL,
    max_tokens: 20,
    messages: [
      { role: 'user', content: 'first' },
      { role: 'user', content: 'second' },
      { role: 'assistant', content: 'thinking out loud' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_M', name: 'x', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_M', content: 'done' }] },
      { role: 'user', content: 'and more' },
    ],
  });
  assert.deepEqual(msg.content, [{ type: 'text', text: 'merged fine' }]);
});

test('prompt over the model context window → 400 "prompt is too long: N tokens > M maximum"', async () => {
  const content = 'lorem ipsum dolor sit amet '.repeat(20);
  const n = countTextTokens(content);
  assert.ok(n > 40);
  const err = await rejection(sdk.client.messages.create({ model: 'tiny-model', max_tokens: 10, messages: [{ role: 'user', content }] }));
  assert.ok(err instanceof BadRequestError);
  assert.equal(err.apiMessage, `prompt is too long: ${n} tokens > 40 maximum`);
  // The same prompt fits the default 200000-token window of another model.
  server.queue.text('fits');
  const ok = await sdk.client.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content }] });
  assert.equal(ok.usage.input_tokens, n);
});
