import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planRequest, planWith, UnknownSplitTargetError } from '../../../src/core';
import { planSplitAt } from '../../../src/core/strategies/splitAt';
import { planViolations, requestViolations } from '../../../src/core/conversation/invariants';
import { assistant, call, ctxWith, FixedCostCounter, ids, results, summary, user } from '../../helpers/build';

const msgs = [
  user('u1'),
  assistant('a1'),
  user('u2'),
  call('c2', ['t2', 'read']),
  results('r2', ['t2', 'x']),
  assistant('a2'),
  user('u3'),
  assistant('a3'),
];
const cheapSummary = (id?: string) => ctxWith(new FixedCostCounter(), { summaryMaxTokens: 5, ...(id ? { splitAtId: id } : {}) });

test('split-at on a prompt: everything before it is archived, the tail starts exactly there, no note about moving', () => {
  const plan = planSplitAt(msgs, { summarize: 0 }, ctxWith(undefined, { splitAtId: 'u2' }));
  assert.deepEqual(ids(plan.archived), ['u1', 'a1']);
  assert.equal(plan.tailStartId, 'u2');
  assert.equal(plan.needsSummary, false);
  assert.deepEqual(ids(plan.output), ['u2', 'c2', 'r2', 'a2', 'u3', 'a3']);
  assert.equal(
    plan.notes.some((n) => n.includes('moved')),
    false,
    plan.notes.join('; '),
  );
  assert.deepEqual(planViolations(msgs, plan), []);
});

test('split-at on a tool_result mid-turn snaps forward to the next prompt and the plan names the id it moved to', () => {
  const plan = planSplitAt(msgs, { summarize: 0 }, ctxWith(undefined, { splitAtId: 'r2' }));
  assert.equal(plan.tailStartId, 'u3');
  assert.deepEqual(ids(plan.archived), ['u1', 'a1', 'u2', 'c2', 'r2', 'a2']);
  assert.ok(
    plan.notes.some((n) => n.includes('moved from r2 to u3')),
    plan.notes.join('; '),
  );
  assert.deepEqual(planViolations(msgs, plan), []);
});

test('split-at in a session of one prompt and many tool calls cuts at a tool-exchange boundary behind a synthetic opener', () => {
  const one = [
    user('u1'),
    call('c1', ['t1', 'read']),
    results('r1', ['t1', 'x']),
    call('c2', ['t2', 'read']),
    results('r2', ['t2', 'y']),
    call('c3', ['t3', 'read']),
    results('r3', ['t3', 'z']),
    assistant('a3'),
  ];
  const plan = planSplitAt(one, { summarize: 0 }, ctxWith(undefined, { splitAtId: 'r2' }));
  assert.equal(plan.tailStartId, 'c3');
  assert.ok(
    plan.notes.some((n) => n.includes('moved from r2 to c3')),
    plan.notes.join('; '),
  );
  assert.equal(plan.output[0].synthetic, 'placeholder');
  assert.deepEqual(ids(plan.output.slice(1)), ['c3', 'r3', 'a3']);
  assert.deepEqual(requestViolations(planRequest(plan)), []);
  assert.deepEqual(planViolations(one, plan), []);
});

test('split-at with summarize=1 asks for an LLM summary of exactly the archived messages', () => {
  const plan = planWith('split-at', msgs, { summarize: 1 }, cheapSummary('u3'));
  assert.equal(plan.needsSummary, true);
  assert.equal(plan.output[0].synthetic, 'summary');
  assert.deepEqual(ids(plan.summarizerInput!.toSummarize), ['u1', 'a1', 'u2', 'c2', 'r2', 'a2']);
  assert.deepEqual(ids(plan.output.slice(1)), ['u3', 'a3']);
  assert.equal(plan.params.summarize, 1);
});

test('split-at on an id that is not in the history throws an error naming the id', () => {
  assert.throws(
    () => planWith('split-at', msgs, {}, ctxWith(undefined, { splitAtId: 'nope-42' })),
    (e: unknown) => e instanceof UnknownSplitTargetError && /"nope-42"/.test(e.message),
  );
});

test('split-at on the first message is a no-op saying there is nothing before it; summarize takes only 0 or 1', () => {
  const plan = planSplitAt(msgs, { summarize: 0 }, ctxWith(undefined, { splitAtId: 'u1' }));
  assert.equal(plan.noop, true);
  assert.ok(
    plan.notes.some((n) => n.includes('nothing before u1')),
    plan.notes.join('; '),
  );
  assert.throws(() => planWith('split-at', msgs, { summarize: 2 }, ctxWith()), /summarize must be between 0 and 1/);
});

test('split-at on a prior summary splits before the first real message after it (nothing before it here); without an id, before the latest prompt', () => {
  const withSummary = [summary('s0'), user('u1'), assistant('a1'), user('u2'), assistant('a2')];
  const onSummary = planSplitAt(withSummary, { summarize: 1 }, cheapSummary('s0'));
  assert.equal(onSummary.noop, true, 'nothing real before u1');
  assert.ok(onSummary.notes.some((n) => n.includes('s0 is a synthetic message: split before u1')));
  assert.ok(onSummary.notes.some((n) => n.includes('nothing before u1')));
  const latest = planSplitAt(msgs, { summarize: 0 }, ctxWith());
  assert.equal(latest.tailStartId, 'u3');
  assert.ok(latest.notes.some((n) => n.includes('latest prompt u3')));
});
