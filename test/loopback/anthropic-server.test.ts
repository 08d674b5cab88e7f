// Tests for the loopback Anthropic server, driven through the real @anthropic-ai/sdk.
import { test, describe, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic, {
  APIConnectionError,
  APIError,
  APIUserAbortError,
  BadRequestError,
  InternalServerError,
  OverloadedError,
} from '@anthropic-ai/sdk';
import { LoopbackAnthropic, countRequestTokens, countTextTokens, lastUserText, reply, type MessagesRequestBody } from './anthropic-server';
import { rejection } from '../helpers/async';

const MODEL = 'claude-test-model';

type CreateParams = Anthropic.MessageCreateParamsNonStreaming;

/** Sends a body the SDK's types would not allow (the SDK does not validate at runtime). */
function raw(body: Record<string, unknown>): CreateParams {
  return body as unknown as CreateParams;
}

/** An SSE event's data as parsed from the raw wire (only the fields the tests read). */
interface WireEvent {
  type: string;
  index?: number;
  message?: { stop_reason: unknown; content: unknown[]; usage: { input_tokens: number } };
  content_block?: Record<string, unknown>;
  delta?: { type?: string; stop_reason?: string; partial_json?: string };
  usage?: { output_tokens: number };
}

describe('LoopbackAnthropic with the real SDK', () => {
  const server = new LoopbackAnthropic({ contextWindows: { 'tiny-model': 40 } });
  let baseURL = '';
  let client: Anthropic;

  before(async () => {
    ({ baseURL } = await server.start());
    client = new Anthropic({ apiKey: 'test', baseURL, maxRetries: 0 });
  });
  after(() => server.close());
  beforeEach(() => server.reset());

  test('non-streaming text reply has msg_ id, end_turn, request id and tokenizer usage', async () => {
    server.queue.text('Hello from the loopback.');
    const prompt = 'Say hello, please.';
    const msg = await client.messages.create({ model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: prompt }] });
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
    const stream = client.messages.stream({ model: MODEL, max_tokens: 200, messages: [{ role: 'user', content: 'Stream please' }] });
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
    const res = await fetch(`${baseURL}/v1/messages`, {
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
    const stream = client.messages.stream({
      model: MODEL,
      max_tokens: 500,
      tools: [
        { name: 'read_file', description: 'Read a file', input_schema: { type: 'object', properties: { path: { type: 'string' } } } },
      ],
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
    const msg = await client.messages.create({ model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: 'go' }] });
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
    const first = await client.messages.create({ model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: 'list' }] });
    const use = first.content[0] as Anthropic.ToolUseBlock;
    const second = await client.messages.create({
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
    const stream = client.messages.stream({ model: MODEL, max_tokens: 300, messages: [{ role: 'user', content: '2+2?' }] });
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
    const a = await client.messages.stream({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }).finalMessage();
    assert.deepEqual(a.content, [{ type: 'text', text: '' }]);
    assert.equal(a.usage.output_tokens, 1, 'output_tokens is non-zero even for an empty reply');
    const b = await client.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] });
    assert.deepEqual(b.content, []);
    assert.equal(b.stop_reason, 'end_turn');
  });

  test('a reply longer than max_tokens is cut at the token limit with stop_reason max_tokens', async () => {
    const long = 'one two three four five six seven eight nine ten eleven twelve';
    server.queue.text(long).text(long);
    const msg = await client.messages.create({ model: MODEL, max_tokens: 5, messages: [{ role: 'user', content: 'count' }] });
    assert.equal(msg.stop_reason, 'max_tokens');
    const text = (msg.content[0] as Anthropic.TextBlock).text;
    assert.equal(countTextTokens(text), 5);
    assert.ok(long.startsWith(text));
    assert.equal(msg.usage.output_tokens, 5);
    const streamed = await client.messages
      .stream({ model: MODEL, max_tokens: 5, messages: [{ role: 'user', content: 'count' }] })
      .finalMessage();
    assert.equal(streamed.stop_reason, 'max_tokens');
    assert.equal((streamed.content[0] as Anthropic.TextBlock).text, text);
  });

  describe('validation errors surface as BadRequestError with the real message', () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
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
    for (const [name, body, message] of cases) {
      test(`${name} → 400 "${message.slice(0, 60)}…"`, async () => {
        server.queue.text('must not be consumed');
        const err = await rejection(client.messages.create(raw(body)));
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
    const msg = await client.messages.create({
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
    const err = await rejection(client.messages.create({ model: 'tiny-model', max_tokens: 10, messages: [{ role: 'user', content }] }));
    assert.ok(err instanceof BadRequestError);
    assert.equal(err.apiMessage, `prompt is too long: ${n} tokens > 40 maximum`);
    // The same prompt fits the default 200000-token window of another model.
    server.queue.text('fits');
    const ok = await client.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content }] });
    assert.equal(ok.usage.input_tokens, n);
  });

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

    const counted = await client.messages.countTokens(params);
    assert.deepEqual({ ...counted }, { input_tokens: expected });
    assert.equal(server.requests[0]!.path, '/v1/messages/count_tokens');
    assert.equal(server.requests[0]!.source, 'count_tokens');

    server.queue.text('Done.');
    const msg = await client.messages.create({ ...params, max_tokens: 50 });
    assert.equal(msg.usage.input_tokens, expected);
    const streamed = (server.queue.text('Done.'), await client.messages.stream({ ...params, max_tokens: 50 }).finalMessage());
    assert.equal(streamed.usage.input_tokens, expected);
  });

  test('count_tokens validates like the real API but needs no max_tokens and ignores the context window', async () => {
    const err = await rejection(client.messages.countTokens({ model: MODEL, messages: [{ role: 'assistant', content: 'x' }] }));
    assert.ok(err instanceof BadRequestError);
    assert.equal(err.apiMessage, 'messages: first message must use the "user" role');
    const big = 'lorem ipsum dolor sit amet '.repeat(20);
    const counted = await client.messages.countTokens({ model: 'tiny-model', messages: [{ role: 'user', content: big }] });
    assert.equal(counted.input_tokens, countTextTokens(big));
  });

  test('count_tokens failures come from countQueue, in order, without touching the messages queue', async () => {
    const params = { model: MODEL, messages: [{ role: 'user' as const, content: 'measure me' }] };
    server.countQueue.overloaded().error(400, 'invalid_request_error', 'count_tokens is not available for this model');
    server.queue.text('a reply');
    const overloaded = await rejection(client.messages.countTokens(params));
    assert.ok(overloaded instanceof Anthropic.APIError);
    assert.equal(overloaded.status, 529);
    const refused = await rejection(client.messages.countTokens(params));
    assert.ok(refused instanceof BadRequestError);
    assert.equal(refused.apiMessage, 'count_tokens is not available for this model');
    assert.deepEqual({ ...(await client.messages.countTokens(params)) }, { input_tokens: countTextTokens('measure me') });
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

  test('429 with retry-after is retried by the SDK after the advertised delay', async () => {
    server.queue.rateLimited(1).text('after the wait');
    const retrying = new Anthropic({ apiKey: 'test', baseURL, maxRetries: 2 });
    const msg = await retrying.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
    assert.deepEqual(msg.content, [{ type: 'text', text: 'after the wait' }]);
    assert.equal(server.requests.length, 2);
    const [first, second] = server.requests;
    assert.equal(first!.status, 429);
    assert.equal(second!.status, 200);
    assert.ok(second!.time - first!.time >= 900, `retry came after ${second!.time - first!.time} ms, expected about 1000`);
    assert.equal(first!.headers['x-stainless-retry-count'], '0');
    assert.equal(second!.headers['x-stainless-retry-count'], '1');
  });

  test('429 surfaces as RateLimitError with the retry-after header when retries are off', async () => {
    server.queue.rateLimited(7, 'Number of request tokens has exceeded your per-minute rate limit');
    const err = await rejection(client.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }));
    assert.ok(err instanceof Anthropic.RateLimitError);
    assert.equal(err.headers.get('retry-after'), '7');
    assert.equal(err.type, 'rate_limit_error');
    assert.equal(err.apiMessage, 'Number of request tokens has exceeded your per-minute rate limit');
  });

  test('529 surfaces as OverloadedError and 500 as InternalServerError when maxRetries is 0', async () => {
    server.queue.overloaded().apiError('Internal server error');
    const overloaded = await rejection(
      client.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
    );
    assert.ok(overloaded instanceof OverloadedError, `got ${String(overloaded)}`);
    assert.equal(overloaded.status, 529);
    assert.equal(overloaded.type, 'overloaded_error');
    assert.equal(overloaded.apiMessage, 'Overloaded');
    const internal = await rejection(
      client.messages.stream({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }).finalMessage(),
    );
    assert.ok(internal instanceof InternalServerError, `got ${String(internal)}`);
    assert.ok(!(internal instanceof OverloadedError));
    assert.equal(internal.status, 500);
    assert.equal(internal.type, 'api_error');
    assert.equal(server.requests.length, 2);
  });

  test('an overloaded_error event mid-stream rejects finalMessage() with an APIError of that type', async () => {
    server.queue.text('partial text that will be interrupted', {
      streamError: { afterEvents: 4, type: 'overloaded_error', message: 'Overloaded' },
    });
    const stream = client.messages.stream({ model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
    const err = await rejection(stream.finalMessage());
    assert.ok(err instanceof APIError, `got ${String(err)}`);
    assert.equal(err.type, 'overloaded_error');
    assert.equal(err.status, undefined);
  });

  test('aborting mid-stream with an AbortController rejects with APIUserAbortError and the server sees the disconnect', async () => {
    server.queue.text('a'.repeat(400), { textChunkChars: 4, chunkDelayMs: 10 });
    const controller = new AbortController();
    const stream = client.messages.stream(
      { model: MODEL, max_tokens: 500, messages: [{ role: 'user', content: 'long please' }] },
      { signal: controller.signal },
    );
    let seen = 0;
    stream.on('text', () => {
      seen++;
      if (seen === 3) controller.abort();
    });
    const err = await rejection(stream.finalMessage());
    assert.ok(err instanceof APIUserAbortError, `got ${String(err)}`);
    assert.ok(seen >= 3 && seen < 100, `aborted after ${seen} deltas`);
    await waitFor(() => server.requests[0]!.aborted);
  });

  test('a stalled stream and a hanging request end on abort; a dropped connection is an APIConnectionError', async () => {
    server.queue.text('never finished', { stallAfterEvents: 3 }).hang().drop();
    const c1 = new AbortController();
    const stalled = client.messages.stream(
      { model: MODEL, max_tokens: 50, messages: [{ role: 'user', content: 'x' }] },
      { signal: c1.signal },
    );
    await new Promise<void>((resolve) => stalled.on('connect', () => resolve()));
    c1.abort();
    assert.ok((await rejection(stalled.finalMessage())) instanceof APIUserAbortError);

    const c2 = new AbortController();
    const hanging = client.messages.create(
      { model: MODEL, max_tokens: 50, messages: [{ role: 'user', content: 'x' }] },
      { signal: c2.signal },
    );
    await server.waitForRequests(2);
    c2.abort();
    assert.ok((await rejection(hanging)) instanceof APIUserAbortError);
    await waitFor(() => server.requests[1]!.aborted);

    const dropped = await rejection(client.messages.create({ model: MODEL, max_tokens: 50, messages: [{ role: 'user', content: 'x' }] }));
    assert.ok(dropped instanceof APIConnectionError, `got ${String(dropped)}`);
  });

  test('a request delay holds the response back by delayMs', async () => {
    server.queue.text('late', { delayMs: 150 });
    const t0 = Date.now();
    await client.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] });
    assert.ok(Date.now() - t0 >= 140);
  });

  test('with nothing queued the server answers a non-retryable 500 naming the request', async () => {
    const retrying = new Anthropic({ apiKey: 'test', baseURL, maxRetries: 2 });
    const err = await rejection(
      retrying.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'unscripted' }] }),
    );
    assert.ok(err instanceof InternalServerError);
    assert.match(err.apiMessage ?? '', /no scripted reply for request #0 .*"unscripted"/);
    assert.equal(server.requests.length, 1, 'x-should-retry: false stops the SDK from retrying');
  });

  test('a responder function scripts replies from the request (summarizer vs agent)', async () => {
    server.responder = (req) =>
      req.body.system === 'Summarize the conversation.'
        ? reply.text(`summary of ${req.body.messages.length} messages (${req.inputTokens} tokens)`)
        : reply.toolUse('read_file', { path: lastUserText(req.body) });
    try {
      server.queue.text('queued replies come first');
      const queued = await client.messages.create({ model: MODEL, max_tokens: 50, messages: [{ role: 'user', content: 'x' }] });
      assert.deepEqual(queued.content, [{ type: 'text', text: 'queued replies come first' }]);
      const agent = await client.messages.create({ model: MODEL, max_tokens: 50, messages: [{ role: 'user', content: 'a.ts' }] });
      assert.deepEqual((agent.content[0] as Anthropic.ToolUseBlock).input, { path: 'a.ts' });
      const summary = await client.messages.create({
        model: MODEL,
        max_tokens: 50,
        system: 'Summarize the conversation.',
        messages: [
          { role: 'user', content: 'one' },
          { role: 'assistant', content: 'two' },
          { role: 'user', content: 'three' },
        ],
      });
      const tokens =
        countTextTokens('Summarize the conversation.') + countTextTokens('one') + countTextTokens('two') + countTextTokens('three');
      assert.deepEqual(summary.content, [{ type: 'text', text: `summary of 3 messages (${tokens} tokens)` }]);
      assert.deepEqual(
        server.requests.map((r) => r.source),
        ['queue', 'responder', 'responder'],
      );
    } finally {
      server.responder = undefined;
    }
  });

  test('authentication: no x-api-key → 401 authentication_error; no anthropic-version → 400', async () => {
    const body = JSON.stringify({ model: MODEL, max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] });
    const noKey = await fetch(`${baseURL}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body,
    });
    assert.equal(noKey.status, 401);
    const noKeyBody = (await noKey.json()) as { type: string; error: { type: string; message: string } };
    assert.equal(noKeyBody.type, 'error');
    assert.deepEqual(noKeyBody.error, { type: 'authentication_error', message: 'x-api-key header is required' });
    assert.match(noKey.headers.get('request-id') ?? '', /^req_/);

    const noVersion = await fetch(`${baseURL}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
      body,
    });
    assert.equal(noVersion.status, 400);
    assert.deepEqual(((await noVersion.json()) as { error: unknown }).error, {
      type: 'invalid_request_error',
      message: 'anthropic-version: header is required',
    });
  });
});

describe('LoopbackAnthropic options', () => {
  test('apiKey option: a wrong key is an AuthenticationError "invalid x-api-key"', async () => {
    const server = new LoopbackAnthropic({ apiKey: 'right' });
    const { baseURL } = await server.start();
    try {
      const client = new Anthropic({ apiKey: 'wrong', baseURL, maxRetries: 0 });
      const err = await rejection(client.messages.create({ model: MODEL, max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }));
      assert.ok(err instanceof Anthropic.AuthenticationError);
      assert.equal(err.apiMessage, 'invalid x-api-key');
    } finally {
      await server.close();
    }
  });

  test('tokenScale multiplies reported tokens and the context-window check uses the scaled count', async () => {
    const content = 'the quick brown fox jumps over the lazy dog';
    const longer = `${content} ${content}`;
    const window = countTextTokens(longer); // fits unscaled, not once scaled by 1.5
    const server = new LoopbackAnthropic({ tokenScale: 1.5, contextWindows: { small: window } });
    const { baseURL } = await server.start();
    try {
      const client = new Anthropic({ apiKey: 'test', baseURL, maxRetries: 0 });
      const raw = countTextTokens(content);
      server.queue.text('ok');
      const msg = await client.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content }] });
      assert.equal(msg.usage.input_tokens, Math.round(raw * 1.5));
      assert.equal(msg.usage.output_tokens, Math.round(countTextTokens('ok') * 1.5) || 1);
      assert.equal(
        (await client.messages.countTokens({ model: MODEL, messages: [{ role: 'user', content }] })).input_tokens,
        Math.round(raw * 1.5),
      );
      const scaled = Math.round(window * 1.5);
      const err = await rejection(
        client.messages.create({ model: 'small', max_tokens: 10, messages: [{ role: 'user', content: longer }] }),
      );
      assert.ok(err instanceof BadRequestError);
      assert.equal(err.apiMessage, `prompt is too long: ${scaled} tokens > ${window} maximum`);
    } finally {
      await server.close();
    }
  });

  test("consecutiveRoles: 'reject' reproduces the strict alternation error; whenEmpty: 'echo' echoes", async () => {
    const server = new LoopbackAnthropic({ consecutiveRoles: 'reject', whenEmpty: 'echo' });
    const { baseURL } = await server.start();
    try {
      const client = new Anthropic({ apiKey: 'test', baseURL, maxRetries: 0 });
      const err = await rejection(
        client.messages.create({
          model: MODEL,
          max_tokens: 10,
          messages: [
            { role: 'user', content: 'a' },
            { role: 'user', content: 'b' },
          ],
        }),
      );
      assert.ok(err instanceof BadRequestError);
      assert.equal(
        err.apiMessage,
        'messages: roles must alternate between "user" and "assistant", but found multiple "user" roles in a row',
      );
      const echoed = await client.messages.create({ model: MODEL, max_tokens: 50, messages: [{ role: 'user', content: 'ping me back' }] });
      assert.deepEqual(echoed.content, [{ type: 'text', text: 'echo: ping me back' }]);
      assert.equal(server.lastRequest!.source, 'fallback');
    } finally {
      await server.close();
    }
  });

  test('close() ends a hanging request and is idempotent', async () => {
    const server = new LoopbackAnthropic();
    const { baseURL } = await server.start();
    server.queue.hang();
    const client = new Anthropic({ apiKey: 'test', baseURL, maxRetries: 0 });
    const pending = client.messages.create({ model: MODEL, max_tokens: 5, messages: [{ role: 'user', content: 'x' }] });
    await server.waitForRequests(1);
    await server.close();
    await server.close();
    assert.ok((await rejection(pending)) instanceof APIConnectionError);
  });
});

async function waitFor(cond: () => boolean, timeoutMs = 2000): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > timeoutMs) assert.fail('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}
