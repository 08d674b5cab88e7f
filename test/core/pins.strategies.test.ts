// Pins in each plan shape: kept verbatim before the tail (after the summary or opener), a tool pair
// moves together, an assistant pin older than everything kept gets an opener, and pinned tokens count
// against the budgets (the window, token-budget's maxTokens).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Message } from '../../src/core/conversation/conversation';
import { fitViolations, planViolations, requestViolations } from '../../src/core/conversation/invariants';
import { planRequest } from '../../src/core/pipeline/planRequest';
import { planWith } from '../../src/core/strategies';
import { assistant, call, ctxWith, FixedCostCounter, ids, results, summary, user } from '../helpers/build';

/** u0 a0, then turns u_i c_i r_i a_i (every message costs 10 tokens with FixedCostCounter). */
function history(turns = 6): Message[] {
  const out = [user('u0'), assistant('a0')];
  for (let i = 1; i <= turns; i++)
    out.push(user(`u${i}`), call(`c${i}`, [`t${i}`, 'read_file']), results(`r${i}`, [`t${i}`, 'body']), assistant(`a${i}`));
  return out;
}

const pins = (...xs: string[]) => new Set(xs);

test('pins: an LLM strategy puts the pinned messages after the summary and before the tail, in order', () => {
  const msgs = history();
  const plan = planWith(
    'recursive-summarization',
    msgs,
    { maxEventsToKeep: 4, overlapSize: 0 },
    ctxWith(new FixedCostCounter(), { summaryMaxTokens: 10, pinnedIds: pins('r2', 'u0') }),
  );
  assert.deepEqual(ids(plan.output).slice(1), ['u0', 'c2', 'r2', 'u6', 'c6', 'r6', 'a6']);
  assert.equal(plan.output[0].synthetic, 'summary');
  assert.equal(plan.syntheticIndex, 0);
  assert.deepEqual(plan.pinned, ['u0', 'c2', 'r2'], 'the tool_use partner of r2 is pinned with it');
  assert.equal(plan.pinnedTokens, 30);
  assert.ok(!plan.summarizerInput!.toSummarize.some((m) => ['u0', 'c2', 'r2'].includes(m.id)), 'pins are not summarized away');
  assert.equal(plan.tailStartId, 'u6');
  for (const id of ['u0', 'c2', 'r2'])
    assert.equal(
      plan.output.find((m) => m.id === id),
      msgs.find((m) => m.id === id),
      `${id} verbatim`,
    );
  assert.deepEqual(planViolations(msgs, plan), []);
  assert.deepEqual(requestViolations(planRequest(plan, { summary: 'S' })), []);
});

test('pins: a pinned assistant message older than everything kept is opened by a placeholder', () => {
  const msgs = history();
  const plan = planWith('sliding-window', msgs, { maxEvents: 4 }, ctxWith(new FixedCostCounter(), { pinnedIds: pins('a1') }));
  assert.deepEqual(ids(plan.output).slice(1), ['a1', 'u6', 'c6', 'r6', 'a6']);
  assert.equal(plan.output[0].synthetic, 'placeholder');
  assert.deepEqual(requestViolations(planRequest(plan)), []);
  assert.deepEqual(planViolations(msgs, plan), []);
});

test('pins: non-LLM strategies keep prior summaries first, then the pins, then the tail', () => {
  const msgs = [summary('s0'), ...history()];
  const plan = planWith('turn-window', msgs, { maxTurns: 1 }, ctxWith(new FixedCostCounter(), { pinnedIds: pins('u3') }));
  assert.deepEqual(ids(plan.output), ['s0', 'u3', 'u6', 'c6', 'r6', 'a6']);
  assert.ok(plan.notes.some((n) => /1 pinned message kept verbatim before the tail \(10 tokens/.test(n)));
});

test('pins: a pin inside the kept tail stays in place and is never truncated or micro-compacted', () => {
  const long = [
    user('u0'),
    call('c1', ['t1', 'read_file']),
    results('r1', ['t1', 'x'.repeat(2000)]),
    call('c2', ['t2', 'read_file']),
    results('r2', ['t2', 'y'.repeat(2000)]),
    assistant('a2'),
  ];
  const plan = planWith('micro-compact', long, { keepRecent: 0, minChars: 10 }, ctxWith(new FixedCostCounter(), { pinnedIds: pins('c1') }));
  assert.deepEqual(ids(plan.output), ids(long));
  assert.deepEqual(
    plan.truncated.map((e) => e.id),
    ['r2'],
    'only the unpinned result is replaced',
  );
  assert.equal(plan.output[2], long[2]);
});

test('pins: pinned tokens count against the window and against token-budget maxTokens', () => {
  const msgs = history();
  // 26 messages x 10 tokens; maxTokens 80 keeps u5..a6 (8 messages) without pins.
  const free = planWith('token-budget', msgs, { maxTokens: 80 }, ctxWith(new FixedCostCounter()));
  assert.deepEqual(ids(free.output), ['u5', 'c5', 'r5', 'a5', 'u6', 'c6', 'r6', 'a6']);
  // Two pins (20 tokens) leave 60: the rest snaps to u6, and the request stays within 80.
  const pinned = planWith('token-budget', msgs, { maxTokens: 80 }, ctxWith(new FixedCostCounter(), { pinnedIds: pins('u0', 'a0') }));
  assert.deepEqual(ids(pinned.output), ['u0', 'a0', 'u6', 'c6', 'r6', 'a6']);
  assert.ok(pinned.tokensAfter <= 80, `tokensAfter ${pinned.tokensAfter} within maxTokens 80`);
  assert.ok(pinned.notes.some((n) => /less 20 pinned tokens/.test(n)));
  // A window of 100 (+100 answer reserve): the pins' 20 tokens leave 80 for the rest, and the plan fits.
  const ctx = ctxWith(new FixedCostCounter(), {
    contextWindow: 200,
    maxOutputTokens: 100,
    summaryMaxTokens: 10,
    pinnedIds: pins('u0', 'a0'),
  });
  const fit = planWith('recursive-summarization', msgs, { maxEventsToKeep: 20, overlapSize: 0 }, ctx);
  assert.deepEqual(fitViolations(fit, ctx), []);
  assert.ok(fit.fitsWindow && fit.tokensAfter <= 100 && fit.output.some((m) => m.id === 'u0'));
});

test('pins: everything pinned is a no-op that still says what is pinned', () => {
  const msgs = history(1);
  const plan = planWith('sliding-window', msgs, { maxEvents: 1 }, ctxWith(new FixedCostCounter(), { pinnedIds: new Set(ids(msgs)) }));
  assert.equal(plan.noop, true);
  assert.deepEqual(plan.pinned, ids(msgs));
});
