import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planTurnWindow } from '../../../src/core/strategies/turnWindow';
import { planViolations } from '../../../src/core/conversation/invariants';
import { assistant, call, ctxWith, ids, results, summary, user } from '../../helpers/build';

const ctx = ctxWith();

test('turn-window: keeps the last N complete turns and archives the oldest whole turns', () => {
  const msgs = [
    user('u1'),
    assistant('a1'),
    user('u2'),
    call('c2', ['t2', 'ls']),
    results('r2', ['t2', 'x']),
    assistant('a2'),
    user('u3'),
    assistant('a3'),
  ];
  const plan = planTurnWindow(msgs, { maxTurns: 2 }, ctx);
  assert.deepEqual(ids(plan.output), ['u2', 'c2', 'r2', 'a2', 'u3', 'a3']);
  assert.deepEqual(ids(plan.archived), ['u1', 'a1']);
  assert.equal(plan.tailStartId, 'u2');
  assert.deepEqual(planViolations(msgs, plan), []);
});

test('turn-window: tool_result user messages do not start turns', () => {
  const msgs = [
    user('u1'),
    call('c1', ['t1', 'ls']),
    results('r1', ['t1', 'x']),
    call('c1b', ['t2', 'ls']),
    results('r1b', ['t2', 'y']),
    assistant('a1'),
    user('u2'),
    assistant('a2'),
  ];
  const plan = planTurnWindow(msgs, { maxTurns: 1 }, ctx);
  assert.deepEqual(ids(plan.output), ['u2', 'a2']);
  assert.equal(plan.archived.length, 6);
});

test('turn-window: synthetics first, then the preamble before the first prompt, then kept turns', () => {
  const msgs = [
    summary('s0'),
    call('c0', ['t0', 'ls']),
    results('r0', ['t0', 'x']),
    assistant('a0'),
    user('u1'),
    assistant('a1'),
    user('u2'),
    assistant('a2'),
  ];
  const plan = planTurnWindow(msgs, { maxTurns: 1 }, ctx);
  assert.deepEqual(ids(plan.output), ['s0', 'c0', 'r0', 'a0', 'u2', 'a2']);
  assert.deepEqual(ids(plan.archived), ['u1', 'a1']);
  assert.deepEqual(planViolations(msgs, plan), []);
});

test('turn-window: at most maxTurns turns is a no-op', () => {
  const msgs = [user('u1'), assistant('a1'), user('u2'), assistant('a2')];
  const plan = planTurnWindow(msgs, { maxTurns: 2 }, ctx);
  assert.equal(plan.noop, true);
  assert.match(plan.notes[0], /2 turns <= maxTurns 2/);
});

test('turn-window: synthetic summaries are not counted as turns', () => {
  const msgs = [summary('s0'), user('u1'), assistant('a1')];
  assert.equal(planTurnWindow(msgs, { maxTurns: 1 }, ctx).noop, true);
});
