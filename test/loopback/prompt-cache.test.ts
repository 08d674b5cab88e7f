// The loopback server's prompt cache, driven through the real @anthropic-ai/sdk: exact-prefix reads at
// breakpoints (and within the 20-block lookback), writes only from the model's minimum length, TTLs,
// the 4-breakpoint limit and the other cache_control errors the API gives, usage reported in the JSON
// reply and in the stream like the API (input_tokens = what is neither read nor written).
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic, { BadRequestError } from '@anthropic-ai/sdk';
import { LoopbackAnthropic, countTextTokens, type ValidRequest } from './anthropic-server';
import { rejection } from '../helpers/async';

const MODEL = 'claude-cache-test';
const EPHEMERAL = { type: 'ephemeral' } as const;
const HOUR = { type: 'ephemeral', ttl: '1h' } as const;

/** A text of exactly `n` o200k tokens ("w0 w1 …" pieces are one token each after the first). */
function textOf(n: number, tag: string): string {
  const words: string[] = [];
  let text = tag;
  while (countTextTokens(text) < n) {
    words.push(' a');
    text = tag + words.join('');
  }
  assert.equal(countTextTokens(text), n, `textOf(${n}) has ${countTextTokens(text)} tokens`);
  return text;
}

type Params = Anthropic.MessageCreateParamsNonStreaming;
type Block = Anthropic.TextBlockParam;

function text(t: string, cache?: Anthropic.CacheControlEphemeral): Block {
  return cache ? { type: 'text', text: t, cache_control: cache } : { type: 'text', text: t };
}

// One server for the file; each test starts from an empty cache and a fresh clock (beforeEach).
let clock = 1_000_000;
const server = new LoopbackAnthropic({ promptCache: { minTokens: 100, now: () => clock } });
let client: Anthropic;
const SYSTEM = textOf(120, 'System:');
const U1 = textOf(60, 'First:');
const A1 = textOf(30, 'Answer:');
const U2 = textOf(40, 'Second:');

before(async () => {
  const { baseURL } = await server.start();
  client = new Anthropic({ apiKey: 'test', baseURL, maxRetries: 0 });
});
after(() => server.close());
beforeEach(() => {
  server.reset();
  server.clearPromptCache();
  clock = 1_000_000;
});

const turn1 = (): Params => ({
  model: MODEL,
  max_tokens: 50,
  system: [text(SYSTEM, EPHEMERAL)],
  messages: [{ role: 'user', content: [text(U1, EPHEMERAL)] }],
});
const turn2 = (cache: Anthropic.CacheControlEphemeral = EPHEMERAL): Params => ({
  model: MODEL,
  max_tokens: 50,
  system: [text(SYSTEM, EPHEMERAL)],
  messages: [
    { role: 'user', content: [text(U1)] },
    { role: 'assistant', content: A1 },
    { role: 'user', content: [text(U2, cache)] },
  ],
});

test('turn 2 reads the prefix turn 1 wrote and writes only its new tail; input_tokens is the rest', async () => {
  server.queue.text('one').text('two');
  const first = await client.messages.create(turn1());
  assert.equal(first.usage.cache_read_input_tokens, 0);
  assert.equal(first.usage.cache_creation_input_tokens, 180, 'system + first prompt written');
  assert.equal(first.usage.input_tokens, 0);
  assert.deepEqual(first.usage.cache_creation, { ephemeral_5m_input_tokens: 180, ephemeral_1h_input_tokens: 0 });

  const second = await client.messages.create(turn2());
  assert.equal(second.usage.cache_read_input_tokens, 180, 'the exact prefix up to the old breakpoint, found by lookback');
  assert.equal(second.usage.cache_creation_input_tokens, 70, 'answer + second prompt');
  assert.equal(second.usage.input_tokens, 0);
  const req = server.messageRequests[1] as ValidRequest;
  assert.equal(req.inputTokens, 250);
  assert.equal(req.cache?.cachedSegments, 2, 'system block + first prompt block');
  assert.deepEqual(
    req.cache?.breakpoints.map((b) => b.path),
    ['system.0', 'messages.2.content.0'],
  );
});

test('the stream reports the same usage in message_start and message_delta', async () => {
  server.queue.text('one').text('two');
  await client.messages.create(turn1());
  const starts: Anthropic.Usage[] = [];
  const stream = client.messages.stream(turn2());
  stream.on('streamEvent', (e) => {
    if (e.type === 'message_start') starts.push(e.message.usage);
  });
  const msg = await stream.finalMessage();
  assert.equal(starts[0]?.cache_read_input_tokens, 180);
  assert.equal(starts[0]?.cache_creation_input_tokens, 70);
  assert.equal(starts[0]?.input_tokens, 0);
  assert.equal(msg.usage.cache_read_input_tokens, 180);
  assert.equal(msg.usage.cache_creation_input_tokens, 70);
});

test('a changed block invalidates everything after it: only the unchanged system prefix is read', async () => {
  server.queue.text('one').text('two');
  await client.messages.create(turn1());
  const changed = turn2();
  (changed.messages[0].content as Block[])[0] = text(`${U1.slice(0, -1)}b`);
  const second = await client.messages.create(changed);
  assert.equal(second.usage.cache_read_input_tokens, 120, 'system only (its own breakpoint)');
  assert.equal(second.usage.cache_creation_input_tokens, 130);
  assert.equal(second.usage.input_tokens, 0);
});

test('cache_control is not part of the key; no breakpoint at the end means uncached input after the read', async () => {
  server.queue.text('one').text('two');
  await client.messages.create(turn1());
  const body = turn2();
  (body.messages[2].content as Block[])[0] = text(U2);
  (body.messages[0].content as Block[])[0] = text(U1, EPHEMERAL);
  const second = await client.messages.create(body);
  assert.equal(second.usage.cache_read_input_tokens, 180);
  assert.equal(second.usage.cache_creation_input_tokens, 0);
  assert.equal(second.usage.input_tokens, 70);
});

test('a prefix shorter than the minimum is not cached (silently)', async () => {
  server.queue.text('one').text('two');
  const short: Params = { model: MODEL, max_tokens: 50, messages: [{ role: 'user', content: [text(U1, EPHEMERAL)] }] };
  const first = await client.messages.create(short);
  assert.deepEqual([first.usage.cache_creation_input_tokens, first.usage.input_tokens], [0, 60]);
  const again = await client.messages.create(short);
  assert.deepEqual([again.usage.cache_read_input_tokens, again.usage.input_tokens], [0, 60]);
});

test('the lookback finds an entry up to 20 blocks before a breakpoint, not further', async () => {
  const blocks = (n: number): Block[] => Array.from({ length: n }, (_, i) => text(`note ${i}`));
  const body = (extra: number): Params => ({
    model: MODEL,
    max_tokens: 50,
    system: [text(SYSTEM)],
    messages: [{ role: 'user', content: [text(U1, EPHEMERAL), ...blocks(extra)] }],
  });
  const at = (extra: number): Params => {
    const b = body(extra);
    const content = b.messages[0].content as Block[];
    content[0] = text(U1);
    content[content.length - 1] = text(content[content.length - 1].text, EPHEMERAL);
    return b;
  };
  server.queue.text('one').text('near').text('far');
  await client.messages.create(body(0));
  const near = await client.messages.create(at(20));
  assert.equal(near.usage.cache_read_input_tokens, 180, '20 blocks back: found');
  server.clearPromptCache();
  server.queue.text('again');
  await client.messages.create(body(0));
  const far = await client.messages.create(at(21));
  assert.equal(far.usage.cache_read_input_tokens, 0, '21 blocks back: not found');
});

test('TTLs: a 5m entry expires after 5 minutes without use, a 1h entry lives on; the write is split by TTL', async () => {
  server.queue.text('a').text('b').text('c').text('d');
  await client.messages.create(turn1());
  clock += 4 * 60_000;
  const refreshed = await client.messages.create(turn1());
  assert.equal(refreshed.usage.cache_read_input_tokens, 180, 'read within 5 minutes (and refreshed)');
  clock += 5 * 60_000 + 1;
  const expired = await client.messages.create(turn1());
  assert.equal(expired.usage.cache_read_input_tokens, 0, 'expired 5 minutes after its last use');

  server.clearPromptCache();
  const hourly: Params = { ...turn1(), system: [text(SYSTEM, HOUR)], messages: [{ role: 'user', content: [text(U1, HOUR)] }] };
  server.queue.text('e').text('f');
  const written = await client.messages.create(hourly);
  assert.deepEqual(written.usage.cache_creation, { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 180 });
  clock += 30 * 60_000;
  const later = await client.messages.create(hourly);
  assert.equal(later.usage.cache_read_input_tokens, 180, 'a 1h entry after 30 minutes');
});

test('mixed TTLs: 1h before 5m is split; 1h after 5m is the API error', async () => {
  server.queue.text('a');
  const mixed = turn1();
  mixed.system = [text(SYSTEM, HOUR)];
  const msg = await client.messages.create(mixed);
  assert.deepEqual(msg.usage.cache_creation, { ephemeral_5m_input_tokens: 60, ephemeral_1h_input_tokens: 120 });
  const wrong = turn2(HOUR);
  const err = await rejection(client.messages.create(wrong));
  assert.ok(err instanceof BadRequestError);
  assert.match(
    err.message,
    /messages\.2\.content\.0\.cache_control\.ttl: a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block/,
  );
});

test('more than 4 breakpoints: 400 invalid_request_error, on messages and count_tokens alike; no reply is consumed', async () => {
  server.queue.text('not used');
  const tools: Anthropic.Tool[] = ['a', 'b', 'c'].map((name) => ({
    name,
    description: `tool ${name}`,
    input_schema: { type: 'object' },
    cache_control: EPHEMERAL,
  }));
  const body = { ...turn2(), tools };
  const err = await rejection(client.messages.create(body));
  assert.ok(err instanceof BadRequestError);
  assert.equal(err.status, 400);
  assert.equal((err.error as { error: { type: string } }).error.type, 'invalid_request_error');
  assert.match(err.message, /A maximum of 4 blocks with cache_control may be provided\. Found 5\./);
  const counted = await rejection(client.messages.countTokens({ model: MODEL, system: body.system, tools, messages: body.messages }));
  assert.match((counted as Error).message, /Found 5\./);
  assert.equal(server.queue.length, 1);
  // A nested block inside a tool_result counts too.
  const nested = await rejection(
    client.messages.create({
      ...body,
      tools: tools.slice(0, 2),
      messages: [
        { role: 'user', content: [text(U1, EPHEMERAL)] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'a', input: {} }] },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [text('out', EPHEMERAL)], cache_control: EPHEMERAL }],
        },
      ],
    }),
  );
  assert.match((nested as Error).message, /Found 6\./);
});

test('cache_control on thinking, on an empty system text block or with a bad type/ttl is rejected', async () => {
  const thinking = rejection(
    client.messages.create({
      model: MODEL,
      max_tokens: 50,
      messages: [
        { role: 'user', content: 'q' },
        {
          role: 'assistant',
          content: [{ type: 'thinking', thinking: 'hm', signature: 's', cache_control: EPHEMERAL } as never, text('a')],
        },
        { role: 'user', content: 'again' },
      ],
    }),
  );
  assert.match(((await thinking) as Error).message, /messages\.1\.content\.0\.thinking\.cache_control: Extra inputs are not permitted/);
  const empty = await rejection(client.messages.create({ ...turn1(), system: [text('', EPHEMERAL)] }));
  assert.match((empty as Error).message, /system\.0\.text: cache_control cannot be set for empty text blocks/);
  const badTtl = await rejection(client.messages.create({ ...turn1(), system: [text(SYSTEM, { type: 'ephemeral', ttl: '2h' } as never)] }));
  assert.match((badTtl as Error).message, /system\.0\.cache_control\.ttl: Input should be '5m' or '1h'/);
});

test('scripted usage overrides win over the cache; the cache is still updated', async () => {
  server.queue.text('one', { usage: { input_tokens: 7, cache_read_input_tokens: 3 } }).text('two');
  const first = await client.messages.create(turn1());
  assert.deepEqual([first.usage.input_tokens, first.usage.cache_read_input_tokens, first.usage.cache_creation_input_tokens], [7, 3, 180]);
  const second = await client.messages.create(turn2());
  assert.equal(second.usage.cache_read_input_tokens, 180);
});

test('an error reply neither reads nor writes the cache', async () => {
  server.queue.apiError().text('ok');
  await rejection(client.messages.create(turn1()));
  const after = await client.messages.create(turn1());
  assert.equal(after.usage.cache_read_input_tokens, 0);
  assert.equal(after.usage.cache_creation_input_tokens, 180);
});
