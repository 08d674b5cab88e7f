// The summarizer end to end: summarize() → AnthropicLlmClient → real @anthropic-ai/sdk → the loopback
// Messages API. Assertions are on what the server RECEIVED as well as on what summarize() returned.
// No test really sleeps for a backoff: `sleep` is injected to record delays, except in the one test
// that checks cancellation of the real default sleep (aborted after 50 ms).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { AnthropicLlmClient } from '../../src/agent/loop/anthropicClient';
import {
  LlmError,
  SUMMARY_SYSTEM_PROMPT,
  pretrim,
  summarize,
  type LlmClient,
  type SummarizeOptions,
  type SummaryResult,
} from '../../src/core/pipeline/summarize';
import type { SummarizerInput } from '../../src/core/pipeline/plan';
import type { Message } from '../../src/core/conversation/conversation';
import { createTokenizer } from '../../src/core/counting/tokenizers';
import { LoopbackAnthropic, reply, type LoopbackOptions, type RecordedRequest, type ValidRequest } from '../loopback/anthropic-server';
import { assistant, call, results, summary, user } from '../helpers/build';

const MODEL = 'claude-summarizer';
const KEY = 'sk-test';
const tokenizer = createTokenizer('gpt-tokenizer');
const SYSTEM_TOKENS = tokenizer.countText(SUMMARY_SYSTEM_PROMPT);

interface Harness {
  server: LoopbackAnthropic;
  client: AnthropicLlmClient;
  /** Delays passed to the injected sleep. */
  delays: number[];
  sleep: NonNullable<SummarizeOptions['sleep']>;
  /** Options for summarize() with the injected sleep and a 200k window. */
  opts(over?: Partial<SummarizeOptions>): SummarizeOptions;
}

async function withHarness<T>(options: LoopbackOptions & { model?: string }, fn: (h: Harness) => Promise<T>): Promise<T> {
  const { model = MODEL, ...serverOptions } = options;
  const server = new LoopbackAnthropic({ apiKey: KEY, ...serverOptions });
  const { baseURL } = await server.start();
  const client = new AnthropicLlmClient({ apiKey: KEY, baseURL, model });
  const delays: number[] = [];
  const sleep = async (ms: number, signal?: AbortSignal) => {
    delays.push(ms);
    if (signal?.aborted) throw new LlmError('aborted', 'cancelled');
  };
  const h: Harness = {
    server,
    client,
    delays,
    sleep,
    opts: (over = {}) => ({
      client,
      tokenizer,
      contextWindow: server.contextWindowFor(model),
      maxSummaryTokens: 500,
      sleep,
      backoffMs: 100,
      ...over,
    }),
  };
  try {
    return await fn(h);
  } finally {
    await server.close();
  }
}

/** The single user message of a recorded summarizer request. */
function promptOf(r: RecordedRequest): string {
  const messages = r.body.messages ?? [];
  assert.equal(messages.length, 1, 'the summarizer sends one user message');
  assert.equal(messages[0]!.role, 'user');
  assert.equal(typeof messages[0]!.content, 'string');
  return messages[0]!.content as string;
}

function assertOk(r: SummaryResult): asserts r is Extract<SummaryResult, { ok: true }> {
  assert.ok(r.ok, `expected success, got ${r.ok ? '' : `${r.error.reason}: ${r.error.message}`}`);
}

function assertFailed(r: SummaryResult, reason: string): asserts r is Extract<SummaryResult, { ok: false }> {
  assert.equal(r.ok, false, 'expected a failure');
  if (!r.ok) assert.equal(r.error.reason, reason, r.error.message);
}

const input = (over: Partial<SummarizerInput> = {}): SummarizerInput => ({
  priorSummaries: [],
  toSummarize: [user('u1', 'Please add a --verbose flag to the CLI.'), assistant('a1', 'Added the flag in src/cli.ts.')],
  overlap: [],
  tokens: 0,
  ...over,
});

/** A conversation with a tool call, an error result and an overlap. */
function richInput(withPrior: boolean): SummarizerInput {
  const errResult: Message = {
    id: 'r2',
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: 't2', content: 'npm ERR! missing script: lint', is_error: true }],
  };
  return {
    priorSummaries: withPrior ? [summary('s0', 'PRIOR-TEXT: the user wants TypeScript strict mode everywhere.')] : [],
    toSummarize: [
      user('u1', 'Rename getUser to fetchUser in src/api.ts. Do not touch tests.'),
      call('c1', ['t1', 'read_file']),
      results('r1', ['t1', 'export function getUser() { return 42 }']),
      call('c2', ['t2', 'run_command']),
      errResult,
      assistant('a1', 'Renamed getUser to fetchUser.'),
    ],
    overlap: [user('u2', 'OVERLAP-USER: now run the build.'), assistant('a2', 'OVERLAP-ASSISTANT: build is green.')],
    tokens: 0,
  };
}

describe('summarize: the prompt the server receives', () => {
  test('contains the seven sections in order, the conversation, tool results with their tool names, and overlap marked as context', async () => {
    await withHarness({}, async (h) => {
      h.server.queue.text('S');
      assertOk(await summarize(richInput(false), h.opts()));
      const prompt = promptOf(h.server.messageRequests[0]!);
      const sections = [
        /1\. User requests and constraints/,
        /2\. Accomplished/,
        /3\. Current state/,
        /4\. Files and artifacts/,
        /5\. Errors and fixes/,
        /6\. Key decisions/,
        /7\. Pending work and next step:.*very next step/,
      ];
      let from = 0;
      for (const re of sections) {
        const m = re.exec(prompt.slice(from));
        assert.ok(m, `missing section ${re} (after offset ${from})`);
        from += m.index + m[0].length;
      }
      assert.ok(prompt.includes('=== CONVERSATION TO SUMMARIZE ===\nUser: Rename getUser to fetchUser in src/api.ts. Do not touch tests.'));
      assert.ok(prompt.includes('[tool_use read_file {"path":"read_file.txt"}]'));
      assert.ok(prompt.includes('User: [tool result from read_file]\nexport function getUser() { return 42 }'));
      assert.ok(prompt.includes('User: [tool result (error) from run_command]\nnpm ERR! missing script: lint'));
      assert.ok(prompt.includes('Assistant: Renamed getUser to fetchUser.'));
      // Overlap: after the conversation, in its own section marked as context only.
      const overlapHeader = '=== MOST RECENT MESSAGES (kept verbatim after the summary; context only) ===';
      const conv = prompt.indexOf('=== CONVERSATION TO SUMMARIZE ===');
      const ov = prompt.indexOf(overlapHeader);
      assert.ok(conv >= 0 && ov > conv, 'overlap section follows the conversation');
      assert.ok(prompt.indexOf('OVERLAP-USER: now run the build.') > ov);
      assert.ok(prompt.indexOf('OVERLAP-ASSISTANT: build is green.') > ov);
      assert.ok(prompt.indexOf('Renamed getUser') < ov, 'summarized messages are not in the overlap section');
      assert.ok(prompt.indexOf('1. User requests') > ov, 'instructions come last');
      // No prior summary, no focus.
      assert.ok(!prompt.includes('=== PRIOR SUMMARY ==='));
      assert.ok(!prompt.includes('Focus:'));
      assert.ok(!prompt.includes('Build on the prior summary'));
    });
  });

  test('prior summaries come first as === PRIOR SUMMARY === with their text, and the instructions ask to build on them', async () => {
    await withHarness({}, async (h) => {
      h.server.queue.text('S');
      const inp = richInput(true);
      inp.priorSummaries.push(summary('s1', 'PRIOR-TWO: the build uses esbuild.'));
      assertOk(await summarize(inp, h.opts()));
      const prompt = promptOf(h.server.messageRequests[0]!);
      assert.ok(prompt.startsWith('=== PRIOR SUMMARY ===\nPRIOR-TEXT: the user wants TypeScript strict mode everywhere.'));
      assert.ok(prompt.includes('=== PRIOR SUMMARY ===\nPRIOR-TWO: the build uses esbuild.'));
      assert.equal(prompt.split('=== PRIOR SUMMARY ===').length - 1, 2);
      assert.ok(prompt.indexOf('PRIOR-TWO') < prompt.indexOf('=== CONVERSATION TO SUMMARIZE ==='));
      assert.match(prompt, /Build on the prior summary/);
    });
  });

  test('the focus text is appended to the instructions when given (trimmed)', async () => {
    await withHarness({}, async (h) => {
      h.server.queue.text('S');
      assertOk(await summarize(input(), h.opts({ focus: '  the database migration and its rollback plan \n' })));
      const prompt = promptOf(h.server.messageRequests[0]!);
      assert.ok(prompt.endsWith('Focus: the database migration and its rollback plan'));
    });
  });

  test('a whitespace-only focus adds nothing', async () => {
    await withHarness({}, async (h) => {
      h.server.queue.text('S');
      assertOk(await summarize(input(), h.opts({ focus: '   ' })));
      assert.ok(!promptOf(h.server.messageRequests[0]!).includes('Focus:'));
    });
  });
});

describe('summarize: success', () => {
  test('returns the model text trimmed, attempts 1; sends the system prompt, max_tokens = maxSummaryTokens and the model', async () => {
    await withHarness({}, async (h) => {
      h.server.queue.text('\n  ## Summary\nThe flag was added.  \n\n');
      const r = await summarize(input(), h.opts({ maxSummaryTokens: 777 }));
      assertOk(r);
      assert.equal(r.summary, '## Summary\nThe flag was added.');
      assert.equal(r.attempts, 1);
      assert.equal(r.droppedMessages, 0);
      assert.equal(r.truncatedResults, 0);
      assert.equal(h.server.messageRequests.length, 1);
      const req = h.server.messageRequests[0] as ValidRequest;
      assert.equal(req.status, 200);
      assert.equal(req.body.system, SUMMARY_SYSTEM_PROMPT);
      assert.equal(req.body.max_tokens, 777);
      assert.equal(req.body.model, MODEL);
      assert.equal(req.apiKey, KEY);
      // Same o200k tokenizer on both sides: the server's count is the prompt plus the system prompt.
      assert.equal(r.promptTokens, tokenizer.countText(promptOf(req)));
      assert.equal(req.inputTokens, r.promptTokens + SYSTEM_TOKENS);
      assert.deepEqual(h.delays, []);
    });
  });
});

describe('summarize: pre-trim to the summarizer window', () => {
  const WINDOW = 3000;
  const MAX_SUMMARY = 500;
  // The budget summarize() computes for the prompt.
  const BUDGET = WINDOW - MAX_SUMMARY - SYSTEM_TOKENS - 200;

  /** ~N tokens of distinct filler text. */
  const filler = (tag: string, n: number) => `${tag} ` + Array.from({ length: n / 4 }, (_, i) => `alpha${i} beta`).join(' ');
  const bigOutput = Array.from({ length: 300 }, (_, i) => `log line ${i}: compiling module number ${i} of the project`).join('\n');

  test('a large input is first cut by truncating old tool outputs to their tail, then by dropping the oldest messages; the request fits', async () => {
    await withHarness({ model: 'small', contextWindows: { small: WINDOW } }, async (h) => {
      const toSummarize: Message[] = [user('u0', filler('OLDEST-MARKER', 200))];
      for (let i = 1; i <= 12; i++)
        toSummarize.push(i % 2 ? assistant(`a${i}`, filler(`OLD-${i}`, 200)) : user(`u${i}`, filler(`OLD-${i}`, 200)));
      toSummarize.push(call('c1', ['t1', 'run_build']), results('r1', ['t1', bigOutput]), assistant('a99', 'NEWEST-MARKER build done.'));
      const inp = input({ toSummarize });
      assert.ok(tokenizer.countText(bigOutput) > WINDOW, 'the tool output alone exceeds the window');
      h.server.queue.text('Trimmed summary.');
      const r = await summarize(inp, h.opts({ maxSummaryTokens: MAX_SUMMARY }));
      assertOk(r);
      assert.equal(r.attempts, 1);
      assert.equal(r.truncatedResults, 1);
      assert.ok(r.droppedMessages > 0 && r.droppedMessages < toSummarize.length);
      assert.ok(r.promptTokens <= BUDGET, `${r.promptTokens} > budget ${BUDGET}`);

      assert.equal(h.server.messageRequests.length, 1, 'no 400 and no retry');
      const req = h.server.messageRequests[0] as ValidRequest;
      assert.equal(req.status, 200);
      assert.ok(req.inputTokens <= WINDOW, `server counted ${req.inputTokens} > ${WINDOW}`);
      const prompt = promptOf(req);
      // Tool output reduced to its tail, with the omission note.
      assert.match(prompt, /\[tool result from run_build\]\n\[… \d+ earlier characters of output omitted …\]\n/);
      assert.ok(prompt.includes('log line 299: compiling module number 299 of the project'));
      assert.ok(prompt.includes('log line 260:'), 'the last 40 lines are kept');
      assert.ok(!prompt.includes('log line 259:'));
      assert.ok(!prompt.includes('log line 0:'));
      // Oldest messages dropped, with the note; the newest kept.
      assert.ok(prompt.includes(`[… ${r.droppedMessages} older messages omitted to fit the summarizer's window …]`));
      assert.ok(!prompt.includes('OLDEST-MARKER'));
      assert.ok(prompt.includes('NEWEST-MARKER'));
      assert.ok(prompt.includes('[tool_use run_build'));
    });
  });

  test('when truncating tool outputs is enough, no message is dropped', async () => {
    await withHarness({ model: 'small', contextWindows: { small: WINDOW } }, async (h) => {
      const inp = input({
        toSummarize: [user('u0', 'OLDEST-MARKER build it'), call('c1', ['t1', 'run_build']), results('r1', ['t1', bigOutput])],
      });
      h.server.queue.text('ok');
      const r = await summarize(inp, h.opts({ maxSummaryTokens: MAX_SUMMARY }));
      assertOk(r);
      assert.equal(r.truncatedResults, 1);
      assert.equal(r.droppedMessages, 0);
      const prompt = promptOf(h.server.messageRequests[0]!);
      assert.ok(prompt.includes('OLDEST-MARKER'));
      assert.ok(!prompt.includes('older message'));
      assert.match(prompt, /earlier characters of output omitted/);
    });
  });

  test('many short messages: the prompt the server receives still fits the budget (per-item estimates are corrected)', async () => {
    await withHarness({ model: 'small', contextWindows: { small: WINDOW } }, async (h) => {
      const toSummarize: Message[] = [];
      for (let i = 0; i < 2000; i++) toSummarize.push(i % 2 ? assistant(`a${i}`, `ok ${i}`) : user(`u${i}`, `x${i} ${'é'.repeat(i % 7)}`));
      h.server.queue.text('ok');
      const r = await summarize(input({ toSummarize }), h.opts({ maxSummaryTokens: MAX_SUMMARY }));
      assertOk(r);
      assert.ok(r.droppedMessages > 1000);
      const req = h.server.messageRequests[0] as ValidRequest;
      assert.equal(r.promptTokens, tokenizer.countText(promptOf(req)));
      assert.ok(req.inputTokens - SYSTEM_TOKENS <= BUDGET, `prompt ${req.inputTokens - SYSTEM_TOKENS} > budget ${BUDGET}`);
      assert.ok(promptOf(req).includes(`[… ${r.droppedMessages} older messages omitted`));
      assert.ok(promptOf(req).includes('ok 1999'));
    });
  });

  test('pretrim() never returns more tokens than the budget while messages remain to drop', () => {
    const toSummarize: Message[] = [];
    for (let i = 0; i < 1500; i++) toSummarize.push(user(`u${i}`, `item ${i} ${'é'.repeat(i % 5)} done`));
    for (const budget of [300, 800, 1500, 2500]) {
      const p = pretrim(input({ toSummarize }), tokenizer, budget);
      assert.ok(p.tokens <= budget, `budget ${budget}: ${p.tokens}`);
      assert.equal(p.tokens, tokenizer.countText(p.prompt));
      assert.ok(p.droppedMessages > 0 && p.droppedMessages < toSummarize.length);
      // Not over-trimmed either: keeping one more message would not have fit... within a small margin.
      assert.ok(p.tokens > budget - 30, `budget ${budget}: only ${p.tokens} used`);
    }
  });

  test('a truncated tool output that is then dropped is not counted in truncatedResults', async () => {
    await withHarness({ model: 'small', contextWindows: { small: WINDOW } }, async (h) => {
      const toSummarize: Message[] = [call('c1', ['t1', 'run_build']), results('r1', ['t1', bigOutput])];
      for (let i = 1; i <= 16; i++)
        toSummarize.push(i % 2 ? user(`u${i}`, filler(`NEW-${i}`, 200)) : assistant(`a${i}`, filler(`NEW-${i}`, 200)));
      h.server.queue.text('ok');
      const r = await summarize(input({ toSummarize }), h.opts({ maxSummaryTokens: MAX_SUMMARY }));
      assertOk(r);
      assert.ok(r.droppedMessages >= 2);
      assert.ok(!promptOf(h.server.messageRequests[0]!).includes('run_build'));
      assert.equal(r.truncatedResults, 0);
    });
  });

  test('an input that fits is sent untouched (tool outputs whole)', async () => {
    await withHarness({}, async (h) => {
      const inp = input({ toSummarize: [user('u0', 'build it'), call('c1', ['t1', 'run_build']), results('r1', ['t1', bigOutput])] });
      h.server.queue.text('ok');
      const r = await summarize(inp, h.opts());
      assertOk(r);
      assert.equal(r.truncatedResults, 0);
      assert.equal(r.droppedMessages, 0);
      const prompt = promptOf(h.server.messageRequests[0]!);
      assert.ok(prompt.includes('log line 0: compiling'));
      assert.ok(!prompt.includes('omitted'));
    });
  });
});

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
