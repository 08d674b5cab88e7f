import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planSlidingWindow } from '../../../src/core/strategies/slidingWindow';
import { planWith } from '../../../src/core/strategies';
import { planViolations } from '../../../src/core/conversation/invariants';
import { applyPlan } from '../../../src/core/pipeline/plan';
import { assistant, call, ctxWith, ids, results, summary, user } from '../../helpers/build';

const ctx = ctxWith();

test('sliding-window: the seed snap example [u1, a1, u2, a2, | a3, u3, a3] keeps [u3, a3]', () => {
  const msgs = [user('u1'), assistant('a1'), user('u2'), assistant('a2'), assistant('a3'), user('u3'), assistant('a3b')];
  const plan = planSlidingWindow(msgs, { maxEvents: 3 }, ctx);
  // Step 2: the last 3 real events are [a3, u3, a3b]; step 3: the cut snaps forward to u3.
  assert.deepEqual(ids(plan.output), ['u3', 'a3b']);
  assert.equal(plan.tailStartId, 'u3');
  assert.equal(plan.splitIndex, 5);
  assert.deepEqual(ids(plan.archived), ['u1', 'a1', 'u2', 'a2', 'a3']);
  assert.ok(plan.notes.some((n) => n.includes('start on a user prompt')));
});

test('sliding-window: a cut that lands on a user prompt keeps exactly maxEvents', () => {
  const msgs = [user('u1'), assistant('a1'), user('u2'), assistant('a2'), user('u3'), assistant('a3')];
  const plan = planSlidingWindow(msgs, { maxEvents: 4 }, ctx);
  assert.deepEqual(ids(plan.output), ['u2', 'a2', 'u3', 'a3']);
  assert.deepEqual(planViolations(msgs, plan), []);
});

test('sliding-window: synthetic summaries are kept first and do not count against maxEvents', () => {
  const msgs = [summary('s0'), user('u1'), assistant('a1'), user('u2'), assistant('a2')];
  const plan = planSlidingWindow(msgs, { maxEvents: 2 }, ctx);
  assert.deepEqual(ids(plan.output), ['s0', 'u2', 'a2']);
  assert.deepEqual(ids(plan.archived), ['u1', 'a1']);
  assert.deepEqual(planViolations(msgs, plan), []);
});

test('sliding-window: fewer real messages than maxEvents is a no-op', () => {
  const msgs = [summary('s0'), user('u1'), assistant('a1')];
  const plan = planSlidingWindow(msgs, { maxEvents: 2 }, ctx);
  assert.equal(plan.noop, true);
  assert.deepEqual(ids(plan.output), ids(msgs));
  assert.equal(plan.tokensAfter, plan.tokensBefore);
});

test('sliding-window: one prompt then many tool calls cuts at a tool-exchange boundary and opens with a placeholder', () => {
  const msgs = [user('u1')];
  for (let i = 0; i < 10; i++) msgs.push(call(`c${i}`, [`t${i}`, 'read_file']), results(`r${i}`, [`t${i}`, `file ${i}`]));
  msgs.push(assistant('done'));
  const plan = planSlidingWindow(msgs, { maxEvents: 4 }, ctx);
  // Raw cut at r8 (a tool_result: not allowed), snapped forward to c9, never splitting c9 from r9.
  assert.equal(plan.tailStartId, 'c9');
  assert.deepEqual(ids(plan.output.slice(1)), ['c9', 'r9', 'done']);
  assert.equal(plan.output[0].synthetic, 'placeholder');
  assert.equal(plan.output[0].role, 'user');
  assert.deepEqual(planViolations(msgs, plan), []);
  const applied = applyPlan(plan, { transcriptPath: '.transcripts/t.jsonl' });
  assert.match(String(applied[0].content), /19 earlier messages archived \(full history: \.transcripts\/t\.jsonl\)/);
});

test('sliding-window: the tail never opens with a tool_result even with parallel tool calls', () => {
  const msgs = [user('u1'), call('c1', ['t1', 'read_file'], ['t2', 'search']), results('r1', ['t1', 'x'], ['t2', 'y']), assistant('a1')];
  const plan = planSlidingWindow(msgs, { maxEvents: 2 }, ctx);
  assert.notEqual(plan.output.find((m) => !m.synthetic)?.id, 'r1');
  assert.deepEqual(planViolations(msgs, plan), []);
});

test('sliding-window: token figures account for archived messages', () => {
  const msgs = [user('u1'), assistant('a1'), user('u2'), assistant('a2')];
  const plan = planWith('sliding-window', msgs, { maxEvents: '2' }, ctx);
  assert.equal(plan.tokensBefore, 40);
  assert.equal(plan.tokensAfter, 20);
  assert.deepEqual(
    plan.kept.map((e) => e.tokens),
    [10, 10],
  );
});
