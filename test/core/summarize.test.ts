// The summarizer end to end: summarize() → AnthropicLlmClient → real @anthropic-ai/sdk → the loopback
// Messages API. Assertions are on what the server RECEIVED as well as on what summarize() returned.
// This file: the prompt, success and the pre-trim; the failures (too long, retried, not retried,
// cancelled) are in summarize.failures.test.ts, the harness in summarizeHarness.ts.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { SUMMARY_SYSTEM_PROMPT, pretrim, summarize } from '../../src/core/pipeline/summarize';
import type { Message } from '../../src/core/conversation/conversation';
import type { ValidRequest } from '../loopback/anthropic-server';
import { assistant, call, results, summary, user } from '../helpers/build';
import { MODEL, KEY, tokenizer, SYSTEM_TOKENS, withHarness, promptOf, assertOk, input, richInput } from './summarizeHarness';

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

// The pre-trim tests: a summarizer model with a small window, so the input has to be cut to fit.
const WINDOW = 3000;
const MAX_SUMMARY = 500;
// The budget summarize() computes for the prompt.
const BUDGET = WINDOW - MAX_SUMMARY - SYSTEM_TOKENS - 200;

/** ~N tokens of distinct filler text. */
const filler = (tag: string, n: number) => `${tag} ` + Array.from({ length: n / 4 }, (_, i) => `alpha${i} beta`).join(' ');
const bigOutput = Array.from({ length: 300 }, (_, i) => `log line ${i}: compiling module number ${i} of the project`).join('\n');

describe('summarize: pre-trim to the summarizer window (what is cut: old tool outputs first, then the oldest messages)', () => {
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

describe('summarize: pre-trim to the summarizer window (the prompt stays within its token budget)', () => {
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
});
