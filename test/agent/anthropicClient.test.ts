// AnthropicLlmClient and toLlmError, driven through the real @anthropic-ai/sdk against the loopback
// Messages API. Every classified error below is an error the SDK itself raised from a real HTTP
// exchange (or a refused connection), not a hand-built object.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import { AnthropicLlmClient, toLlmError } from '../../src/agent/loop/anthropicClient';
import { LlmError } from '../../src/core/pipeline/summarize';
import { LoopbackAnthropic, reply, type LoopbackOptions, type ScriptedReply, type ValidRequest } from '../loopback/anthropic-server';

const MODEL = 'claude-test-model';
const KEY = 'sk-test-key';

async function withServer<T>(options: LoopbackOptions, fn: (server: LoopbackAnthropic, baseURL: string) => Promise<T>): Promise<T> {
  const server = new LoopbackAnthropic({ apiKey: KEY, ...options });
  const { baseURL } = await server.start();
  try {
    return await fn(server, baseURL);
  } finally {
    await server.close();
  }
}

const rawClient = (baseURL: string, apiKey = KEY) => new Anthropic({ apiKey, baseURL, maxRetries: 0 });

/** The error the real SDK throws for one request (the server answering with `script`, if given). */
async function sdkError(
  server: LoopbackAnthropic,
  baseURL: string,
  opts: {
    script?: ScriptedReply;
    model?: string;
    content?: string;
    apiKey?: string;
    signal?: AbortSignal;
    body?: Record<string, unknown>;
  } = {},
): Promise<unknown> {
  if (opts.script) server.queue.push(opts.script);
  const body = opts.body ?? { model: opts.model ?? MODEL, max_tokens: 100, messages: [{ role: 'user', content: opts.content ?? 'hello' }] };
  try {
    await rawClient(baseURL, opts.apiKey).messages.create(body as unknown as Anthropic.MessageCreateParamsNonStreaming, {
      signal: opts.signal,
    });
  } catch (e) {
    return e;
  }
  return assert.fail('expected the SDK call to fail');
}

/** A TCP port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const address = srv.address();
  assert.ok(address && typeof address === 'object');
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return address.port;
}

describe('toLlmError classifies real SDK errors: rate limits, overload and server errors', () => {
  test('429 with retry-after seconds → rate_limit, retryable, retryAfterMs = seconds × 1000', async () => {
    await withServer({}, async (server, baseURL) => {
      const e = await sdkError(server, baseURL, { script: reply.rateLimited(7) });
      assert.ok(e instanceof Anthropic.RateLimitError);
      const err = toLlmError(e);
      assert.equal(err.kind, 'rate_limit');
      assert.equal(err.status, 429);
      assert.equal(err.retryAfterMs, 7000);
      assert.equal(err.retryable, true);
      assert.match(err.message, /rate limit/i);
    });
  });

  test('429 with retry-after-ms → retryAfterMs from that header, preferred over retry-after', async () => {
    await withServer({}, async (server, baseURL) => {
      const e = await sdkError(server, baseURL, {
        script: reply.error(429, 'rate_limit_error', 'slow down', { retryAfterMs: 250, retryAfter: 9 }),
      });
      const err = toLlmError(e);
      assert.equal(err.kind, 'rate_limit');
      assert.equal(err.retryAfterMs, 250);
    });
  });

  test('429 with retry-after as an HTTP date → the delay until that date', async () => {
    await withServer({}, async (server, baseURL) => {
      const when = new Date(Date.now() + 30_000).toUTCString();
      const err = toLlmError(
        await sdkError(server, baseURL, { script: reply.error(429, 'rate_limit_error', 'slow down', { retryAfter: when }) }),
      );
      assert.equal(err.kind, 'rate_limit');
      assert.ok(
        err.retryAfterMs !== undefined && err.retryAfterMs > 25_000 && err.retryAfterMs <= 30_000,
        `retryAfterMs ${err.retryAfterMs}`,
      );
    });
  });

  test('429 without retry-after → rate_limit with no retryAfterMs (the caller backs off)', async () => {
    await withServer({}, async (server, baseURL) => {
      const err = toLlmError(await sdkError(server, baseURL, { script: reply.error(429, 'rate_limit_error', 'slow down') }));
      assert.equal(err.kind, 'rate_limit');
      assert.equal(err.retryAfterMs, undefined);
    });
  });

  test('529 → overloaded, retryable, with the API message', async () => {
    await withServer({}, async (server, baseURL) => {
      const e = await sdkError(server, baseURL, { script: reply.overloaded('Overloaded right now') });
      assert.ok(e instanceof Anthropic.OverloadedError);
      const err = toLlmError(e);
      assert.equal(err.kind, 'overloaded');
      assert.equal(err.status, 529);
      assert.equal(err.retryable, true);
      assert.match(err.message, /Overloaded right now/);
    });
  });

  test('500 and 503 → server, retryable', async () => {
    await withServer({}, async (server, baseURL) => {
      const e500 = toLlmError(await sdkError(server, baseURL, { script: reply.apiError('boom') }));
      assert.equal(e500.kind, 'server');
      assert.equal(e500.status, 500);
      assert.equal(e500.retryable, true);
      assert.match(e500.message, /500.*boom/);
      const e503 = toLlmError(await sdkError(server, baseURL, { script: reply.error(503, 'api_error', 'unavailable', { retryAfter: 2 }) }));
      assert.equal(e503.kind, 'server');
      assert.equal(e503.status, 503);
      assert.equal(e503.retryAfterMs, 2000);
    });
  });
});

describe('toLlmError classifies real SDK errors: requests the API refuses (400, 401)', () => {
  test('400 "prompt is too long" from the context-window check → prompt_too_long with both numbers parsed', async () => {
    await withServer({ contextWindows: { tiny: 20 } }, async (server, baseURL) => {
      const e = await sdkError(server, baseURL, { model: 'tiny', content: 'word '.repeat(200) });
      assert.ok(e instanceof Anthropic.BadRequestError);
      const err = toLlmError(e);
      assert.equal(err.kind, 'prompt_too_long');
      assert.equal(err.status, 400);
      assert.equal(err.retryable, false);
      assert.equal(err.maxPromptTokens, 20);
      assert.equal(err.promptTokens, server.countTokens(server.requests[0]!.body));
      assert.ok(err.promptTokens! > 20);
      assert.match(err.message, /^prompt is too long: \d+ tokens > 20 maximum$/);
    });
  });

  test('400 "input length and `max_tokens` exceed context limit" → prompt_too_long, the prompt limit being the window minus max_tokens', async () => {
    await withServer({}, async (server, baseURL) => {
      const message =
        'input length and `max_tokens` exceed context limit: 199759 + 8192 > 200000, decrease input length or `max_tokens` and try again';
      const err = toLlmError(await sdkError(server, baseURL, { script: reply.error(400, 'invalid_request_error', message) }));
      assert.equal(err.kind, 'prompt_too_long');
      assert.equal(err.status, 400);
      assert.equal(err.promptTokens, 199759);
      assert.equal(err.maxPromptTokens, 200000 - 8192);
      assert.equal(err.message, message);
    });
  });

  test('400 context-limit error where max_tokens alone fills the window → other (no trim can help)', async () => {
    await withServer({}, async (server, baseURL) => {
      const message =
        'input length and `max_tokens` exceed context limit: 10 + 300000 > 200000, decrease input length or `max_tokens` and try again';
      const err = toLlmError(await sdkError(server, baseURL, { script: reply.error(400, 'invalid_request_error', message) }));
      assert.equal(err.kind, 'other');
    });
  });

  test('400 invalid request (not about length) → other, not retryable', async () => {
    await withServer({}, async (server, baseURL) => {
      // A real validation failure: an empty messages list.
      const e = await sdkError(server, baseURL, { body: { model: MODEL, max_tokens: 10, messages: [] } });
      const err = toLlmError(e);
      assert.equal(err.kind, 'other');
      assert.equal(err.status, 400);
      assert.equal(err.retryable, false);
      assert.equal(err.promptTokens, undefined);
      assert.match(err.message, /API error 400: messages: at least one message is required/);
    });
  });

  test('401 wrong key → other, not retryable', async () => {
    await withServer({}, async (server, baseURL) => {
      const err = toLlmError(await sdkError(server, baseURL, { apiKey: 'sk-wrong' }));
      assert.equal(err.kind, 'other');
      assert.equal(err.status, 401);
      assert.equal(err.retryable, false);
      assert.equal(server.requests[0]!.apiKey, 'sk-wrong');
    });
  });
});

describe('toLlmError classifies real SDK errors: aborts, connection failures and non-SDK errors', () => {
  test('abort while the server hangs → aborted, not retryable', async () => {
    await withServer({}, async (server, baseURL) => {
      const controller = new AbortController();
      server.queue.hang();
      const pending = sdkError(server, baseURL, { signal: controller.signal });
      await server.waitForRequests(1);
      controller.abort();
      const e = await pending;
      assert.ok(e instanceof Anthropic.APIUserAbortError);
      const err = toLlmError(e);
      assert.equal(err.kind, 'aborted');
      assert.equal(err.retryable, false);
    });
  });

  test('connection refused on a closed port → server kind, retryable, no status', async () => {
    const port = await closedPort();
    let caught: unknown;
    try {
      await rawClient(`http://127.0.0.1:${port}`).messages.create({
        model: MODEL,
        max_tokens: 10,
        messages: [{ role: 'user', content: 'hi' }],
      });
    } catch (e) {
      caught = e;
    }
    assert.ok(caught instanceof Anthropic.APIConnectionError);
    assert.ok(!(caught instanceof Anthropic.APIConnectionTimeoutError));
    const err = toLlmError(caught);
    assert.equal(err.kind, 'server');
    assert.equal(err.status, undefined);
    assert.equal(err.retryable, true);
    assert.match(err.message, /Could not reach the API/);
    // Why, from the cause chain (the SDK says only "Connection error."): the refused address.
    assert.ok(err.message.includes(`(fetch failed: connect ECONNREFUSED 127.0.0.1:${port})`), err.message);
  });

  test('a connection the server drops before answering → the message says the other side closed it', async () => {
    await withServer({}, async (server, baseURL) => {
      const err = toLlmError(await sdkError(server, baseURL, { script: reply.drop() }));
      assert.equal(err.kind, 'server');
      assert.match(err.message, /^Could not reach the API: Connection error\. \(fetch failed: other side closed \[UND_ERR_SOCKET\]\)$/);
    });
  });

  test('an LlmError passes through unchanged; anything else → other', () => {
    const original = new LlmError('overloaded', 'x', 529);
    assert.equal(toLlmError(original), original);
    const plain = toLlmError(new Error('weird'));
    assert.equal(plain.kind, 'other');
    assert.equal(plain.message, 'weird');
    assert.equal(toLlmError('a string').message, 'a string');
  });
});

describe('AnthropicLlmClient.complete', () => {
  test('returns the text and usage matching the server token counts; sends model, system, max_tokens, the key as Bearer', async () => {
    await withServer({ tokenScale: 1.6 }, async (server, baseURL) => {
      const client = new AnthropicLlmClient({ apiKey: KEY, baseURL, model: MODEL });
      const answer = 'Here is the summary of the session so far.';
      server.queue.text(answer);
      const res = await client.complete({
        system: 'You summarize.',
        messages: [{ role: 'user', content: 'Summarize this please.' }],
        maxTokens: 321,
      });
      assert.equal(res.text, answer);
      assert.equal(res.stopReason, 'end_turn');
      const req = server.messageRequests[0] as ValidRequest;
      assert.equal(req.status, 200);
      assert.equal(res.inputTokens, req.inputTokens);
      assert.equal(res.inputTokens, server.countTokens(req.body));
      assert.equal(res.outputTokens, server.countOutputTokens([{ type: 'text', text: answer }]));
      assert.equal(req.body.model, MODEL);
      assert.equal(req.body.max_tokens, 321);
      assert.equal(req.body.system, 'You summarize.');
      assert.deepEqual(req.body.messages, [{ role: 'user', content: 'Summarize this please.' }]);
      assert.equal(req.body.stream, undefined);
      assert.equal(req.apiKey, KEY);
      assert.equal(req.headers['authorization'], `Bearer ${KEY}`);
    });
  });

  test('joins several text blocks and ignores non-text blocks', async () => {
    await withServer({}, async (server, baseURL) => {
      const client = new AnthropicLlmClient({ apiKey: KEY, baseURL, model: MODEL });
      server.queue.message([
        { type: 'thinking', thinking: 'hmm' },
        { type: 'text', text: 'Part one. ' },
        { type: 'text', text: 'Part two.' },
      ]);
      const res = await client.complete({ system: 's', messages: [{ role: 'user', content: 'go' }], maxTokens: 200 });
      assert.equal(res.text, 'Part one. Part two.');
    });
  });

  test('a reply cut at max_tokens reports stopReason max_tokens', async () => {
    await withServer({}, async (server, baseURL) => {
      const client = new AnthropicLlmClient({ apiKey: KEY, baseURL, model: MODEL });
      server.queue.text('word '.repeat(100));
      const res = await client.complete({ system: 's', messages: [{ role: 'user', content: 'go' }], maxTokens: 5 });
      assert.equal(res.stopReason, 'max_tokens');
      assert.equal(res.outputTokens, 5);
    });
  });

  test('SDK retries are off: a 529 is thrown as an overloaded LlmError after exactly one request', async () => {
    await withServer({}, async (server, baseURL) => {
      const client = new AnthropicLlmClient({ apiKey: KEY, baseURL, model: MODEL });
      server.queue.overloaded().text('never reached');
      await assert.rejects(
        client.complete({ system: 's', messages: [{ role: 'user', content: 'go' }], maxTokens: 50 }),
        (e: unknown) => e instanceof LlmError && e.kind === 'overloaded' && e.status === 529,
      );
      assert.equal(server.messageRequests.length, 1);
      assert.equal(server.queue.length, 1);
    });
  });

  test('complete() throws classified errors: prompt_too_long with numbers, aborted on signal', async () => {
    await withServer({ contextWindows: { tiny: 10 } }, async (server, baseURL) => {
      const tiny = new AnthropicLlmClient({ apiKey: KEY, baseURL, model: 'tiny' });
      await assert.rejects(
        tiny.complete({
          system: 'system prompt words',
          messages: [{ role: 'user', content: 'many words here '.repeat(10) }],
          maxTokens: 50,
        }),
        (e: unknown) =>
          e instanceof LlmError &&
          e.kind === 'prompt_too_long' &&
          e.maxPromptTokens === 10 &&
          e.promptTokens === (server.messageRequests[0] as ValidRequest).inputTokens,
      );
      const client = new AnthropicLlmClient({ apiKey: KEY, baseURL, model: MODEL });
      server.queue.hang();
      const controller = new AbortController();
      const pending = client.complete({
        system: 's',
        messages: [{ role: 'user', content: 'go' }],
        maxTokens: 50,
        signal: controller.signal,
      });
      await server.waitForRequests(2);
      controller.abort();
      await assert.rejects(pending, (e: unknown) => e instanceof LlmError && e.kind === 'aborted');
    });
  });

  test('a request exceeding timeoutMs → timeout kind, retryable', async () => {
    await withServer({}, async (server, baseURL) => {
      const client = new AnthropicLlmClient({ apiKey: KEY, baseURL, model: MODEL, timeoutMs: 100 });
      server.queue.hang();
      await assert.rejects(
        client.complete({ system: 's', messages: [{ role: 'user', content: 'go' }], maxTokens: 50 }),
        (e: unknown) => e instanceof LlmError && e.kind === 'timeout' && e.retryable,
      );
    });
  });
});

describe('AnthropicLlmClient.complete: usage from a hostile endpoint', () => {
  test('a summary whose usage is missing or not valid counts comes back with its usage unknown, not a TypeError or garbage', async () => {
    await withServer({}, async (server, baseURL) => {
      const client = new AnthropicLlmClient({ apiKey: KEY, baseURL, model: MODEL });
      for (const wireUsage of [null, { input_tokens: 'lots', output_tokens: -1 }, { input_tokens: 1e300, output_tokens: 2 }]) {
        server.queue.text('The summary.', { wireUsage });
        const res = await client.complete({
          system: 'You summarize.',
          messages: [{ role: 'user', content: 'Summarize.' }],
          maxTokens: 100,
        });
        assert.equal(res.text, 'The summary.');
        assert.equal(res.inputTokens, undefined, JSON.stringify(wireUsage));
        assert.equal(res.outputTokens, undefined, JSON.stringify(wireUsage));
      }
    });
  });
});
