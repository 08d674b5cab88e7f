import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Message } from '../../src/core/conversation/conversation';
import {
  CalibratedCounter,
  CalibrationConfigError,
  CalibrationSnapshotError,
  DEFAULT_CALIBRATION,
  totalInputTokens,
} from '../../src/core/counting/calibration';
import { MemoizedMessageCounter, type MessageTokenCounter, type TextTokenizer } from '../../src/core/counting/tokens';

/** A counter that says every message is worth a fixed number of tokens, and counts its calls. */
class FixedCounter implements MessageTokenCounter {
  calls = 0;
  constructor(private readonly perMessage: number) {}
  countMessage(): number {
    this.calls++;
    return this.perMessage;
  }
  countMessages(messages: readonly Message[]): number {
    let total = 0;
    for (const _ of messages) total += this.countMessage();
    return total;
  }
}

const msg = (id: string): Message => ({ id, role: 'user', content: `text of ${id}` });

test('before any observation the factor is 1, the prefix 0, and counts pass through unchanged', () => {
  const counter = new CalibratedCounter(new FixedCounter(101));
  assert.equal(counter.factor, 1);
  assert.equal(counter.prefix, 0);
  assert.equal(counter.observations, 0);
  assert.equal(counter.countMessage(msg('a')), 101);
  assert.equal(counter.countMessages([msg('a'), msg('b')]), 202);
  assert.equal(counter.estimate(5000), 5000);
});

test('one observation keeps the default factor and puts the rest in the prefix', () => {
  const counter = new CalibratedCounter(new FixedCounter(1));
  assert.equal(counter.observe(10_000, 52_000), true);
  assert.equal(counter.factor, DEFAULT_CALIBRATION.defaultFactor);
  assert.equal(counter.prefix, 52_000 - 10_000 * DEFAULT_CALIBRATION.defaultFactor);
  assert.equal(counter.estimate(10_000), 52_000);
  assert.equal(counter.estimate(12_000), 54_000);
  assert.equal(counter.observations, 1);
});

test('observations on one line recover its prefix and factor exactly', () => {
  const counter = new CalibratedCounter(new FixedCounter(1));
  for (const raw of [4000, 9000, 15_000, 22_000, 40_000]) counter.observe(raw, 31_000 + 1.35 * raw);
  assert.ok(Math.abs(counter.factor - 1.35) < 1e-9, `factor ${counter.factor}`);
  assert.ok(Math.abs(counter.prefix - 31_000) < 1e-5, `prefix ${counter.prefix}`);
  assert.equal(counter.estimate(100_000), 166_000);
});

test('noisy observations around a line estimate new requests within a few percent', () => {
  const counter = new CalibratedCounter(new FixedCounter(1));
  const noise = [0.02, -0.015, 0.01, -0.02, 0.015, 0.005, -0.01, 0.02, -0.015, 0];
  noise.forEach((n, i) => counter.observe(5000 + 3000 * i, Math.round((20_000 + 1.2 * (5000 + 3000 * i)) * (1 + n))));
  const truth = 20_000 + 1.2 * 40_000;
  assert.ok(Math.abs(counter.estimate(40_000) - truth) / truth < 0.03, `estimate ${counter.estimate(40_000)} vs ${truth}`);
});

test('recent observations weigh most: after the prefix changes, estimates follow the new one', () => {
  const counter = new CalibratedCounter(new FixedCounter(1));
  for (let i = 0; i < 20; i++) counter.observe(5000 + 1000 * i, 15_000 + 1.2 * (5000 + 1000 * i));
  for (let i = 0; i < 30; i++) counter.observe(5000 + 1000 * i, 40_000 + 1.2 * (5000 + 1000 * i));
  const truth = 40_000 + 1.2 * 20_000;
  assert.ok(Math.abs(counter.estimate(20_000) - truth) / truth < 0.02, `estimate ${counter.estimate(20_000)} vs ${truth}`);
});

test('reported below the raw count: no prefix, and the factor is the ratio', () => {
  const counter = new CalibratedCounter(new FixedCounter(1));
  counter.observe(10_000, 8000);
  assert.equal(counter.prefix, 0);
  assert.equal(counter.factor, 0.8);
  assert.equal(counter.estimate(20_000), 16_000);
});

test('counts scale the raw count by the factor only, rounded; countMessages rounds the total once', () => {
  const counter = new CalibratedCounter(new FixedCounter(3));
  counter.observe(1000, 1250);
  counter.observe(2000, 2500);
  assert.ok(Math.abs(counter.factor - 1.25) < 1e-9);
  assert.equal(counter.countMessage(msg('a')), 4); // round(3.75)
  assert.equal(counter.countMessages([msg('a'), msg('b'), msg('c')]), 11); // round(11.25), not 3 × 4
  assert.equal(counter.rawCountMessages([msg('a'), msg('b')]), 6);
});

test('factors beyond the allowed range are clamped to [minFactor, maxFactor]; the prefix to [0, maxPrefix]', () => {
  const steep = new CalibratedCounter(new FixedCounter(1));
  steep.observe(1000, 1000);
  steep.observe(2000, 100_000);
  assert.equal(steep.factor, DEFAULT_CALIBRATION.maxFactor);
  const low = new CalibratedCounter(new FixedCounter(1), { minFactor: 0.8, maxFactor: 1.6 });
  low.observe(100_000, 1);
  assert.equal(low.factor, 0.8);
  const capped = new CalibratedCounter(new FixedCounter(1), { maxPrefix: 10_000 });
  capped.observe(1000, 500_000);
  assert.equal(capped.prefix, 10_000);
});

test('non-positive, NaN and infinite observations are ignored and observe returns false', () => {
  const counter = new CalibratedCounter(new FixedCounter(1));
  counter.observe(1000, 1100);
  const bad: Array<[number, number]> = [
    [0, 100],
    [100, 0],
    [-5, 100],
    [100, -5],
    [Number.NaN, 100],
    [100, Number.NaN],
    [Number.POSITIVE_INFINITY, 100],
    [100, Number.POSITIVE_INFINITY],
  ];
  for (const [estimated, reported] of bad) assert.equal(counter.observe(estimated, reported), false, `${estimated}, ${reported}`);
  assert.equal(counter.estimate(1000), 1100);
  assert.equal(counter.observations, 1);
});

test('observations whose estimate is below minEstimatedTokens are ignored', () => {
  const counter = new CalibratedCounter(new FixedCounter(1), { minEstimatedTokens: 1000 });
  assert.equal(counter.observe(999, 5000), false);
  assert.equal(counter.observations, 0);
  assert.equal(counter.observe(1000, 1200), true);
  assert.equal(counter.estimate(1000), 1200);
});

test('property: factor and prefix stay within their bounds and estimates stay finite whatever is observed', () => {
  const anyNumber = fc.oneof(fc.double(), fc.integer({ min: -10, max: 2_000_000 }));
  fc.assert(
    fc.property(fc.array(fc.tuple(anyNumber, anyNumber), { maxLength: 40 }), fc.nat(1_000_000), (observations, raw) => {
      const counter = new CalibratedCounter(new FixedCounter(1));
      for (const [e, r] of observations) counter.observe(e, r);
      const d = DEFAULT_CALIBRATION;
      return (
        counter.factor >= d.minFactor &&
        counter.factor <= d.maxFactor &&
        counter.prefix >= 0 &&
        counter.prefix <= d.maxPrefix &&
        Number.isFinite(counter.estimate(raw))
      );
    }),
    { numRuns: 300 },
  );
});

test('toJSON and fromJSON round-trip the fit and the model through JSON text; the restored fit continues identically', () => {
  const counter = new CalibratedCounter(new FixedCounter(10), { model: 'claude-sonnet-4-5' });
  counter.observe(1000, 21_180);
  counter.observe(3000, 23_900);
  const stored = JSON.parse(JSON.stringify(counter)) as Record<string, unknown>;
  assert.equal(stored.version, 2);
  assert.equal(stored.model, 'claude-sonnet-4-5');
  assert.equal(stored.observations, 2);
  const restored = CalibratedCounter.fromJSON(new FixedCounter(10), stored);
  assert.equal(restored.factor, counter.factor);
  assert.equal(restored.prefix, counter.prefix);
  assert.equal(restored.observations, 2);
  assert.equal(restored.model, 'claude-sonnet-4-5');
  assert.equal(restored.countMessage(msg('a')), counter.countMessage(msg('a')));
  restored.observe(6000, 30_000);
  counter.observe(6000, 30_000);
  assert.equal(restored.estimate(9000), counter.estimate(9000));
});

test('fromJSON refuses a version 1 snapshot (a factor without a prefix) and says which version it was', () => {
  assert.throws(
    () => CalibratedCounter.fromJSON(new FixedCounter(1), { version: 1, factor: 1.2, observations: 4 }),
    (e: unknown) => e instanceof CalibrationSnapshotError && e.version === 1,
  );
});

test('fromJSON rejects corrupt or future snapshots with CalibrationSnapshotError', () => {
  const fit = { observations: 1, weight: 1, sumRaw: 10, sumReported: 20, sumRawSquared: 100, sumRawReported: 200 };
  const corrupt: unknown[] = [
    null,
    'factor=1.2',
    { version: 3, fit },
    { version: 2 },
    { version: 2, fit: 'x' },
    { version: 2, fit: { ...fit, weight: -1 } },
    { version: 2, fit: { ...fit, sumRaw: Number.NaN } },
    { version: 2, fit: { ...fit, observations: 1.5 } },
    { version: 2, fit: { ...fit, sumReported: '20' } },
    { version: 2, fit, model: 7 },
  ];
  for (const snapshot of corrupt) {
    assert.throws(() => CalibratedCounter.fromJSON(new FixedCounter(1), snapshot), CalibrationSnapshotError, JSON.stringify(snapshot));
  }
});

test('invalid options throw CalibrationConfigError naming the field', () => {
  const cases: Array<[Record<string, number>, string]> = [
    [{ decay: 0 }, 'decay'],
    [{ decay: 1.5 }, 'decay'],
    [{ decay: Number.NaN }, 'decay'],
    [{ minFactor: 0 }, 'minFactor'],
    [{ maxFactor: Number.POSITIVE_INFINITY }, 'maxFactor'],
    [{ minFactor: 2, maxFactor: 1 }, 'minFactor'],
    [{ maxPrefix: -1 }, 'maxPrefix'],
    [{ defaultFactor: 9 }, 'defaultFactor'],
    [{ minSpread: -1 }, 'minSpread'],
    [{ minEstimatedTokens: -1 }, 'minEstimatedTokens'],
  ];
  for (const [options, field] of cases) {
    assert.throws(
      () => new CalibratedCounter(new FixedCounter(1), options),
      (e: unknown) => e instanceof CalibrationConfigError && e.field === field && e.message.includes(field),
      JSON.stringify(options),
    );
  }
});

test('reset forgets every observation', () => {
  const counter = new CalibratedCounter(new FixedCounter(1));
  counter.observe(100, 170);
  counter.observe(300, 500);
  counter.reset();
  assert.equal(counter.factor, 1);
  assert.equal(counter.prefix, 0);
  assert.equal(counter.observations, 0);
});

test('totalInputTokens adds cache reads and cache writes back to input_tokens', () => {
  assert.equal(totalInputTokens({ input_tokens: 120 }), 120);
  assert.equal(totalInputTokens({ input_tokens: 120, cache_creation_input_tokens: 3000, cache_read_input_tokens: 40_000 }), 43_120);
  assert.equal(totalInputTokens({ input_tokens: 5, cache_creation_input_tokens: null, cache_read_input_tokens: null }), 5);
});

test('calibration keeps the inner memoization: each message is tokenized once', () => {
  let tokenized = 0;
  const tokenizer: TextTokenizer = { name: 'spy', countText: (t) => (tokenized++, t.length) };
  const counter = new CalibratedCounter(new MemoizedMessageCounter(tokenizer));
  const history = [msg('a'), msg('b'), msg('c')];
  counter.countMessages(history);
  counter.observe(counter.rawCountMessages(history), 40);
  counter.countMessages(history);
  counter.countMessages([...history, msg('d')]);
  assert.equal(tokenized, 4);
});
