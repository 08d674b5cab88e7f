// Token counts through the real @anthropic-ai/sdk: usage.input_tokens and count_tokens (its validation and
// its scripted failures).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic, { BadRequestError } from '@anthropic-ai/sdk';
import { countRequestTokens, countTextTokens, type MessagesRequestBody } from './anthropic-server';
import { rejection } from '../helpers/async';
import { loopbackWithSdk, MODEL } from './sdkTestSupport';

const sdk = loopbackWithSdk();
const { server } = sdk;

test('usage.input_tokens and count_tokens both equal the o200k count of system + tools + messages', async () => {
  const params = {
    model: MODEL,
    system: 'You are a careful coding agent.',
    tools: [
      {
        name: 'edit_file',
        description: 'Replace text in a file',
        input_schema: {
          type: 'object' as const,
          properties: { path: { type: 'string' }, old: { type: 'string' }, new: { type: 'string' } },
        },
      },
    ],
    messages: [
      { role: 'user' as const, content: 'Rename foo to bar in a.ts' },
      {
        role: 'assistant' as const,
        content: [{ type: 'tool_use' as const, id: 'toolu_1', name: 'edit_file', input: { path: 'a.ts', old: 'foo', new: 'bar' } }],
      },
      { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: 'toolu_1', content: 'edited 3 lines' }] },
    ],
  };
  const expected =
    countTextTokens(params.system) +
    countTextTokens('edit_file') +
    countTextTokens('Replace text in a file') +
    countTextTokens(JSON.stringify(params.tools[0]!.input_schema)) +
    countTextTokens('Rename foo to bar in a.ts') +
    countTextTokens('edit_file') +
    countTextTokens(JSON.stringify({ path: 'a.ts', old: 'foo', new: 'bar' })) +
    countTextTokens('edited 3 lines');
  assert.equal(countRequestTokens(params as MessagesRequestBody), expected);

  const counted = await sdk.client.messages.countTokens(params);
  assert.deepEqual({ ...counted }, { input_tokens: expected });
  assert.equal(server.requests[0]!.path, '/v1/messages/count_tokens');
  assert.equal(server.requests[0]!.source, 'count_tokens');

  server.queue.text('Done.');
  const msg = await sdk.client.messages.create({ ...params, max_tokens: 50 });
  assert.equal(msg.usage.input_tokens, expected);
  const streamed = (server.queue.text('Done.'), await sdk.client.messages.stream({ ...params, max_tokens: 50 }).finalMessage());
  assert.equal(streamed.usage.input_tokens, expected);
});

test('count_tokens validates like the real API but needs no max_tokens and ignores the context window', async () => {
  const err = await rejection(sdk.client.messages.countTokens({ model: MODEL, messages: [{ role: 'assistant', content: 'x' }] }));
  assert.ok(err instanceof BadRequestError);
  assert.equal(err.apiMessage, 'messages: first message must use the "user" role');
  const big = 'lorem ipsum dolor sit amet '.repeat(20);
  const counted = await sdk.client.messages.countTokens({ model: 'tiny-model', messages: [{ role: 'user', content: big }] });
  assert.equal(counted.input_tokens, countTextTokens(big));
});

test('count_tokens failures come from countQueue, in order, without touching the messages queue', async () => {
  const params = { model: MODEL, messages: [{ role: 'user' as const, content: 'measure me' }] };
  server.countQueue.overloaded().error(400, 'invalid_request_error', 'count_tokens is not available for this model');
  server.queue.text('a reply');
  const overloaded = await rejection(sdk.client.messages.countTokens(params));
  assert.ok(overloaded instanceof Anthropic.APIError);
  assert.equal(overloaded.status, 529);
  const refused = await rejection(sdk.client.messages.countTokens(params));
  assert.ok(refused instanceof BadRequestError);
  assert.equal(refused.apiMessage, 'count_tokens is not available for this model');
  assert.deepEqual({ ...(await sdk.client.messages.countTokens(params)) }, { input_tokens: countTextTokens('measure me') });
  assert.deepEqual(
    server.requests.map((r) => [r.path, r.status, r.source]),
    [
      ['/v1/messages/count_tokens', 529, 'queue'],
      ['/v1/messages/count_tokens', 400, 'queue'],
      ['/v1/messages/count_tokens', 200, 'count_tokens'],
    ],
  );
  assert.equal(server.queue.length, 1, 'the scripted message reply is still queued');
});
