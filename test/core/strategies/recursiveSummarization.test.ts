import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planRecursiveSummarization } from '../../../src/core/strategies/recursiveSummarization';
import { planWith, StrategyParamError } from '../../../src/core/strategies';
import { planViolations } from '../../../src/core/conversation/invariants';
import { applyPlan, MissingSummaryError } from '../../../src/core/pipeline/plan';
import { assistant, call, ctxWith as baseCtxWith, ids, results, summary, user } from '../../helpers/build';
import type { PlanContext } from '../../../src/core/pipeline/plan';
import type { MessageTokenCounter } from '../../../src/core/counting/tokens';

// These tests pin where plans cut, on conversations of a few 10-token messages: a 2,000-token summary
// estimate would make every such plan a no-op ("would not save tokens"), so the estimate is small here.
const ctxWith = (tokens?: MessageTokenCounter, over: Partial<PlanContext> = {}): PlanContext =>
  baseCtxWith(tokens, { summaryMaxTokens: 5, ...over });

const ctx = ctxWith();
const convo = () => [
  user('u1'),
  assistant('a1'),
  user('u2'),
  call('c2', ['t2', 'ls']),
  results('r2', ['t2', 'x']),
  assistant('a2'),
  user('u3'),
  assistant('a3'),
];

test('recursive-summarization: the newest maxEventsToKeep form the active window, snapped to a turn start', () => {
  const plan = planRecursiveSummarization(convo(), { maxEventsToKeep: 3, overlapSize: 1 }, ctx);
  // Raw window [a2, u3, a3] -> snapped forward to u3.
  assert.equal(plan.tailStartId, 'u3');
  assert.deepEqual(ids(plan.output.slice(1)), ['u3', 'a3']);
  assert.equal(plan.output[0].synthetic, 'summary');
  assert.equal(plan.needsSummary, true);
  assert.deepEqual(ids(plan.summarizerInput!.toSummarize), ['u1', 'a1', 'u2', 'c2', 'r2', 'a2']);
  assert.deepEqual(ids(plan.summarizerInput!.overlap), ['u3']);
});

test('recursive-summarization: prior summaries are fed back to the summarizer and replaced', () => {
  const msgs = [summary('s0', 'earlier work'), ...convo()];
  const plan = planRecursiveSummarization(msgs, { maxEventsToKeep: 2, overlapSize: 0 }, ctx);
  assert.deepEqual(ids(plan.summarizerInput!.priorSummaries), ['s0']);
  assert.ok(plan.archived.some((e) => e.id === 's0'));
  assert.equal(plan.output.filter((m) => m.synthetic).length, 1);
  assert.deepEqual(planViolations(msgs, plan), []);
});

test('recursive-summarization: apply fills the summary slot and refuses an empty summary', () => {
  const plan = planRecursiveSummarization(convo(), { maxEventsToKeep: 2, overlapSize: 1 }, ctx);
  assert.throws(() => applyPlan(plan, { summary: '   ' }), MissingSummaryError);
  const out = applyPlan(plan, { summary: 'They built X.', transcriptPath: 'tr.jsonl' });
  assert.match(
    String(out[0].content),
    /^\[Earlier context compacted: 6 messages summarized below\. Full history: tr\.jsonl\]\n\nThey built X\.$/,
  );
  assert.deepEqual(ids(out.slice(1)), ['u3', 'a3']);
});

test('recursive-summarization: overlapSize must be >= 0 and < maxEventsToKeep', () => {
  assert.throws(
    () => planRecursiveSummarization(convo(), { maxEventsToKeep: 3, overlapSize: 3 }, ctx),
    (e: unknown) => {
      assert.ok(e instanceof StrategyParamError);
      assert.match((e as Error).message, /recursive-summarization: parameter overlapSize must be >= 0 and < maxEventsToKeep \(3\), got 3/);
      return true;
    },
  );
  assert.throws(() => planWith('recursive-summarization', convo(), { overlapSize: '-1' }, ctx), /overlapSize must be >= 0/);
});

test('recursive-summarization: a window that already holds everything is a no-op', () => {
  const plan = planRecursiveSummarization(convo(), { maxEventsToKeep: 20, overlapSize: 2 }, ctx);
  assert.equal(plan.noop, true);
  assert.equal(plan.summarizerInput, null);
  assert.equal(plan.needsSummary, false);
});

test('recursive-summarization: single-prompt sessions get a summary opener before an assistant-led tail', () => {
  const msgs = [user('u1')];
  for (let i = 0; i < 6; i++) msgs.push(call(`c${i}`, [`t${i}`, 'grep']), results(`r${i}`, [`t${i}`, 'hit']));
  const plan = planRecursiveSummarization(msgs, { maxEventsToKeep: 3, overlapSize: 1 }, ctx);
  assert.equal(plan.tailStartId, 'c5');
  assert.equal(plan.output[0].synthetic, 'summary');
  assert.deepEqual(planViolations(msgs, plan), []);
});
