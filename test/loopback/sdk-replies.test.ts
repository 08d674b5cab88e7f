// The loopback server's replies through the real @anthropic-ai/sdk: text, streaming (SDK and raw SSE wire),
// tool_use, thinking, empty replies and the max_tokens cut.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type Anthropic from '@anthropic-ai/sdk';
import { countTextTokens, lastUserText } from './anthropic-server';
import { loopbackWithSdk, MODEL, type WireEvent } from './sdkTestSupport';

const sdk = loopbackWithSdk();
const { server } = sdk;

test('non-streaming text reply has msg_ id, end_turn, request id and tokenizer usage', async () => {
  server.queue.text('Hello from the loopback.');
  const prompt = 'Say hello, please.';
  const msg = await sdk.client.messages.create({ model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: prompt }] });
  assert.match(msg.id, /^msg_01[1-9A-HJ-NP-Za-km-z]{22}$/);
  assert.equal(msg.type, 'message');
  assert.equal(msg.role, 'assistant');
  assert.equal(msg.model, MODEL);
  assert.equal(msg.stop_reason, 'end_turn');
  assert.deepEqual(msg.content, [{ type: 'text', text: 'Hello from the loopback.' }]);
  assert.equal(msg.usage.input_tokens, countTextTokens(prompt));
  assert.equal(msg.usage.output_tokens, countTextTokens('Hello from the loopback.'));
  const rec = server.requests[0]!;
  assert.equal(msg._request_id, rec.requestId);
  assert.match(rec.requestId, /^req_011C/);
  assert.equal(rec.path, '/v1/messages');
  // SDK 1.11 sends the key as a Bearer token (not x-api-key) and its own anthropic-version.
  assert.equal(rec.headers.authorization, 'Bearer test');
  assert.equal(rec.apiKey, 'test');
  assert.ok(rec.headers['anthropic-version']);
  assert.deepEqual(rec.body.messages, [{ role: 'user', content: prompt }]);
  assert.equal(rec.source, 'queue');
});

test('streaming text arrives in several text deltas and finalMessage() reassembles it', async () => {
  const text = 'Streaming works: this sentence is long enough to be split into several deltas.';
  server.queue.text(text, { textChunkChars: 10 });
  const stream = sdk.client.messages.stream({ model: MODEL, max_tokens: 200, messages: [{ role: 'user', content: 'Stream please' }] });
  const deltas: string[] = [];
  stream.on('text', (delta) => deltas.push(delta));
  const msg = await stream.finalMessage();
  assert.ok(deltas.length >= 8, `expected many deltas, got ${deltas.length}`);
  assert.equal(deltas.join(''), text);
  assert.equal(msg.content.length, 1);
  assert.equal(msg.content[0]!.type, 'text');
  assert.equal((msg.content[0] as Anthropic.TextBlock).text, text);
  assert.equal(msg.stop_reason, 'end_turn');
  assert.equal(msg.usage.input_tokens, countTextTokens('Stream please'));
  assert.equal(msg.usage.output_tokens, countTextTokens(text));
  assert.equal(server.requests[0]!.body.stream, true);
});

test('raw SSE wire: message_start, block events, one ping, message_delta, message_stop', async () => {
  server.queue.toolUse('lookup', { q: 'x' }, { text: 'Let me look.' });
  const res = await fetch(`${sdk.baseURL}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: MODEL, max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
  assert.match(res.headers.get('request-id') ?? '', /^req_/);
  const frames = (await res.text()).trim().split('\n\n');
  const events: WireEvent[] = frames.map((f) => {
    const [eventLine, dataLine] = f.split('\n');
    const data = JSON.parse(dataLine!.replace(/^data: /, '')) as WireEvent;
    assert.equal(data.type, eventLine!.replace(/^event: /, ''), 'the data type repeats the SSE event name');
    return data;
  });
  const types = events.map((e) => e.type);
  assert.equal(types[0], 'message_start');
  assert.deepEqual(types.slice(1, 3), ['content_block_start', 'ping']);
  assert.equal(types.filter((t) => t === 'ping').length, 1);
  assert.deepEqual(types.slice(-2), ['message_delta', 'message_stop']);
  const start = events[0]!.message!;
  assert.equal(start.stop_reason, null);
  assert.deepEqual(start.content, []);
  assert.equal(start.usage.input_tokens, countTextTokens('hi'));
  const delta = events.at(-2)!;
  assert.equal(delta.delta!.stop_reason, 'tool_use');
  assert.equal(delta.usage!.output_tokens, countTextTokens('Let me look.') + countTextTokens('lookup') + countTextTokens('{"q":"x"}'));
  const toolStart = events.find((e) => e.type === 'content_block_start' && e.index === 1)!;
  assert.deepEqual(Object.keys(toolStart.content_block!).sort(), ['id', 'input', 'name', 'type']);
  assert.deepEqual(toolStart.content_block!.input, {});
  const firstJson = events.find((e) => e.type === 'content_block_delta' && e.index === 1)!;
  assert.deepEqual(firstJson.delta, { type: 'input_json_delta', partial_json: '' });
});

test('streaming tool_use input arrives in several partial_json chunks and the SDK reassembles it', async () => {
  const input = { path: 'src/core/plan.ts', range: { start: 10, end: 42 }, note: 'read the planner' };
  server.queue.toolUse('read_file', input, { text: 'I will read the file.', jsonChunkChars: 7 });
  const stream = sdk.client.messages.stream({
    model: MODEL,
    max_tokens: 500,
    tools: [{ name: 'read_file', description: 'Read a file', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }],
    messages: [{ role: 'user', content: 'Read plan.ts' }],
  });
  const jsonParts: string[] = [];
  stream.on('inputJson', (partial) => jsonParts.push(partial));
  const msg = await stream.finalMessage();
  assert.ok(jsonParts.filter((p) => p !== '').length >= 5, `expected several partial_json chunks, got ${jsonParts.length}`);
  assert.equal(jsonParts.join(''), JSON.stringify(input));
  assert.equal(msg.stop_reason, 'tool_use');
  assert.equal(msg.content.length, 2);
  assert.deepEqual(msg.content[0], { type: 'text', text: 'I will read the file.' });
  const use = msg.content[1] as Anthropic.ToolUseBlock;
  assert.equal(use.type, 'tool_use');
  assert.equal(use.name, 'read_file');
  assert.match(use.id, /^toolu_01[1-9A-HJ-NP-Za-km-z]{22}$/);
  assert.deepEqual(use.input, input);
});

test('parallel tool_use blocks (non-streaming) each get their own toolu_ id', async () => {
  server.queue.toolUse([
    { name: 'a', input: { n: 1 } },
    { name: 'b', input: { n: 2 }, id: 'toolu_fixed' },
  ]);
  const msg = await sdk.client.messages.create({ model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: 'go' }] });
  assert.equal(msg.stop_reason, 'tool_use');
  const uses = msg.content as Anthropic.ToolUseBlock[];
  assert.deepEqual(
    uses.map((u) => [u.name, u.input]),
    [
      ['a', { n: 1 }],
      ['b', { n: 2 }],
    ],
  );
  assert.match(uses[0]!.id, /^toolu_01/);
  assert.equal(uses[1]!.id, 'toolu_fixed');
});

test('a full tool round trip (tool_use then tool_result) is accepted', async () => {
  server.queue.toolUse('ls', { dir: '.' }).text('Two files.');
  const first = await sdk.client.messages.create({ model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: 'list' }] });
  const use = first.content[0] as Anthropic.ToolUseBlock;
  const second = await sdk.client.messages.create({
    model: MODEL,
    max_tokens: 100,
    messages: [
      { role: 'user', content: 'list' },
      { role: 'assistant', content: first.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'a.ts\nb.ts' }] },
    ],
  });
  assert.deepEqual(second.content, [{ type: 'text', text: 'Two files.' }]);
  assert.equal(lastUserText(server.requests[1]!.body), 'a.ts\nb.ts');
});

test('streaming thinking block carries thinking deltas and a signature', async () => {
  server.queue.thinking('First I consider the question carefully.', 'The answer is 4.', { signature: 'sig-abc' });
  const stream = sdk.client.messages.stream({ model: MODEL, max_tokens: 300, messages: [{ role: 'user', content: '2+2?' }] });
  const thinkingDeltas: string[] = [];
  stream.on('thinking', (delta) => thinkingDeltas.push(delta));
  const msg = await stream.finalMessage();
  assert.ok(thinkingDeltas.length >= 2);
  assert.deepEqual(msg.content[0], { type: 'thinking', thinking: 'First I consider the question carefully.', signature: 'sig-abc' });
  assert.deepEqual(msg.content[1], { type: 'text', text: 'The answer is 4.' });
  assert.equal(msg.stop_reason, 'end_turn');
});

test('empty replies: one empty text block, or no blocks at all', async () => {
  server.queue.empty().empty({ noBlocks: true });
  const a = await sdk.client.messages.stream({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }).finalMessage();
  assert.deepEqual(a.content, [{ type: 'text', text: '' }]);
  assert.equal(a.usage.output_tokens, 1, 'output_tokens is non-zero even for an empty reply');
  const b = await sdk.client.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] });
  assert.deepEqual(b.content, []);
  assert.equal(b.stop_reason, 'end_turn');
});

test('a reply longer than max_tokens is cut at the token limit with stop_reason max_tokens', async () => {
  const long = 'one two three four five six seven eight nine ten eleven twelve';
  server.queue.text(long).text(long);
  const msg = await sdk.client.messages.create({ model: MODEL, max_tokens: 5, messages: [{ role: 'user', content: 'count' }] });
  assert.equal(msg.stop_reason, 'max_tokens');
  const text = (msg.content[0] as Anthropic.TextBlock).text;
  assert.equal(countTextTokens(text), 5);
  assert.ok(long.startsWith(text));
  assert.equal(msg.usage.output_tokens, 5);
  const streamed = await sdk.client.messages
    .stream({ model: MODEL, max_tokens: 5, messages: [{ role: 'user', content: 'count' }] })
    .finalMessage();
  assert.equal(streamed.stop_reason, 'max_tokens');
  assert.equal((streamed.content[0] as Anthropic.TextBlock).text, text);
});
