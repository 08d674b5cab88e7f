// The summarizer's failures end to end (through the real SDK and the loopback server): "prompt is too long"
// trimmed and retried, transient failures retried with backoff, failures that are not retried, cancellation.
// No test really sleeps for a backoff (`sleep` is injected), except the one that checks cancellation of the
// real default sleep (aborted after 50 ms).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { LlmError, pretrim, summarize, type LlmClient } from '../../src/core/pipeline/summarize';
import type { Message } from '../../src/core/conversation/conversation';
import { LoopbackAnthropic, reply, type ValidRequest } from '../loopback/anthropic-server';
import { assistant, summary, user } from '../helpers/build';
import { AnthropicLlmClient } from '../../src/agent/loop/anthropicClient';
import { MODEL, KEY, tokenizer, SYSTEM_TOKENS, withHarness, promptOf, assertOk, assertFailed, input } from './summarizeHarness';

describe('summarize: "prompt is too long" from the API', () => {
  test('when the server counts more tokens than the local tokenizer, it trims further and retries until the prompt fits', async () => {
    const WINDOW = 3000;
    // The server counts 1.6x what the local tokenizer counts: the pre-trim thinks the prompt fits.
    await withHarness({ model: 'small', contextWindows: { small: WINDOW }, tokenScale: 1.6 }, async (h) => {
      const toSummarize: Message[] = [];
      for (let i = 0; i < 40; i++)
        toSummarize.push(
          i % 2 ? assistant(`a${i}`, `MSG-${i} ` + 'reply text '.repeat(30)) : user(`u${i}`, `MSG-${i} ` + 'request text '.repeat(30)),
        );
      h.server.queue.text('Summary after trimming.');
      const retries: unknown[] = [];
      const r = await summarize(input({ toSummarize }), h.opts({ maxSummaryTokens: 500, onRetry: (i) => retries.push(i) }));
      assertOk(r);
      assert.equal(r.summary, 'Summary after trimming.');
      const reqs = h.server.messageRequests as ValidRequest[];
      assert.ok(reqs.length >= 2, `expected at least one 400 first, got ${reqs.length} request(s)`);
      assert.equal(r.attempts, reqs.length);
      // Every request but the last was refused as too long; the last succeeded.
      for (const q of reqs.slice(0, -1)) assert.equal(q.status, 400);
      assert.equal(reqs[reqs.length - 1]!.status, 200);
      // The local count of the first prompt fit the budget: the 400 came from the server's larger count.
      assert.ok(tokenizer.countText(promptOf(reqs[0]!)) <= WINDOW - 500 - SYSTEM_TOKENS - 200);
      // Sizes shrink request by request, and the last fits the server's window.
      const sizes = reqs.map((q) => h.server.countTokens(q.body));
      assert.ok(sizes[0]! > WINDOW);
      for (let i = 1; i < sizes.length; i++) assert.ok(sizes[i]! < sizes[i - 1]!, `sizes ${sizes.join(' → ')}`);
      assert.ok(sizes[sizes.length - 1]! <= WINDOW);
      // The newest message survives; trimming is not a transient-error retry.
      assert.ok(promptOf(reqs[reqs.length - 1]!).includes('MSG-39'));
      assert.ok(r.droppedMessages > 0);
      assert.deepEqual(retries, []);
      assert.deepEqual(h.delays, []);
    });
  });

  test('the trim scales the prompt actually sent, not a larger unused budget, so the retry is smaller', async () => {
    // A prompt well under the local budget (~1500 of 2230 tokens) that the server counts 2.5x.
    await withHarness({ model: 'small', contextWindows: { small: 3000 }, tokenScale: 2.5 }, async (h) => {
      const toSummarize: Message[] = [];
      for (let i = 0; i < 14; i++)
        toSummarize.push(
          i % 2 ? assistant(`a${i}`, `MSG-${i} ` + 'reply text '.repeat(40)) : user(`u${i}`, `MSG-${i} ` + 'request text '.repeat(40)),
        );
      const local = pretrim(input({ toSummarize }), tokenizer, Number.POSITIVE_INFINITY).tokens;
      assert.ok(local > 1200 && local < 0.7 * (3000 - 500 - SYSTEM_TOKENS - 200), `local prompt ${local}`);
      h.server.queue.text('ok');
      const r = await summarize(input({ toSummarize }), h.opts({ maxSummaryTokens: 500 }));
      assertOk(r);
      const reqs = h.server.messageRequests as ValidRequest[];
      assert.deepEqual(
        reqs.map((q) => q.status),
        [400, 200],
      );
      assert.notEqual(reqs[1]!.rawBody, reqs[0]!.rawBody);
      assert.equal(r.attempts, 2);
    });
  });

  test('when what is left cannot be trimmed (prior summaries alone overflow), it gives up as too_long without resending the same prompt', async () => {
    await withHarness({ model: 'small', contextWindows: { small: 3000 } }, async (h) => {
      const inp = input({ priorSummaries: [summary('s0', 'prior words '.repeat(3000))] });
      const r = await summarize(inp, h.opts());
      assertFailed(r, 'too_long');
      assert.equal(r.attempts, 1);
      assert.equal(h.server.messageRequests.length, 1);
      assert.match(r.error.message, /prompt is too long: \d+ tokens > 3000 maximum/);
    });
  });
});

describe('summarize: other context-limit errors, and giving up', () => {
  test('"input length and `max_tokens` exceed context limit" is trimmed and retried like "prompt is too long"', async () => {
    const WINDOW = 3000;
    // Like the real API: input + max_tokens must fit the window. The server counts 1.25x the local tokenizer.
    await withHarness(
      {
        model: 'small',
        contextWindows: { small: WINDOW },
        tokenScale: 1.25,
        responder: (req) => {
          const max = req.body.max_tokens ?? 0;
          if (req.inputTokens + max <= WINDOW) return reply.text('Fits now.');
          return reply.error(
            400,
            'invalid_request_error',
            `input length and \`max_tokens\` exceed context limit: ${req.inputTokens} + ${max} > ${WINDOW}, ` +
              `decrease input length or \`max_tokens\` and try again`,
          );
        },
      },
      async (h) => {
        const toSummarize: Message[] = [];
        for (let i = 0; i < 40; i++)
          toSummarize.push(
            i % 2 ? assistant(`a${i}`, `MSG-${i} ` + 'reply text '.repeat(30)) : user(`u${i}`, `MSG-${i} ` + 'request text '.repeat(30)),
          );
        const r = await summarize(input({ toSummarize }), h.opts({ maxSummaryTokens: 500 }));
        assertOk(r);
        assert.equal(r.summary, 'Fits now.');
        const reqs = h.server.messageRequests as ValidRequest[];
        assert.deepEqual(
          reqs.map((q) => q.status),
          [400, 200],
        );
        assert.ok(reqs[0]!.inputTokens <= WINDOW, 'the input alone fit the window');
        assert.ok(reqs[1]!.inputTokens + 500 <= WINDOW);
        assert.ok(reqs[1]!.inputTokens < reqs[0]!.inputTokens);
      },
    );
  });

  test('gives up with reason too_long when trimming cannot make the prompt fit', async () => {
    // A fixed overhead larger than the window: nothing the summarizer trims can help.
    await withHarness({ model: 'small', contextWindows: { small: 3000 }, tokenOverhead: { perRequest: 5000 } }, async (h) => {
      const toSummarize: Message[] = [];
      for (let i = 0; i < 20; i++) toSummarize.push(i % 2 ? assistant(`a${i}`, 'reply '.repeat(50)) : user(`u${i}`, 'request '.repeat(50)));
      const r = await summarize(input({ toSummarize }), h.opts());
      assertFailed(r, 'too_long');
      const reqs = h.server.messageRequests;
      assert.equal(r.attempts, reqs.length);
      assert.ok(reqs.length >= 2 && reqs.length <= 5, `${reqs.length} requests`);
      assert.ok(reqs.every((q) => q.status === 400));
      for (let i = 1; i < reqs.length; i++)
        assert.ok(h.server.countTokens(reqs[i]!.body) < h.server.countTokens(reqs[i - 1]!.body), 'never the same prompt twice');
      assert.ok(r.error.cause instanceof LlmError && r.error.cause.kind === 'prompt_too_long');
    });
  });
});

describe('summarize: transient failures are retried', () => {
  test('429 with retry-after: waits exactly the header delay, calls onRetry, then succeeds', async () => {
    await withHarness({}, async (h) => {
      h.server.queue.rateLimited(7).text('After the rate limit.');
      const retries: Array<{ attempt: number; delayMs: number; error: LlmError }> = [];
      const r = await summarize(input(), h.opts({ onRetry: (i) => retries.push(i) }));
      assertOk(r);
      assert.equal(r.summary, 'After the rate limit.');
      assert.equal(r.attempts, 2);
      assert.deepEqual(h.delays, [7000]);
      assert.equal(retries.length, 1);
      assert.equal(retries[0]!.attempt, 1);
      assert.equal(retries[0]!.delayMs, 7000);
      assert.equal(retries[0]!.error.kind, 'rate_limit');
      assert.deepEqual(
        h.server.messageRequests.map((q) => q.status),
        [429, 200],
      );
      // The retry sends the same request.
      assert.equal(h.server.messageRequests[1]!.rawBody, h.server.messageRequests[0]!.rawBody);
    });
  });

  test('429 with retry-after-ms: waits that many ms (not the backoff)', async () => {
    await withHarness({}, async (h) => {
      h.server.queue.error(429, 'rate_limit_error', 'slow down', { retryAfterMs: 1234 }).text('ok');
      const r = await summarize(input(), h.opts({ backoffMs: 50 }));
      assertOk(r);
      assert.deepEqual(h.delays, [1234]);
    });
  });

  test('529 overloaded and 500 are retried with exponential backoff (1x, 2x, 4x backoffMs) and succeed', async () => {
    await withHarness({}, async (h) => {
      h.server.queue.overloaded().apiError().overloaded().text('Finally.');
      const kinds: string[] = [];
      const r = await summarize(
        input(),
        h.opts({ backoffMs: 100, onRetry: (i) => kinds.push(`${i.attempt}:${i.error.kind}:${i.delayMs}`) }),
      );
      assertOk(r);
      assert.equal(r.summary, 'Finally.');
      assert.equal(r.attempts, 4);
      assert.deepEqual(h.delays, [100, 200, 400]);
      assert.deepEqual(kinds, ['1:overloaded:100', '2:server:200', '3:overloaded:400']);
      assert.deepEqual(
        h.server.messageRequests.map((q) => q.status),
        [529, 500, 529, 200],
      );
    });
  });

  test('the backoff is capped at 30 s', async () => {
    await withHarness({}, async (h) => {
      h.server.queue.overloaded().overloaded().overloaded().text('ok');
      assertOk(await summarize(input(), h.opts({ backoffMs: 20_000 })));
      assert.deepEqual(h.delays, [20_000, 30_000, 30_000]);
    });
  });

  test('after maxRetries is exhausted → failed, with attempts = maxRetries + 1', async () => {
    await withHarness({}, async (h) => {
      h.server.queue.overloaded().apiError().overloaded().text('not reached');
      const r = await summarize(input(), h.opts({ maxRetries: 2, backoffMs: 100 }));
      assertFailed(r, 'failed');
      assert.equal(r.attempts, 3);
      assert.deepEqual(h.delays, [100, 200]);
      assert.equal(h.server.messageRequests.length, 3);
      assert.equal(h.server.queue.length, 1, 'the success reply was never requested');
      assert.ok(r.error.cause instanceof LlmError && r.error.cause.kind === 'overloaded');
      assert.match(r.error.message, /Summarization failed: .*Overloaded/);
    });
  });

  test('the default maxRetries is 4 (5 attempts)', async () => {
    await withHarness({}, async (h) => {
      for (let i = 0; i < 6; i++) h.server.queue.apiError();
      const r = await summarize(input(), h.opts({ backoffMs: 10 }));
      assertFailed(r, 'failed');
      assert.equal(r.attempts, 5);
      assert.deepEqual(h.delays, [10, 20, 40, 80]);
    });
  });
});

describe('summarize: failures that are not retried', () => {
  test('an empty text reply → empty, after one attempt', async () => {
    await withHarness({}, async (h) => {
      h.server.queue.empty();
      const r = await summarize(input(), h.opts());
      assertFailed(r, 'empty');
      assert.equal(r.attempts, 1);
      assert.equal(h.server.messageRequests.length, 1);
    });
  });

  test('a reply with no content blocks, or only whitespace, → empty', async () => {
    await withHarness({}, async (h) => {
      h.server.queue.empty({ noBlocks: true }).text('  \n\t ');
      assertFailed(await summarize(input(), h.opts()), 'empty');
      assertFailed(await summarize(input(), h.opts()), 'empty');
    });
  });

  test('a non-retryable 400 (invalid request) fails immediately with 1 attempt', async () => {
    await withHarness({}, async (h) => {
      h.server.queue.error(400, 'invalid_request_error', 'max_tokens: Input should be a valid integer').text('not reached');
      let retried = false;
      const r = await summarize(input(), h.opts({ onRetry: () => (retried = true) }));
      assertFailed(r, 'failed');
      assert.equal(r.attempts, 1);
      assert.equal(retried, false);
      assert.deepEqual(h.delays, []);
      assert.equal(h.server.messageRequests.length, 1);
      assert.ok(r.error.cause instanceof LlmError && r.error.cause.kind === 'other' && r.error.cause.status === 400);
    });
  });

  test('a 401 authentication error fails immediately', async () => {
    await withHarness({}, async (h) => {
      const wrong = new AnthropicLlmClient({ apiKey: 'sk-wrong', baseURL: h.server.baseURL, model: MODEL });
      const r = await summarize(input(), h.opts({ client: wrong }));
      assertFailed(r, 'failed');
      assert.equal(r.attempts, 1);
      assert.equal(h.server.messageRequests[0]!.status, 401);
    });
  });

  test('an unreachable API is retried as a server error, then fails', async () => {
    let port: number;
    {
      const s = new LoopbackAnthropic();
      port = (await s.start()).port;
      await s.close();
    }
    const client = new AnthropicLlmClient({ apiKey: KEY, baseURL: `http://127.0.0.1:${port}`, model: MODEL });
    const delays: number[] = [];
    const r = await summarize(input(), {
      client,
      tokenizer,
      contextWindow: 200_000,
      maxSummaryTokens: 500,
      maxRetries: 2,
      backoffMs: 5,
      sleep: async (ms) => void delays.push(ms),
    });
    assertFailed(r, 'failed');
    assert.equal(r.attempts, 3);
    assert.deepEqual(delays, [5, 10]);
    assert.ok(r.error.cause instanceof LlmError && r.error.cause.kind === 'server');
  });
});

describe('summarize: cancellation', () => {
  test('a signal aborted while the server hangs → aborted, promptly', async () => {
    await withHarness({}, async (h) => {
      h.server.queue.hang();
      const controller = new AbortController();
      const started = Date.now();
      const pending = summarize(input(), h.opts({ signal: controller.signal }));
      await h.server.waitForRequests(1);
      controller.abort();
      const r = await pending;
      assertFailed(r, 'aborted');
      assert.equal(r.attempts, 1);
      assert.ok(Date.now() - started < 1000, 'returned promptly');
      assert.equal(h.server.messageRequests.length, 1);
      assert.deepEqual(h.delays, []);
    });
  });

  test('a signal aborted during a backoff sleep (real default sleep, 60 s retry-after) → aborted, and no second request', async () => {
    await withHarness({}, async (h) => {
      h.server.queue.rateLimited(60).text('never sent');
      const controller = new AbortController();
      const retries: number[] = [];
      const started = Date.now();
      const timer = setTimeout(() => controller.abort(), 50);
      const r = await summarize(input(), {
        ...h.opts({ signal: controller.signal, onRetry: (i) => retries.push(i.delayMs) }),
        sleep: undefined,
      });
      clearTimeout(timer);
      const elapsed = Date.now() - started;
      assertFailed(r, 'aborted');
      assert.equal(r.attempts, 1);
      assert.deepEqual(retries, [60_000], 'it was sleeping for the retry-after');
      assert.ok(elapsed < 1000, `took ${elapsed} ms`);
      assert.equal(h.server.messageRequests.length, 1, 'no second request');
      assert.equal(h.server.queue.length, 1);
    });
  });

  test('a cancelled request that the client misreports as a retryable error still ends as aborted, with no retry', async () => {
    await withHarness({}, async (h) => {
      // Wraps the real client but turns its 'aborted' into a retryable 'server' error.
      const misreporting: LlmClient = {
        complete: (req) =>
          h.client.complete(req).catch((e: unknown) => {
            throw e instanceof LlmError && e.kind === 'aborted' ? new LlmError('server', 'socket closed') : e;
          }),
      };
      h.server.queue.hang().text('never sent');
      const controller = new AbortController();
      let retried = false;
      const pending = summarize(input(), h.opts({ client: misreporting, signal: controller.signal, onRetry: () => (retried = true) }));
      await h.server.waitForRequests(1);
      controller.abort();
      const r = await pending;
      assertFailed(r, 'aborted');
      assert.equal(retried, false);
      assert.deepEqual(h.delays, []);
      assert.equal(h.server.messageRequests.length, 1);
    });
  });

  test('an already-aborted signal → aborted with 0 attempts and no request', async () => {
    await withHarness({}, async (h) => {
      const r = await summarize(input(), h.opts({ signal: AbortSignal.abort() }));
      assertFailed(r, 'aborted');
      assert.equal(r.attempts, 0);
      assert.equal(h.server.requests.length, 0);
    });
  });
});
