// Every plan that archives carries the ledger (opener or summary turn) within the same request budget,
// and reports what leaves the model's view without surviving: prompts, files and commands the ledger
// folded away, unresolved errors, images, thinking blocks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CharEstimateTokenizer, MemoizedMessageCounter, planRequest, planWith, textOf, type Message } from '../../src/core/index';
import { applyPlan, requestBudget } from '../../src/core/pipeline/plan';
import { LEDGER_HEADING } from '../../src/core/ledger/ledgerMerge';
import { lossReport } from '../../src/core/ledger/lossReport';
import { ctxWith } from '../helpers/build';

function session(turns: number, bigResult = 200): Message[] {
  const out: Message[] = [];
  for (let t = 0; t < turns; t++) {
    out.push({ id: `u${t}`, role: 'user', content: `instruction number ${t}: do the thing` });
    out.push({
      id: `a${t}`,
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'hmm', signature: 's' },
        { type: 'tool_use', id: `r${t}`, name: 'read_file', input: { path: `src/f${t}.ts` } },
        { type: 'tool_use', id: `c${t}`, name: 'run_command', input: { command: `npm test -- ${t}` } },
      ],
    });
    out.push({
      id: `x${t}`,
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: `r${t}`, content: 'z'.repeat(bigResult) },
        { type: 'tool_result', tool_use_id: `c${t}`, content: `[Exit code ${t % 2}]`, ...(t % 2 ? { is_error: true } : {}) },
      ],
    });
    out.push({ id: `d${t}`, role: 'assistant', content: [{ type: 'text', text: `done ${t}` }] });
  }
  return out;
}

const counter = () => new MemoizedMessageCounter(new CharEstimateTokenizer());

test('ledger step: a non-LLM plan opens its tail with the ledger; tokensAfter counts it and the plan fits', () => {
  const messages = session(8);
  const ctx = ctxWith(counter(), { ledger: true, contextWindow: 12_000, maxOutputTokens: 1_000 });
  const plan = planWith('sliding-window', messages, { maxEvents: 8 }, ctx);
  assert.ok(plan.ledger, 'the plan carries a ledger');
  assert.deepEqual(plan.ledger.instructions, [
    'instruction number 0: do the thing',
    ...[1, 2, 3, 4, 5].map((t) => `instruction number ${t}: do the thing`),
  ]);
  assert.equal(plan.ledger.files.length, 6);
  const opener = plan.output[plan.syntheticIndex!];
  assert.equal(opener.synthetic, 'placeholder');
  assert.ok(textOf(opener).includes(LEDGER_HEADING));
  assert.equal(plan.tokensAfter, ctx.tokens.countMessages(plan.output));
  assert.ok(plan.fitsWindow && plan.tokensAfter <= requestBudget(ctx));
  // The opener keeps its ledger when the transcript path is filled in at apply.
  const applied = applyPlan(plan, { transcriptPath: '/t/x.jsonl' });
  assert.ok(textOf(applied[plan.syntheticIndex!]).includes('/t/x.jsonl'));
  assert.ok(textOf(applied[plan.syntheticIndex!]).includes('src/f0.ts'));
  // Everything archived is in the ledger but the thinking blocks.
  assert.equal(plan.lost?.thinkingBlocks, 6);
  assert.deepEqual(plan.lost?.files, []);
  assert.deepEqual(plan.lost?.instructions, []);
  assert.deepEqual(plan.lost?.commands, []);
});

test('ledger step: an LLM plan carries the ledger in its summary turn, counted beside the summary estimate', () => {
  const messages = session(8, 2_000);
  const ctx = ctxWith(counter(), { ledger: true, contextWindow: 12_000, maxOutputTokens: 1_000, summaryMaxTokens: 500 });
  const plan = planWith('recursive-summarization', messages, { maxEventsToKeep: 8, overlapSize: 2 }, ctx);
  assert.ok(plan.needsSummary && plan.ledger);
  const request = planRequest(plan)
    .map((m) => textOf(m))
    .join('\n');
  for (let t = 0; t < 6; t++) assert.ok(request.includes(`instruction number ${t}: do the thing`), `prompt ${t} in the preview request`);
  const slot = plan.output[plan.syntheticIndex!];
  const others = plan.output.filter((_, i) => i !== plan.syntheticIndex);
  assert.ok(
    plan.tokensAfter > ctx.tokens.countMessages(others) + ctx.summaryMaxTokens,
    'the ledger is counted on top of the summary estimate',
  );
  assert.ok(textOf(slot).includes(LEDGER_HEADING));
  assert.ok(plan.fitsWindow);
});

test('ledger step: off unless the context asks for it; a plan that archives nothing has no ledger', () => {
  const messages = session(8);
  const off = planWith('sliding-window', messages, { maxEvents: 8 }, ctxWith(counter()));
  assert.equal(off.ledger, undefined);
  const noop = planWith('sliding-window', messages, { maxEvents: 1000 }, ctxWith(counter(), { ledger: true }));
  assert.equal(noop.noop, true);
  assert.equal(noop.ledger, undefined);
});

test('ledger step: the ledger budget comes out of the request budget (a tight window archives more, and still fits)', () => {
  const messages = session(30, 2_000);
  const without = planWith(
    'token-budget',
    messages,
    { maxTokens: 0 },
    ctxWith(counter(), { contextWindow: 9_000, maxOutputTokens: 1_000 }),
  );
  const withLedger = planWith(
    'token-budget',
    messages,
    { maxTokens: 0 },
    ctxWith(counter(), { ledger: true, contextWindow: 9_000, maxOutputTokens: 1_000 }),
  );
  assert.ok(withLedger.ledger);
  assert.ok(withLedger.fitsWindow && withLedger.tokensAfter <= 8_000);
  assert.ok(withLedger.kept.length <= without.kept.length);
});

test('loss report: prompts, files, commands folded out of the ledger, unresolved errors, images and thinking', () => {
  const archived: Message[] = [
    {
      id: 'u1',
      role: 'user',
      content: [
        { type: 'text', text: 'look at this' },
        { type: 'image', source: {} },
      ],
    },
    {
      id: 'a1',
      role: 'assistant',
      content: [
        { type: 'redacted_thinking', data: 'x' },
        { type: 'tool_use', id: 't1', name: 'read_file', input: { path: 'gone.ts' } },
        { type: 'tool_use', id: 't2', name: 'run_command', input: { command: 'make' } },
      ],
    },
    {
      id: 'r1',
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'image', source: {} }] },
        { type: 'tool_result', tool_use_id: 't2', content: 'bad\n[Exit code 2]', is_error: true },
      ],
    },
  ];
  const none = lossReport(archived, null, new Set());
  assert.deepEqual(none.instructions, ['look at this\n[image]']);
  assert.deepEqual(
    none.files.map((f) => f.path),
    ['gone.ts'],
  );
  assert.deepEqual(none.commands, [{ command: 'make', exitCode: 2 }]);
  assert.equal(none.errors.length, 1);
  assert.equal(none.images, 2);
  assert.equal(none.thinkingBlocks, 1);
  const ledger = { files: none.files, commands: none.commands, errors: none.errors, instructions: none.instructions };
  const covered = lossReport(archived, ledger, new Set());
  assert.deepEqual([covered.files, covered.commands, covered.errors, covered.instructions], [[], [], [], []]);
  // A kept (or pinned) prompt is not lost.
  assert.deepEqual(lossReport(archived, null, new Set(['u1'])).instructions, []);
});
