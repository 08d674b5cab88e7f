// The search of `splitpoint tune` on synthetic spaces (the evaluator is a table, no replay runs): it finds
// the known-cheapest feasible configuration, rejects configurations that overflow a session or fall
// below the target rate, takes the target from the starting (current) settings by default, asks for each
// configuration once, and reports the frontier. The space itself: only declared settings, the user's
// settings as the start, and a block holding only what differs from the defaults (or resets the user's).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { aggregate, better, frontier, MIN_SAVING, tuneSearch, type Evaluate, type SessionOutcome } from '../../src/settings/tuneSearch';
import {
  pointId,
  startPoint,
  toConfigJson,
  tunedSettingsBlock,
  tuneSpace,
  type TuneDimension,
  type TunePoint,
  type TuneSpace,
} from '../../src/settings/tuneSpace';
import { resolveReplayConfig } from '../../src/settings/replayConfigs';

const dim = (key: string, grid: unknown[]): TuneDimension => ({ name: key, key: () => key, values: () => grid });

/** Two dimensions a (1..3) and b (x, y); two sessions whose outcomes a table gives. */
const SPACE: TuneSpace = { dimensions: [dim('a', [1, 2, 3]), dim('b', ['x', 'y'])], skipped: [] };

type Table = (p: TunePoint) => [SessionOutcome, SessionOutcome];
const ok = (costUSD: number, probeRecall: number | null = null, compactions = probeRecall === null ? 0 : 1): SessionOutcome => ({
  costUSD,
  probeRecall,
  stoppedAt: null,
  compactions,
});

function evaluator(table: Table): { evaluate: Evaluate; asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    evaluate: async (batch) => {
      for (const b of batch) asked.push(b.id);
      return new Map(batch.map((b) => [b.id, table(b.point)]));
    },
  };
}

test('the search finds the known-cheapest feasible configuration of a small space (two sessions)', async () => {
  // Cost falls with a and is lower for y; a=3 with b=y overflows session 2; a=3 with x is the cheapest feasible.
  const table: Table = (p) => {
    const cost = 10 - Number(p.a) - (p.b === 'y' ? 0.5 : 0);
    if (p.a === 3 && p.b === 'y') return [ok(cost), { ...ok(cost), stoppedAt: 7 }];
    return [ok(cost), ok(cost)];
  };
  const { evaluate } = evaluator(table);
  const r = await tuneSearch({ space: SPACE, start: { a: 1, b: 'x' }, evaluate });
  assert.deepEqual(r.best?.point, { a: 3, b: 'x' });
  assert.equal(r.best?.costUSD, 14);
  const overflowing = r.tried.find((t) => t.point.a === 3 && t.point.b === 'y');
  assert.ok(overflowing, 'the overflowing configuration was tried');
  assert.equal(overflowing.feasible, false);
  assert.equal(overflowing.overflowed, 1);
  assert.ok(overflowing.costUSD < r.best!.costUSD, 'it was cheaper, and still rejected');
});

test('the target rate defaults to the current settings’ rate: a cheaper configuration that archives more is rejected', async () => {
  // a=2 compacts on session 1 and loses half its probes (rate 0.75); a=3 is cheaper still but loses all.
  const table: Table = (p) => {
    if (p.a === 1) return [ok(10), ok(10)];
    if (p.a === 2) return [ok(8, 0.5), ok(8)];
    return [ok(6, 0), ok(6, 0)];
  };
  const byDefault = await tuneSearch({ space: SPACE, start: { a: 1, b: 'x' }, evaluate: evaluator(table).evaluate });
  assert.equal(byDefault.target, 1, 'no compaction with the current settings: every session counts 1');
  assert.deepEqual(byDefault.best?.point, { a: 1, b: 'x' });
  const lower = await tuneSearch({ space: SPACE, start: { a: 1, b: 'x' }, evaluate: evaluator(table).evaluate, targetRecall: 0.7 });
  assert.equal(lower.target, 0.7);
  assert.equal(lower.best?.point.a, 2);
  assert.equal(lower.best?.rate, 0.75);
});

test('each configuration is asked for once, even when a later pass comes back to it', async () => {
  const { evaluate, asked } = evaluator((p) => [ok(10 - Number(p.a)), ok(p.b === 'y' ? 1 : 2)]);
  const r = await tuneSearch({ space: SPACE, start: { a: 1, b: 'x' }, evaluate, maxPasses: 3 });
  assert.equal(new Set(asked).size, asked.length);
  assert.equal(r.tried.length, asked.length);
  assert.deepEqual(r.best?.point, { a: 3, b: 'y' });
  assert.ok(r.passes >= 2, 'a pass that moved is followed by another');
});

test('with nothing feasible the best is null; the frontier keeps only non-dominated complete configurations', async () => {
  const r = await tuneSearch({
    space: SPACE,
    start: { a: 1, b: 'x' },
    evaluate: evaluator(() => [{ ...ok(1), stoppedAt: 3 }, ok(1)]).evaluate,
  });
  assert.equal(r.best, null);
  const s = (id: string, costUSD: number, rate: number, stoppedAt: number | null = null) =>
    aggregate(id, {}, [{ costUSD, probeRecall: rate, stoppedAt, compactions: 1 }], 0);
  const f = frontier([s('a', 5, 0.5), s('b', 6, 0.4), s('c', 7, 0.9), s('d', 3, 1, 9), s('e', 8, 0.9)]);
  assert.deepEqual(
    f.map((x) => x.id),
    ['a', 'c'],
  );
});

test('aggregate: cost is the sum, the rate the mean with a session without compaction counting 1', () => {
  const s = aggregate('x', {}, [ok(2, 0.5), ok(3), { ...ok(4, 1), stoppedAt: null }], 0.8);
  assert.equal(s.costUSD, 9);
  assert.equal(s.rate, (0.5 + 1 + 1) / 3);
  assert.equal(s.compactedSessions, 2);
  assert.equal(s.feasible, true);
});

test('the real space: only declared settings, the user’s settings as the start, a block of what differs', () => {
  const space = tuneSpace();
  const names = space.dimensions.map((d) => d.name);
  for (const k of ['promptCaching', 'autoCompact.threshold', 'autoCompact.strategy', 'microCompact.triggerTokens'])
    assert.ok(names.includes(k), `${k} is searched`);
  for (const s of space.skipped) assert.ok(!names.includes(s.key), `${s.key} is either searched or skipped`);
  const start = startPoint(
    space,
    new Map<string, unknown>([
      ['autoCompact.threshold', 0.6],
      ['microCompact.minChars', 500],
      ['model', 'claude-opus-4-6'],
    ]),
  );
  assert.equal(start['autoCompact.threshold'], 0.6);
  assert.equal(start['microCompact.minChars'], 500, 'a compaction setting the search does not vary is carried as the user set it');
  assert.equal(start.model, undefined, 'a setting that is not about compaction is not');
  assert.equal(start['strategyParams.recursive-summarization.maxEventsToKeep'], 10, 'the strategy’s default keep count');
  const threshold = space.dimensions.find((d) => d.name === 'autoCompact.threshold')!;
  assert.ok(threshold.values(start).includes(0.6), 'the current value is among the values tried');
  // Every point of the space is a configuration the replay runs.
  resolveReplayConfig(toConfigJson(start, 'start'), 'test');
  const shipped = startPoint(space, new Map());
  assert.deepEqual(tunedSettingsBlock(shipped, new Map()), {}, 'the shipped defaults: nothing to set');
  const moved = { ...shipped, 'microCompact.keepRecent': 1, 'strategyParams.recursive-summarization.maxEventsToKeep': 4 };
  // The user set 0.7; the tuned point has the shipped value: the block sets it back explicitly.
  assert.notEqual(shipped['autoCompact.threshold'], 0.7);
  assert.deepEqual(tunedSettingsBlock(moved, new Map<string, unknown>([['autoCompact.threshold', 0.7]])), {
    'splitpoint.autoCompact.threshold': shipped['autoCompact.threshold'],
    'splitpoint.microCompact.keepRecent': 1,
    'splitpoint.strategyParams': { 'recursive-summarization': { maxEventsToKeep: 4 } },
  });
  assert.notEqual(pointId(moved), pointId(shipped));
  assert.equal(pointId({ ...shipped }), pointId(shipped));
});

test('a move must save at least MIN_SAVING of the cost: a rounding-size saving does not change a setting', () => {
  const base = aggregate('base', {}, [ok(100)], 1);
  const tiny = aggregate('tiny', {}, [ok(100 * (1 - MIN_SAVING / 2))], 1);
  const real = aggregate('real', {}, [ok(100 * (1 - MIN_SAVING * 2))], 1);
  assert.equal(better(tiny, base), false);
  assert.equal(better(real, base), true);
});
