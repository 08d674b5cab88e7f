// The ledger and the summarizer, over the real SDK against the loopback Messages API: the prompt
// carries the ledger in its own section (never trimmed), and the summary that comes back has the
// ledger appended, so applying the plan puts it in the summary turn of the next request.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AnthropicLlmClient } from '../../src/agent/loop/anthropicClient';
import { CharEstimateTokenizer, MemoizedMessageCounter, planWith, summarize, textOf, type Message } from '../../src/core/index';
import { applyPlan } from '../../src/core/pipeline/plan';
import { LEDGER_HEADING } from '../../src/core/ledger/ledgerMerge';
import { LEDGER_PROMPT_HEADING } from '../../src/core/pipeline/summarize';
import { createTokenizer } from '../../src/core/counting/tokenizers';
import { LoopbackAnthropic } from '../loopback/anthropic-server';
import { ctxWith } from '../helpers/build';

function session(turns: number): Message[] {
  const out: Message[] = [];
  for (let t = 0; t < turns; t++) {
    out.push({ id: `u${t}`, role: 'user', content: `please handle task ${t}` });
    out.push({
      id: `a${t}`,
      role: 'assistant',
      content: [{ type: 'tool_use', id: `t${t}`, name: 'edit_file', input: { path: `src/mod${t}.ts` } }],
    });
    out.push({ id: `r${t}`, role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${t}`, content: 'q'.repeat(3_000) }] });
    out.push({ id: `d${t}`, role: 'assistant', content: [{ type: 'text', text: `finished ${t}` }] });
  }
  return out;
}

test('summarizer: the prompt carries the ledger, the summary comes back with it appended, and the applied summary turn holds it', async () => {
  const server = new LoopbackAnthropic({ apiKey: 'sk-test' });
  const { baseURL } = await server.start();
  try {
    const client = new AnthropicLlmClient({ apiKey: 'sk-test', baseURL, model: 'claude-summarizer' });
    const ctx = ctxWith(new MemoizedMessageCounter(new CharEstimateTokenizer()), { ledger: true, summaryMaxTokens: 500 });
    const plan = planWith('recursive-summarization', session(6), { maxEventsToKeep: 4, overlapSize: 1 }, ctx);
    assert.ok(plan.ledger && plan.summarizerInput?.ledger, 'the summarizer input carries the ledger');
    server.queue.text('The model summary.');
    const result = await summarize(plan.summarizerInput, {
      client,
      tokenizer: createTokenizer('gpt-tokenizer'),
      contextWindow: server.contextWindowFor('claude-summarizer'),
      maxSummaryTokens: 500,
    });
    assert.ok(result.ok, result.ok ? '' : result.error.message);
    const prompt = String(server.messageRequests[0]!.body.messages![0]!.content);
    const section = prompt.indexOf(LEDGER_PROMPT_HEADING);
    assert.ok(
      section >= 0 && section < prompt.indexOf('=== CONVERSATION TO SUMMARIZE ==='),
      'the ledger section comes before the conversation',
    );
    assert.ok(prompt.slice(section).includes('- please handle task 0\n'), 'the rendered ledger is in the prompt');
    assert.ok(result.summary.startsWith('The model summary.\n\n' + LEDGER_HEADING));
    const next = applyPlan(plan, { summary: result.summary, transcriptPath: '/t/x.jsonl' });
    const turn = textOf(next[plan.syntheticIndex!]);
    assert.ok(turn.includes('please handle task 0') && turn.includes('src/mod0.ts'));
  } finally {
    await server.close();
  }
});

test('summarizer: without a ledger the summary is the model text alone', async () => {
  const server = new LoopbackAnthropic({ apiKey: 'sk-test' });
  const { baseURL } = await server.start();
  try {
    const client = new AnthropicLlmClient({ apiKey: 'sk-test', baseURL, model: 'claude-summarizer' });
    const plan = planWith(
      'recursive-summarization',
      session(6),
      { maxEventsToKeep: 4, overlapSize: 1 },
      ctxWith(new MemoizedMessageCounter(new CharEstimateTokenizer())),
    );
    server.queue.text('Only this.');
    const result = await summarize(plan.summarizerInput!, {
      client,
      tokenizer: createTokenizer('gpt-tokenizer'),
      contextWindow: 200_000,
      maxSummaryTokens: 500,
    });
    assert.ok(result.ok);
    assert.equal(result.summary, 'Only this.');
    assert.ok(!String(server.messageRequests[0]!.body.messages![0]!.content).includes(LEDGER_PROMPT_HEADING));
  } finally {
    await server.close();
  }
});
