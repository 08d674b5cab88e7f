import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planTokenBudget } from '../../../src/core/strategies/tokenBudget';
import { planViolations } from '../../../src/core/conversation/invariants';
import { assistant, call, ctxWith, FixedCostCounter, ids, results, summary, user } from '../../helpers/build';

test('token-budget: keeps the longest contiguous suffix within maxTokens', () => {
  const ctx = ctxWith(new FixedCostCounter({ u1: 50, a1: 50, u2: 30, a2: 30, u3: 20, a3: 20 }));
  const msgs = [user('u1'), assistant('a1'), user('u2'), assistant('a2'), user('u3'), assistant('a3')];
  const plan = planTokenBudget(msgs, { maxTokens: 100 }, ctx);
  assert.deepEqual(ids(plan.output), ['u2', 'a2', 'u3', 'a3']);
  assert.equal(plan.tokensAfter, 100);
});

test('token-budget: stops at the first oversize message instead of skipping it (no gaps)', () => {
  const ctx = ctxWith(new FixedCostCounter({ big: 500 }));
  const msgs = [user('u1'), assistant('a1'), user('u2'), assistant('big'), user('u3'), assistant('a3')];
  const plan = planTokenBudget(msgs, { maxTokens: 100 }, ctx);
  // u1 and a1 would also fit, but keeping them would skip `big` and leave a gap.
  assert.deepEqual(ids(plan.output), ['u3', 'a3']);
});

test('token-budget: leading kept messages that are not user prompts are dropped (turn safety)', () => {
  const ctx = ctxWith(new FixedCostCounter({ u2: 100 }));
  const msgs = [user('u1'), assistant('a1'), user('u2'), assistant('a2'), assistant('a2b'), user('u3'), assistant('a3')];
  const plan = planTokenBudget(msgs, { maxTokens: 45 }, ctx);
  // Suffix within 45 tokens: [a2b, u3, a3] (30) and a2 (40); a2 and a2b are dropped to start at u3.
  assert.deepEqual(ids(plan.output), ['u3', 'a3']);
});

test('token-budget: synthetic summaries are deducted from the budget first', () => {
  const ctx = ctxWith(new FixedCostCounter({ s0: 30 }));
  const msgs = [summary('s0'), user('u1'), assistant('a1'), user('u2'), assistant('a2')];
  const plan = planTokenBudget(msgs, { maxTokens: 55 }, ctx);
  assert.deepEqual(ids(plan.output), ['s0', 'u2', 'a2']);
  assert.ok(plan.notes.some((n) => n.includes('deducted')));
});

test('token-budget: when the newest exchange alone exceeds the budget it is still kept, behind a placeholder', () => {
  const ctx = ctxWith(new FixedCostCounter({ r2: 1000 }));
  const msgs = [
    user('u1'),
    call('c1', ['t1', 'read_file']),
    results('r1', ['t1', 'a']),
    call('c2', ['t2', 'read_file']),
    results('r2', ['t2', 'huge']),
  ];
  const plan = planTokenBudget(msgs, { maxTokens: 100 }, ctx);
  assert.deepEqual(ids(plan.output.slice(1)), ['c2', 'r2']);
  assert.equal(plan.output[0].synthetic, 'placeholder');
  assert.deepEqual(planViolations(msgs, plan), []);
});

test('token-budget: a conversation within budget is a no-op', () => {
  const plan = planTokenBudget([user('u1'), assistant('a1')], { maxTokens: 20 }, ctxWith());
  assert.equal(plan.noop, true);
});
