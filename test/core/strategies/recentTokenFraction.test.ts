import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planRecentTokenFraction } from '../../../src/core/strategies/recentTokenFraction';
import { planViolations } from '../../../src/core/conversation/invariants';
import { StrategyParamError } from '../../../src/core/strategies';
import { assistant, call, ctxWith as baseCtxWith, FixedCostCounter, ids, results, user } from '../../helpers/build';
import type { PlanContext } from '../../../src/core/pipeline/plan';
import type { MessageTokenCounter } from '../../../src/core/counting/tokens';

// These tests pin where plans cut, on conversations of a few 10-token messages: a 2,000-token summary
// estimate would make every such plan a no-op ("would not save tokens"), so the estimate is small here.
const ctxWith = (tokens?: MessageTokenCounter, over: Partial<PlanContext> = {}): PlanContext =>
  baseCtxWith(tokens, { summaryMaxTokens: 5, ...over });

const msgs = () => [
  user('u1'),
  assistant('a1'),
  user('u2'),
  assistant('a2'),
  user('u3'),
  assistant('a3'),
  user('u4'),
  assistant('a4'),
  user('u5'),
  assistant('a5'),
];

test('recent-token-fraction: walks back until p x total tokens are collected', () => {
  // 10 messages x 10 tokens = 100; p = 0.3 -> collect 30 tokens: [a4, u5, a5], snapped forward to u5.
  const plan = planRecentTokenFraction(msgs(), { fraction: 0.3 }, ctxWith());
  assert.equal(plan.tailStartId, 'u5');
  assert.deepEqual(ids(plan.output.slice(1)), ['u5', 'a5']);
  assert.equal(plan.output[0].synthetic, 'summary');
});

test('recent-token-fraction: a cut on a user prompt needs no snapping', () => {
  const plan = planRecentTokenFraction(msgs(), { fraction: 0.4 }, ctxWith());
  assert.deepEqual(ids(plan.output.slice(1)), ['u4', 'a4', 'u5', 'a5']);
});

test('recent-token-fraction: heavy messages shrink the kept fraction in message count', () => {
  const ctx = ctxWith(new FixedCostCounter({ a5: 80 }));
  // Total 170; 30% = 51 tokens: a5 alone (80) crosses it, snapped forward... nothing after a5 starts a turn.
  const plan = planRecentTokenFraction(msgs(), { fraction: 0.3 }, ctx);
  assert.deepEqual(planViolations(msgs(), plan), []);
  assert.ok(plan.output.some((m) => m.id === 'a5'));
});

test('recent-token-fraction: fraction must be strictly between 0 and 1', () => {
  assert.throws(() => planRecentTokenFraction(msgs(), { fraction: 1 }, ctxWith()), StrategyParamError);
  assert.throws(() => planRecentTokenFraction(msgs(), { fraction: 0 }, ctxWith()), /fraction must be > 0 and < 1, got 0/);
});

test('recent-token-fraction: a tool-call tail without a later prompt opens at an exchange boundary', () => {
  const m = [user('u1')];
  for (let i = 0; i < 5; i++) m.push(call(`c${i}`, [`t${i}`, 'read_file']), results(`r${i}`, [`t${i}`, 'x']));
  const plan = planRecentTokenFraction(m, { fraction: 0.3 }, ctxWith());
  assert.ok(['c3', 'c4'].includes(plan.tailStartId!));
  assert.deepEqual(planViolations(m, plan), []);
});
