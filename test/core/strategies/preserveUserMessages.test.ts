import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planPreserveUserMessages } from '../../../src/core/strategies/preserveUserMessages';
import { planWith } from '../../../src/core/strategies';
import { planViolations } from '../../../src/core/conversation/invariants';
import { toApiMessages } from '../../../src/core/conversation/conversation';
import { assistant, call, ctxWith as baseCtxWith, FixedCostCounter, ids, results, summary, user } from '../../helpers/build';
import type { PlanContext } from '../../../src/core/pipeline/plan';
import type { MessageTokenCounter } from '../../../src/core/counting/tokens';

// These tests pin where plans cut, on conversations of a few 10-token messages: a 2,000-token summary
// estimate would make every such plan a no-op ("would not save tokens"), so the estimate is small here.
const ctxWith = (tokens?: MessageTokenCounter, over: Partial<PlanContext> = {}): PlanContext =>
  baseCtxWith(tokens, { summaryMaxTokens: 5, ...over });

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

test('preserve-user-messages: every user prompt is kept in order, agent output collapses into a summary after them', () => {
  const msgs = convo();
  const plan = planPreserveUserMessages(msgs, { maxUserTokens: 20_000 }, ctxWith());
  assert.deepEqual(ids(plan.output.slice(0, 3)), ['u1', 'u2', 'u3']);
  assert.equal(plan.output[3].synthetic, 'summary');
  assert.equal(plan.syntheticIndex, 3);
  assert.deepEqual(ids(plan.archived), ['a1', 'c2', 'r2', 'a2', 'a3']);
  assert.equal(plan.tailStartId, 'u1');
  // The summary sits just after the latest preserved prompt (u3 is at index 6).
  assert.equal(plan.splitIndex, 7);
  assert.deepEqual(planViolations(msgs, plan), []);
  // Adjacent user messages merge into one request message.
  assert.equal(toApiMessages(plan.output).length, 1);
});

test('preserve-user-messages: walking newest-first, prompts beyond the token cap are summarized', () => {
  const ctx = ctxWith(new FixedCostCounter({ u1: 40, u2: 40, u3: 40 }));
  const plan = planPreserveUserMessages(convo(), { maxUserTokens: 100 }, ctx);
  assert.deepEqual(ids(plan.output.filter((m) => !m.synthetic)), ['u2', 'u3']);
  assert.ok(plan.summarizerInput!.toSummarize.some((m) => m.id === 'u1'));
});

test('preserve-user-messages: the latest prompt is kept even if it alone exceeds the cap', () => {
  const ctx = ctxWith(new FixedCostCounter({ u3: 999 }));
  const plan = planPreserveUserMessages(convo(), { maxUserTokens: 100 }, ctx);
  assert.deepEqual(ids(plan.output.filter((m) => !m.synthetic)), ['u3']);
  assert.ok(plan.notes[0].includes('exceeds maxUserTokens'));
});

test('preserve-user-messages: tool_result messages are not treated as user prompts', () => {
  const plan = planWith('preserve-user-messages', convo(), {}, ctxWith());
  assert.ok(!plan.output.some((m) => m.id === 'r2'));
});

test('preserve-user-messages: prior summaries are folded into the new one', () => {
  const msgs = [summary('s0'), ...convo()];
  const plan = planPreserveUserMessages(msgs, { maxUserTokens: 20_000 }, ctxWith());
  assert.deepEqual(ids(plan.summarizerInput!.priorSummaries), ['s0']);
  assert.equal(plan.output.filter((m) => m.synthetic).length, 1);
  assert.deepEqual(planViolations(msgs, plan), []);
});

test('preserve-user-messages: a conversation of prompts only is a no-op', () => {
  assert.equal(planPreserveUserMessages([user('u1')], { maxUserTokens: 10 }, ctxWith()).noop, true);
});
