import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  allOf,
  alwaysTrigger,
  anyOf,
  budgetTrigger,
  defaultHeadroom,
  formatDuration,
  formatTokens,
  neverTrigger,
  structuralTrigger,
  temporalTrigger,
  TriggerConfigError,
  turnCountTrigger,
  type Trigger,
  type TriggerState,
} from '../../src/core/pipeline/triggers';

function state(over: Partial<TriggerState> = {}): TriggerState {
  return { tokens: 0, contextWindow: 200_000, turnCount: 0, now: 1_700_000_000_000, events: [], ...over };
}

/** Asserts that `build` throws a TriggerConfigError naming `trigger` and `field`. */
function assertConfigError(build: () => unknown, trigger: string, field: string): void {
  assert.throws(build, (e: unknown) => {
    assert.ok(e instanceof TriggerConfigError, `expected TriggerConfigError, got ${String(e)}`);
    assert.equal(e.trigger, trigger);
    assert.equal(e.field, field);
    assert.ok(e.message.startsWith(`${trigger}: ${field} `), e.message);
    return true;
  });
}

// --- budget -------------------------------------------------------------------------------------

test('absolute budget fires at and above maxTokens, not below', () => {
  const t = budgetTrigger({ maxTokens: 80_000 });
  assert.deepEqual(t.evaluate(state({ tokens: 79_999 })), { fire: false, reason: 'tokens 79,999 < 80,000' });
  assert.deepEqual(t.evaluate(state({ tokens: 80_000 })), { fire: true, reason: 'tokens 80,000 >= 80,000' });
  assert.equal(t.evaluate(state({ tokens: 1e9 })).fire, true);
  assert.equal(t.description, 'tokens >= 80,000');
});

test('fraction budget fires at fraction × window and says so in the reason', () => {
  const t = budgetTrigger({ fraction: 0.8 });
  assert.deepEqual(t.evaluate(state({ tokens: 161_200 })), { fire: true, reason: 'tokens 161,200 >= 160,000 (80% of 200,000)' });
  assert.deepEqual(t.evaluate(state({ tokens: 159_999 })), { fire: false, reason: 'tokens 159,999 < 160,000 (80% of 200,000)' });
  assert.equal(t.evaluate(state({ tokens: 160_000 })).fire, true);
  assert.equal(t.description, 'tokens >= 80% of the context window');
});

test('fraction budget follows the window of each check and is immune to float noise', () => {
  const t = budgetTrigger({ fraction: 0.7 });
  assert.equal(t.evaluate(state({ tokens: 70_000, contextWindow: 100_000 })).fire, true);
  assert.equal(t.evaluate(state({ tokens: 699_999, contextWindow: 1_000_000 })).fire, false);
  assert.equal(t.evaluate(state({ tokens: 700_000, contextWindow: 1_000_000 })).fire, true);
  assert.equal(budgetTrigger({ fraction: 1 }).evaluate(state({ tokens: 200_000 })).fire, true);
  assert.match(budgetTrigger({ fraction: 0.125 }).evaluate(state()).reason, /\(12\.5% of 200,000\)/);
});

test('headroom budget fires when the space left is at or below the headroom', () => {
  const t = budgetTrigger({ headroomTokens: 20_000 });
  assert.deepEqual(t.evaluate(state({ tokens: 179_999 })), { fire: false, reason: 'headroom 20,001 > 20,000 (tokens 179,999 of 200,000)' });
  assert.deepEqual(t.evaluate(state({ tokens: 180_000 })), { fire: true, reason: 'headroom 20,000 <= 20,000 (tokens 180,000 of 200,000)' });
  assert.equal(t.evaluate(state({ tokens: 250_000 })).fire, true, 'over the window means negative headroom');
  assert.equal(budgetTrigger({ headroomTokens: 0 }).evaluate(state({ tokens: 200_000 })).fire, true);
});

test('window-relative budgets hold fire when the context window is unknown', () => {
  for (const t of [budgetTrigger({ fraction: 0.5 }), budgetTrigger({ headroomTokens: 1000 })]) {
    for (const contextWindow of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      const r = t.evaluate(state({ tokens: 1e9, contextWindow }));
      assert.equal(r.fire, false);
      assert.match(r.reason, /context window unknown/);
    }
  }
  assert.equal(budgetTrigger({ maxTokens: 10 }).evaluate(state({ tokens: 10, contextWindow: 0 })).fire, true);
});

test('defaultHeadroom is 20K for windows over 200K and 20% for 200K and smaller', () => {
  assert.equal(defaultHeadroom(1_000_000), 20_000);
  assert.equal(defaultHeadroom(200_001), 20_000);
  assert.equal(defaultHeadroom(200_000), 40_000);
  assert.equal(defaultHeadroom(128_000), 25_600);
  assert.equal(defaultHeadroom(8_192), 1_638);
  assert.equal(defaultHeadroom(0), 0);
  const t = budgetTrigger({ headroomTokens: defaultHeadroom(1_000_000) });
  assert.equal(t.evaluate(state({ tokens: 980_000, contextWindow: 1_000_000 })).fire, true);
  assert.equal(t.evaluate(state({ tokens: 979_999, contextWindow: 1_000_000 })).fire, false);
});

test('budget configuration errors name budgetTrigger and the bad field', () => {
  assertConfigError(() => budgetTrigger({ maxTokens: -1 }), 'budgetTrigger', 'maxTokens');
  assertConfigError(() => budgetTrigger({ maxTokens: 0 }), 'budgetTrigger', 'maxTokens');
  assertConfigError(() => budgetTrigger({ maxTokens: Number.NaN }), 'budgetTrigger', 'maxTokens');
  assertConfigError(() => budgetTrigger({ maxTokens: Number.POSITIVE_INFINITY }), 'budgetTrigger', 'maxTokens');
  assertConfigError(() => budgetTrigger({ fraction: 0 }), 'budgetTrigger', 'fraction');
  assertConfigError(() => budgetTrigger({ fraction: 1.01 }), 'budgetTrigger', 'fraction');
  assertConfigError(() => budgetTrigger({ fraction: -0.5 }), 'budgetTrigger', 'fraction');
  assertConfigError(() => budgetTrigger({ fraction: Number.NaN }), 'budgetTrigger', 'fraction');
  assertConfigError(() => budgetTrigger({ headroomTokens: -1 }), 'budgetTrigger', 'headroomTokens');
  assertConfigError(() => budgetTrigger({ headroomTokens: Number.NaN }), 'budgetTrigger', 'headroomTokens');
  assertConfigError(() => budgetTrigger({} as never), 'budgetTrigger', 'config');
  assertConfigError(() => budgetTrigger({ maxTokens: 10, fraction: 0.5 } as never), 'budgetTrigger', 'config');
  assertConfigError(() => budgetTrigger(null as never), 'budgetTrigger', 'config');
  assertConfigError(() => defaultHeadroom(-5), 'defaultHeadroom', 'contextWindow');
  assertConfigError(() => defaultHeadroom(Number.NaN), 'defaultHeadroom', 'contextWindow');
});

// --- turns, events, time ------------------------------------------------------------------------

test('turn-count trigger fires only when there are more than n turns', () => {
  const t = turnCountTrigger(10);
  assert.deepEqual(t.evaluate(state({ turnCount: 10 })), { fire: false, reason: 'turns 10 <= 10' });
  assert.deepEqual(t.evaluate(state({ turnCount: 11 })), { fire: true, reason: 'turns 11 > 10' });
  assert.equal(turnCountTrigger(0).evaluate(state({ turnCount: 1 })).fire, true);
  assert.equal(t.description, 'turns > 10');
});

test('turn-count configuration errors name the field', () => {
  assertConfigError(() => turnCountTrigger(-1), 'turnCountTrigger', 'maxTurns');
  assertConfigError(() => turnCountTrigger(2.5), 'turnCountTrigger', 'maxTurns');
  assertConfigError(() => turnCountTrigger(Number.NaN), 'turnCountTrigger', 'maxTurns');
});

test('structural trigger fires when one of its events happened since the last check', () => {
  const t = structuralTrigger('tool-output');
  assert.deepEqual(t.evaluate(state({ events: ['message', 'tool-output'] })), { fire: true, reason: "event 'tool-output'" });
  assert.deepEqual(t.evaluate(state({ events: ['message'] })), { fire: false, reason: "no 'tool-output' event" });
  assert.equal(t.evaluate(state()).fire, false);

  const either = structuralTrigger(['compacted', 'user-compact']);
  assert.equal(either.description, "on 'compacted' or 'user-compact'");
  assert.deepEqual(either.evaluate(state({ events: ['user-compact'] })), { fire: true, reason: "event 'user-compact'" });
  assert.equal(either.evaluate(state({ events: ['message'] })).fire, false);
  assert.equal(structuralTrigger('custom-host-event').evaluate(state({ events: ['custom-host-event'] })).fire, true);
});

test('structural configuration errors name the field', () => {
  assertConfigError(() => structuralTrigger([]), 'structuralTrigger', 'eventNames');
  assertConfigError(() => structuralTrigger(''), 'structuralTrigger', 'eventNames');
  assertConfigError(() => structuralTrigger(['message', 7 as never]), 'structuralTrigger', 'eventNames');
});

test('temporal trigger: the first check only arms it, then it fires once per elapsed interval', () => {
  const t0 = 1_000_000;
  const t = temporalTrigger(300_000);
  assert.equal(t.description, 'every 5m');
  assert.equal(t.lastFiredAt, undefined);
  assert.deepEqual(t.evaluate(state({ now: t0 })), { fire: false, reason: 'armed; next after 5m' });
  assert.equal(t.lastFiredAt, t0);
  assert.deepEqual(t.evaluate(state({ now: t0 + 299_999 })), { fire: false, reason: '4m 59s elapsed < 5m' });
  assert.deepEqual(t.evaluate(state({ now: t0 + 300_000 })), { fire: true, reason: '5m elapsed >= 5m' });
  assert.equal(t.evaluate(state({ now: t0 + 300_001 })).fire, false, 'the interval restarts at each fire');
  assert.equal(t.evaluate(state({ now: t0 + 650_000 })).fire, true);
  assert.equal(t.lastFiredAt, t0 + 650_000);
});

test('temporal trigger can fire on its first check when asked to', () => {
  const t = temporalTrigger(1000, { fireOnFirstEvaluation: true });
  assert.deepEqual(t.evaluate(state({ now: 5 })), { fire: true, reason: 'first check' });
  assert.equal(t.evaluate(state({ now: 500 })).fire, false);
  assert.equal(t.evaluate(state({ now: 1005 })).fire, true);
});

test('temporal trigger instances keep separate clocks, and reset disarms one', () => {
  const a = temporalTrigger(100);
  const b = temporalTrigger(100);
  a.evaluate(state({ now: 0 }));
  assert.equal(b.evaluate(state({ now: 150 })).fire, false, 'b is only armed by its own first check');
  assert.equal(a.evaluate(state({ now: 150 })).fire, true);
  a.reset();
  assert.equal(a.lastFiredAt, undefined);
  assert.equal(a.evaluate(state({ now: 10_000 })).fire, false);
});

test('temporal trigger re-arms instead of firing when the clock goes backwards', () => {
  const t = temporalTrigger(1000);
  t.evaluate(state({ now: 10_000 }));
  const r = t.evaluate(state({ now: 4_000 }));
  assert.equal(r.fire, false);
  assert.match(r.reason, /clock went back 6s; re-armed/);
  assert.equal(t.evaluate(state({ now: 4_999 })).fire, false);
  assert.equal(t.evaluate(state({ now: 5_000 })).fire, true);
});

test('temporal configuration errors name the field', () => {
  assertConfigError(() => temporalTrigger(0), 'temporalTrigger', 'intervalMs');
  assertConfigError(() => temporalTrigger(-10), 'temporalTrigger', 'intervalMs');
  assertConfigError(() => temporalTrigger(Number.NaN), 'temporalTrigger', 'intervalMs');
});

test('never and always triggers ignore the state', () => {
  for (const s of [state(), state({ tokens: 1e9, turnCount: 1e6, events: ['user-compact'] })]) {
    assert.equal(neverTrigger.evaluate(s).fire, false);
    assert.equal(alwaysTrigger.evaluate(s).fire, true);
  }
  assert.equal(neverTrigger.description, 'never');
  assert.equal(alwaysTrigger.description, 'always');
});

// --- composition --------------------------------------------------------------------------------

const over80 = budgetTrigger({ fraction: 0.8 });
const onToolOutput = structuralTrigger('tool-output');

test('anyOf fires when any child fires and lists the reasons of those that fired', () => {
  const t = anyOf(over80, onToolOutput);
  assert.equal(t.description, "any of (tokens >= 80% of the context window, on 'tool-output')");
  assert.deepEqual(t.evaluate(state({ tokens: 170_000, events: ['tool-output'] })), {
    fire: true,
    reason: "tokens 170,000 >= 160,000 (80% of 200,000) or event 'tool-output'",
  });
  assert.deepEqual(t.evaluate(state({ tokens: 10, events: ['tool-output'] })), { fire: true, reason: "event 'tool-output'" });
  assert.deepEqual(t.evaluate(state({ tokens: 10 })), {
    fire: false,
    reason: "tokens 10 < 160,000 (80% of 200,000); no 'tool-output' event",
  });
});

test('allOf fires only when every child fires, and otherwise names what is missing', () => {
  // Seed 004's inline auto-compact: over budget AND a structural guard.
  const t = allOf(over80, onToolOutput);
  assert.deepEqual(t.evaluate(state({ tokens: 170_000, events: ['tool-output'] })), {
    fire: true,
    reason: "tokens 170,000 >= 160,000 (80% of 200,000) and event 'tool-output'",
  });
  assert.deepEqual(t.evaluate(state({ tokens: 170_000 })), { fire: false, reason: "no 'tool-output' event" });
  assert.equal(t.evaluate(state({ tokens: 1, events: ['tool-output'] })).fire, false);
});

test('nested compositions parenthesize the inner reasons', () => {
  const t = anyOf(allOf(over80, onToolOutput), structuralTrigger('user-compact'));
  assert.deepEqual(t.evaluate(state({ tokens: 170_000, events: ['tool-output', 'user-compact'] })), {
    fire: true,
    reason: "(tokens 170,000 >= 160,000 (80% of 200,000) and event 'tool-output') or event 'user-compact'",
  });
  assert.equal(t.description, "any of (all of (tokens >= 80% of the context window, on 'tool-output'), on 'user-compact')");
});

test('compositions evaluate every child on every check, so stateful children see each tick', () => {
  let evaluations = 0;
  const counting: Trigger = { description: 'counting', evaluate: () => (evaluations++, { fire: false, reason: 'counted' }) };
  anyOf(alwaysTrigger, counting).evaluate(state());
  allOf(neverTrigger, counting).evaluate(state());
  assert.equal(evaluations, 2);
});

test('composition with identity elements behaves like the other child', () => {
  for (const tokens of [0, 170_000]) {
    const s = state({ tokens });
    assert.equal(anyOf(neverTrigger, over80).evaluate(s).fire, over80.evaluate(s).fire);
    assert.equal(allOf(alwaysTrigger, over80).evaluate(s).fire, over80.evaluate(s).fire);
    assert.equal(anyOf(alwaysTrigger, over80).evaluate(s).fire, true);
    assert.equal(allOf(neverTrigger, over80).evaluate(s).fire, false);
  }
});

test('a composition of budget, turns and time fires on whichever comes first', () => {
  const t = anyOf(budgetTrigger({ headroomTokens: defaultHeadroom(200_000) }), turnCountTrigger(50), temporalTrigger(60_000));
  assert.equal(t.evaluate(state({ now: 0 })).fire, false);
  assert.deepEqual(t.evaluate(state({ now: 1000, turnCount: 51 })), { fire: true, reason: 'turns 51 > 50' });
  assert.deepEqual(t.evaluate(state({ now: 60_000 })), { fire: true, reason: '1m elapsed >= 1m' });
});

test('composition configuration errors name the trigger', () => {
  assertConfigError(() => anyOf(), 'anyOf', 'triggers');
  assertConfigError(() => allOf(), 'allOf', 'triggers');
  assertConfigError(() => allOf(alwaysTrigger, {} as never), 'allOf', 'triggers[1]');
});

test('TriggerConfigError is an Error with a user-facing message', () => {
  try {
    budgetTrigger({ fraction: 2 });
    assert.fail('expected a throw');
  } catch (e) {
    assert.ok(e instanceof Error);
    assert.equal((e as Error).name, 'TriggerConfigError');
    assert.equal((e as Error).message, 'budgetTrigger: fraction must be in (0, 1], got 2');
  }
});

test('evaluating any trigger takes constant time, independent of conversation size', () => {
  const t = anyOf(allOf(over80, onToolOutput), turnCountTrigger(10), temporalTrigger(1000), budgetTrigger({ headroomTokens: 1 }));
  const timeFor = (tokens: number, turnCount: number) => {
    const s = state({ tokens, turnCount, events: ['message'] });
    const started = performance.now();
    for (let i = 0; i < 20_000; i++) t.evaluate(s);
    return performance.now() - started;
  };
  timeFor(1, 1); // warm up
  const small = timeFor(1, 1);
  const huge = timeFor(1e12, 1e9);
  assert.ok(huge < small * 5 + 20, `small ${small.toFixed(1)} ms, huge ${huge.toFixed(1)} ms`);
});

test('formatTokens groups thousands and formatDuration reads naturally', () => {
  assert.equal(formatTokens(161_200), '161,200');
  assert.equal(formatTokens(999), '999');
  assert.equal(formatTokens(-20_001), '-20,001');
  assert.equal(formatTokens(1_234_567.6), '1,234,568');
  assert.equal(formatTokens(Number.NaN), 'NaN');
  assert.equal(formatDuration(250), '250ms');
  assert.equal(formatDuration(1500), '1.5s');
  assert.equal(formatDuration(59_999), '59.9s');
  assert.equal(formatDuration(119_700), '1m 59s');
  assert.equal(formatDuration(3_600_000), '1h');
  assert.equal(formatDuration(90_000), '1m 30s');
  assert.equal(formatDuration(5_400_000), '1h 30m');
  assert.equal(formatDuration(7_200_000), '2h');
});
