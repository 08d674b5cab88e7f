// recent-turns caps each kept turn at a per-turn budget by truncating the turn's OLDEST tool results
// first and never its last message (src/core/strategies/recentTurns.ts, capTurn). The existing test
// ends its turn with assistant text, so a cap that also truncates the last message, or works from the
// newest result back, went unnoticed. Here the turn ends in a tool_result: the one the model is about
// to act on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planRecentTurns, type RecentTurnsParams } from '../../../src/core/strategies/recentTurns';
import { planViolations } from '../../../src/core/conversation/invariants';
import { assistant, call, ctxWith, FixedCostCounter, results, user } from '../../helpers/build';
import type { Message } from '../../../src/core/conversation/conversation';
import type { PlanContext } from '../../../src/core/pipeline/plan';

const TRUNCATED_COST = 20;

/** Fixed costs by id; a truncated copy (same id, new object) costs TRUNCATED_COST. Small summary estimate. */
function ctxFor(costs: Record<string, number>): PlanContext {
  const counter = new FixedCostCounter(costs);
  const cost = (m: Message) => (m.truncated ? TRUNCATED_COST : counter.countMessage(m));
  return ctxWith(
    { countMessage: cost, countMessages: (ms) => ms.reduce((n, m) => n + cost(m), 0) },
    { summaryMaxTokens: 5, contextWindow: 200_000, maxOutputTokens: 8_000 },
  );
}

/** Keep one turn with a per-turn budget of exactly `budget` tokens. */
const oneTurn = (budget: number): RecentTurnsParams => ({ turns: 1, perTurnFraction: 0.25, perTurnMin: budget, perTurnMax: budget });

test('recent-turns cap: a turn ending in a tool_result keeps that newest result even when truncating r1 alone cannot meet the budget', () => {
  // [u1, c1, r1, c2, r2]: 10 + 10 + 5000 + 10 + 5000. Budget 3000: with r1 truncated the turn is
  // still 5050 tokens, but r2 is the turn's last message (the result the model acts on next): kept.
  const msgs = [
    user('u0'),
    assistant('a0'),
    user('u1'),
    call('c1', ['t1', 'read_file']),
    results('r1', ['t1', 'A'.repeat(40)]),
    call('c2', ['t2', 'run_command']),
    results('r2', ['t2', 'B'.repeat(40)]),
  ];
  const plan = planRecentTurns(msgs, oneTurn(3000), ctxFor({ r1: 5000, r2: 5000 }));
  assert.equal(plan.noop, false);
  assert.deepEqual(
    plan.truncated.map((t) => t.id),
    ['r1'],
    'only the older result is truncated',
  );
  const r2 = plan.output.find((m) => m.id === 'r2');
  assert.ok(r2, 'r2 is kept');
  assert.equal(r2, msgs[6], 'r2 is the original message, untouched');
  assert.equal(r2.truncated, undefined);
  assert.match(
    JSON.stringify(plan.output.find((m) => m.id === 'r1')!.content),
    /Truncated to fit the per-turn budget: read_file output of 40 chars/,
  );
  assert.deepEqual(
    plan.output.slice(1).map((m) => m.id),
    ['u1', 'c1', 'r1', 'c2', 'r2'],
  );
  assert.equal(plan.fitsWindow, true);
  assert.deepEqual(planViolations(msgs, plan), []);
});

test('recent-turns cap: oldest results are truncated first; newer ones stay once the turn fits', () => {
  // [u1, c1, r1, c2, r2, c3, r3, c4, r4], each result 3000: 12,040 tokens, budget 10,000.
  // Truncating r1 (-2980) is enough: r2, r3 and r4 stay whole.
  const msgs = [
    user('u0'),
    assistant('a0'),
    user('u1'),
    call('c1', ['t1', 'read_file']),
    results('r1', ['t1', 'one']),
    call('c2', ['t2', 'read_file']),
    results('r2', ['t2', 'two']),
    call('c3', ['t3', 'search']),
    results('r3', ['t3', 'three']),
    call('c4', ['t4', 'run_command']),
    results('r4', ['t4', 'four']),
  ];
  const plan = planRecentTurns(msgs, oneTurn(10_000), ctxFor({ r1: 3000, r2: 3000, r3: 3000, r4: 3000 }));
  assert.deepEqual(
    plan.truncated.map((t) => t.id),
    ['r1'],
  );
  for (const id of ['r2', 'r3', 'r4']) {
    const m = plan.output.find((x) => x.id === id);
    assert.equal(
      m,
      msgs.find((x) => x.id === id),
      `${id} is kept as it was`,
    );
  }
  assert.deepEqual(planViolations(msgs, plan), []);

  // A tighter budget takes r1 then r2, still oldest first, and still never r4.
  const tight = planRecentTurns(msgs, oneTurn(3000), ctxFor({ r1: 3000, r2: 3000, r3: 3000, r4: 3000 }));
  assert.deepEqual(
    tight.truncated.map((t) => t.id),
    ['r1', 'r2', 'r3'],
  );
  assert.equal(
    tight.output.find((x) => x.id === 'r4'),
    msgs[10],
  );
  assert.deepEqual(planViolations(msgs, tight), []);
});
