import { test } from 'node:test';
import assert from 'node:assert/strict';
import { perTurnBudget, planRecentTurns } from '../../../src/core/strategies/recentTurns';
import { planViolations } from '../../../src/core/conversation/invariants';
import { assistant, call, ctxWith as baseCtxWith, FixedCostCounter, ids, results, user } from '../../helpers/build';
import type { PlanContext } from '../../../src/core/pipeline/plan';
import type { MessageTokenCounter } from '../../../src/core/counting/tokens';

// These tests pin where plans cut, on conversations of a few 10-token messages: a 2,000-token summary
// estimate would make every such plan a no-op ("would not save tokens"), so the estimate is small here.
const ctxWith = (tokens?: MessageTokenCounter, over: Partial<PlanContext> = {}): PlanContext =>
  baseCtxWith(tokens, { summaryMaxTokens: 5, ...over });

const defaults = { turns: 2, perTurnFraction: 0.25, perTurnMin: 2000, perTurnMax: 8000 };

test('recent-turns: keeps the last N turns; the pointer is the first prompt of the (M - N + 1)th turn', () => {
  const msgs = [user('u1'), assistant('a1'), user('u2'), assistant('a2'), user('u3'), assistant('a3')];
  const plan = planRecentTurns(msgs, defaults, ctxWith());
  assert.equal(plan.tailStartId, 'u2');
  assert.deepEqual(ids(plan.output.slice(1)), ['u2', 'a2', 'u3', 'a3']);
  assert.deepEqual(ids(plan.summarizerInput!.toSummarize), ['u1', 'a1']);
});

test('recent-turns: per-turn budget is 25% of usable context clamped to [2000, 8000]', () => {
  assert.equal(perTurnBudget(defaults, ctxWith(undefined, { contextWindow: 200_000, maxOutputTokens: 8_000 })), 8000);
  assert.equal(perTurnBudget(defaults, ctxWith(undefined, { contextWindow: 16_000, maxOutputTokens: 4_000 })), 3000);
  assert.equal(perTurnBudget(defaults, ctxWith(undefined, { contextWindow: 8_000, maxOutputTokens: 4_000 })), 2000);
});

test('recent-turns: a kept turn over budget has its oldest tool results truncated, not its last message', () => {
  const costs = { r1: 5000, r2: 5000, r3: 5000 };
  const counter = new FixedCostCounter(costs);
  // Truncated copies are new objects with the same id: charge them by content instead.
  const ctx = ctxWith({
    countMessage: (m) => (m.truncated ? 20 : counter.countMessage(m)),
    countMessages: (ms) => ms.reduce((n, m) => n + (m.truncated ? 20 : counter.countMessage(m)), 0),
  });
  const msgs = [
    user('u0'),
    assistant('a0'),
    user('u1'),
    call('c1', ['t1', 'read_file']),
    results('r1', ['t1', 'AAAA']),
    call('c2', ['t2', 'read_file']),
    results('r2', ['t2', 'BBBB']),
    call('c3', ['t3', 'search']),
    results('r3', ['t3', 'CCCC']),
    assistant('a1'),
  ];
  const plan = planRecentTurns(msgs, { ...defaults, turns: 1 }, ctx);
  assert.deepEqual(
    plan.truncated.map((t) => t.id),
    ['r1', 'r2'],
  );
  assert.equal(plan.truncated[0].originalTokens, 5000);
  assert.deepEqual(plan.truncated[0].toolNames, ['read_file']);
  const r1 = plan.output.find((m) => m.id === 'r1')!;
  assert.match(JSON.stringify(r1.content), /Truncated to fit the per-turn budget: read_file output of 4 chars/);
  assert.deepEqual(planViolations(msgs, plan), []);
});

test('recent-turns: N or fewer turns is a no-op', () => {
  const msgs = [user('u1'), assistant('a1'), user('u2'), assistant('a2')];
  assert.equal(planRecentTurns(msgs, defaults, ctxWith()).noop, true);
});

test('recent-turns: perTurnMin above perTurnMax is rejected', () => {
  assert.throws(
    () => planRecentTurns([user('u1')], { ...defaults, perTurnMin: 9000 }, ctxWith()),
    /perTurnMin must be <= perTurnMax \(8000\), got 9000/,
  );
});
