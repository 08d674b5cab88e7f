import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Message } from '../../src/core/conversation';
import {
  CalibratedCounter,
  CalibrationConfigError,
  CalibrationSnapshotError,
  DEFAULT_CALIBRATION,
  totalInputTokens,
} from '../../src/core/calibration';
import { MemoizedMessageCounter, type MessageTokenCounter, type TextTokenizer } from '../../src/core/tokens';

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

test('before any observation the factor is 1 and counts pass through unchanged', () => {
  const counter = new CalibratedCounter(new FixedCounter(101));
  assert.equal(counter.factor, 1);
  assert.equal(counter.observations, 0);
  assert.equal(counter.countMessage(msg('a')), 101);
  assert.equal(counter.countMessages([msg('a'), msg('b')]), 202);
});

test('the first observation sets the factor to the observed ratio', () => {
  const counter = new CalibratedCounter(new FixedCounter(1));
  assert.equal(counter.observe(10_000, 12_000), true);
  assert.equal(counter.factor, 1.2);
  assert.equal(counter.observations, 1);
});

test('each later observation moves the factor by `smoothing` of the way to the new ratio', () => {
  const counter = new CalibratedCounter(new FixedCounter(1), { smoothing: 0.25 });
  counter.observe(1000, 1000); // factor 1
  counter.observe(1000, 2000); // 1 + 0.25 * (2 - 1)
  assert.equal(counter.factor, 1.25);
  counter.observe(1000, 1250); // ratio equals factor: no change
  assert.equal(counter.factor, 1.25);
});

test('repeated observations of one ratio converge to it monotonically', () => {
  const counter = new CalibratedCounter(new FixedCounter(1));
  counter.observe(50_000, 50_000);
  let previous = counter.factor;
  for (let i = 0; i < 25; i++) {
    counter.observe(40_000, 52_000); // ratio 1.3
    assert.ok(counter.factor > previous && counter.factor <= 1.3, `step ${i}: ${counter.factor}`);
    previous = counter.factor;
  }
  assert.ok(Math.abs(counter.factor - 1.3) < 0.001, `factor ${counter.factor}`);
});

test('noisy observations around a ratio settle near that ratio', () => {
  const counter = new CalibratedCounter(new FixedCounter(1));
  const noise = [0.05, -0.04, 0.02, -0.06, 0.03, 0.01, -0.02, 0.04, -0.03, 0];
  for (let round = 0; round < 5; round++) for (const n of noise) counter.observe(100_000, Math.round(100_000 * (1.15 + n)));
  assert.ok(Math.abs(counter.factor - 1.15) < 0.03, `factor ${counter.factor}`);
});

test('counts are the raw count times the factor, rounded; countMessages rounds the total once', () => {
  const counter = new CalibratedCounter(new FixedCounter(3));
  counter.observe(1000, 1500);
  assert.equal(counter.factor, 1.5);
  assert.equal(counter.countMessage(msg('a')), 5); // round(4.5)
  assert.equal(counter.countMessages([msg('a'), msg('b'), msg('c')]), 14); // round(13.5), not 3 × 5
  assert.equal(counter.rawCountMessages([msg('a'), msg('b')]), 6);
});

test('ratios beyond the allowed range are clamped to [minFactor, maxFactor]', () => {
  const counter = new CalibratedCounter(new FixedCounter(1));
  counter.observe(100, 100_000);
  assert.equal(counter.factor, DEFAULT_CALIBRATION.maxFactor);
  const low = new CalibratedCounter(new FixedCounter(1), { minFactor: 0.8, maxFactor: 1.6 });
  low.observe(100_000, 1);
  assert.equal(low.factor, 0.8);
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
  assert.equal(counter.factor, 1.1);
  assert.equal(counter.observations, 1);
});

test('observations whose estimate is below minEstimatedTokens are ignored', () => {
  const counter = new CalibratedCounter(new FixedCounter(1), { minEstimatedTokens: 1000 });
  assert.equal(counter.observe(999, 5000), false);
  assert.equal(counter.factor, 1);
  assert.equal(counter.observe(1000, 1200), true);
  assert.equal(counter.factor, 1.2);
});

test('property: the factor always stays within [minFactor, maxFactor] whatever is observed', () => {
  const anyNumber = fc.oneof(fc.double(), fc.integer({ min: -10, max: 2_000_000 }));
  fc.assert(
    fc.property(fc.array(fc.tuple(anyNumber, anyNumber), { maxLength: 40 }), (observations) => {
      const counter = new CalibratedCounter(new FixedCounter(1));
      for (const [e, r] of observations) counter.observe(e, r);
      return counter.factor >= DEFAULT_CALIBRATION.minFactor && counter.factor <= DEFAULT_CALIBRATION.maxFactor;
    }),
    { numRuns: 300 },
  );
});

test('toJSON and fromJSON round-trip the factor, the observation count and the model through JSON text', () => {
  const counter = new CalibratedCounter(new FixedCounter(10), { model: 'claude-sonnet-4-5' });
  counter.observe(1000, 1180);
  counter.observe(1000, 1240);
  const stored = JSON.parse(JSON.stringify(counter));
  assert.deepEqual(stored, { version: 1, factor: counter.factor, observations: 2, model: 'claude-sonnet-4-5' });
  const restored = CalibratedCounter.fromJSON(new FixedCounter(10), stored);
  assert.equal(restored.factor, counter.factor);
  assert.equal(restored.observations, 2);
  assert.equal(restored.model, 'claude-sonnet-4-5');
  assert.equal(restored.countMessage(msg('a')), counter.countMessage(msg('a')));
  // A restored counter keeps averaging rather than jumping to the next ratio.
  restored.observe(1000, 2000);
  assert.ok(restored.factor < 2 && restored.factor > counter.factor);
});

test('fromJSON clamps a stored factor into the new counter range', () => {
  const restored = CalibratedCounter.fromJSON(new FixedCounter(1), { version: 1, factor: 2.2, observations: 4 }, { maxFactor: 1.5 });
  assert.equal(restored.factor, 1.5);
});

test('fromJSON rejects corrupt or future snapshots with CalibrationSnapshotError', () => {
  const corrupt: unknown[] = [
    null,
    'factor=1.2',
    { version: 2, factor: 1.2, observations: 1 },
    { version: 1, factor: 'x', observations: 1 },
    { version: 1, factor: -1, observations: 1 },
    { version: 1, factor: Number.NaN, observations: 1 },
    { version: 1, factor: 1.2, observations: 1.5 },
    { version: 1, factor: 1.2, observations: -1 },
    { version: 1, factor: 1.2, observations: 1, model: 7 },
  ];
  for (const snapshot of corrupt) {
    assert.throws(() => CalibratedCounter.fromJSON(new FixedCounter(1), snapshot), CalibrationSnapshotError, JSON.stringify(snapshot));
  }
});

test('invalid options throw CalibrationConfigError naming the field', () => {
  const cases: Array<[Record<string, number>, string]> = [
    [{ smoothing: 0 }, 'smoothing'],
    [{ smoothing: 1.5 }, 'smoothing'],
    [{ smoothing: Number.NaN }, 'smoothing'],
    [{ minFactor: 0 }, 'minFactor'],
    [{ maxFactor: Number.POSITIVE_INFINITY }, 'maxFactor'],
    [{ minFactor: 2, maxFactor: 1 }, 'minFactor'],
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
  counter.reset();
  assert.equal(counter.factor, 1);
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
