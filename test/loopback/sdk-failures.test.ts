// Failures through the real @anthropic-ai/sdk: HTTP errors and retries, errors mid-stream, aborts, stalls,
// hangs, drops, delays, and the answer when nothing is queued.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic, { APIConnectionError, APIError, APIUserAbortError, InternalServerError, OverloadedError } from '@anthropic-ai/sdk';

import { rejection } from '../helpers/async';
import { loopbackWithSdk, MODEL, waitFor } from './sdkTestSupport';

const sdk = loopbackWithSdk();
const { server } = sdk;

test('429 with retry-after is retried by the SDK after the advertised delay', async () => {
  server.queue.rateLimited(1).text('after the wait');
  const retrying = new Anthropic({ apiKey: 'test', baseURL: sdk.baseURL, maxRetries: 2 });
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
  const err = await rejection(sdk.client.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }));
  assert.ok(err instanceof Anthropic.RateLimitError);
  assert.equal(err.headers.get('retry-after'), '7');
  assert.equal(err.type, 'rate_limit_error');
  assert.equal(err.apiMessage, 'Number of request tokens has exceeded your per-minute rate limit');
});

test('529 surfaces as OverloadedError and 500 as InternalServerError when maxRetries is 0', async () => {
  server.queue.overloaded().apiError('Internal server error');
  const overloaded = await rejection(
    sdk.client.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
  );
  assert.ok(overloaded instanceof OverloadedError, `got ${String(overloaded)}`);
  assert.equal(overloaded.status, 529);
  assert.equal(overloaded.type, 'overloaded_error');
  assert.equal(overloaded.apiMessage, 'Overloaded');
  const internal = await rejection(
    sdk.client.messages.stream({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }).finalMessage(),
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
  const stream = sdk.client.messages.stream({ model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
  const err = await rejection(stream.finalMessage());
  assert.ok(err instanceof APIError, `got ${String(err)}`);
  assert.equal(err.type, 'overloaded_error');
  assert.equal(err.status, undefined);
});

test('aborting mid-stream with an AbortController rejects with APIUserAbortError and the server sees the disconnect', async () => {
  server.queue.text('a'.repeat(400), { textChunkChars: 4, chunkDelayMs: 10 });
  const controller = new AbortController();
  const stream = sdk.client.messages.stream(
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
  const stalled = sdk.client.messages.stream(
    { model: MODEL, max_tokens: 50, messages: [{ role: 'user', content: 'x' }] },
    { signal: c1.signal },
  );
  await new Promise<void>((resolve) => stalled.on('connect', () => resolve()));
  c1.abort();
  assert.ok((await rejection(stalled.finalMessage())) instanceof APIUserAbortError);

  const c2 = new AbortController();
  const hanging = sdk.client.messages.create(
    { model: MODEL, max_tokens: 50, messages: [{ role: 'user', content: 'x' }] },
    { signal: c2.signal },
  );
  await server.waitForRequests(2);
  c2.abort();
  assert.ok((await rejection(hanging)) instanceof APIUserAbortError);
  await waitFor(() => server.requests[1]!.aborted);

  const dropped = await rejection(sdk.client.messages.create({ model: MODEL, max_tokens: 50, messages: [{ role: 'user', content: 'x' }] }));
  assert.ok(dropped instanceof APIConnectionError, `got ${String(dropped)}`);
});

test('a request delay holds the response back by delayMs', async () => {
  server.queue.text('late', { delayMs: 150 });
  const t0 = Date.now();
  await sdk.client.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] });
  assert.ok(Date.now() - t0 >= 140);
});

test('with nothing queued the server answers a non-retryable 500 naming the request', async () => {
  const retrying = new Anthropic({ apiKey: 'test', baseURL: sdk.baseURL, maxRetries: 2 });
  const err = await rejection(
    retrying.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'unscripted' }] }),
  );
  assert.ok(err instanceof InternalServerError);
  assert.match(err.apiMessage ?? '', /no scripted reply for request #0 .*"unscripted"/);
  assert.equal(server.requests.length, 1, 'x-should-retry: false stops the SDK from retrying');
});
