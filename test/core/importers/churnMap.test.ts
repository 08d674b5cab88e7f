// ChurnMap / ChurnSet behave as Map / Set (same answers, same iteration order) through any mix of set,
// delete and clear, below and above the size where they switch from arrays to a Map and back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ChurnMap, ChurnSet } from '../../../src/core/importers/churnMap';

type Op = { op: 'set'; key: number; value: number } | { op: 'delete'; key: number } | { op: 'clear' };

// Keys from a pool of 80 so that runs go past 32 entries (the Map) and back under it.
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ op: fc.constant('set' as const), key: fc.nat(79), value: fc.nat() }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('delete' as const), key: fc.nat(79) }) },
  { weight: 1, arbitrary: fc.constant({ op: 'clear' as const }) },
);

test('ChurnMap answers as a Map after every operation, in the same order', () => {
  fc.assert(
    fc.property(fc.array(op, { maxLength: 400 }), (ops) => {
      const real = new Map<string, number>();
      const churn = new ChurnMap<string, number>();
      for (const o of ops) {
        const key = `k${o.op === 'clear' ? 0 : o.key}`;
        if (o.op === 'set') {
          real.set(key, o.value);
          assert.equal(churn.set(key, o.value), churn);
        } else if (o.op === 'delete') {
          assert.equal(churn.delete(key), real.delete(key));
        } else {
          real.clear();
          churn.clear();
        }
        assert.equal(churn.size, real.size);
        assert.equal(churn.has(key), real.has(key));
        assert.equal(churn.get(key), real.get(key));
      }
      assert.deepEqual([...churn], [...real]);
      assert.deepEqual([...churn.values()], [...real.values()]);
    }),
    { numRuns: 300 },
  );
});

test('ChurnSet answers as a Set, in the same order', () => {
  fc.assert(
    fc.property(fc.array(op, { maxLength: 400 }), (ops) => {
      const real = new Set<number>();
      const churn = new ChurnSet<number>();
      for (const o of ops) {
        if (o.op === 'set') {
          real.add(o.key);
          churn.add(o.key);
        } else if (o.op === 'delete') {
          assert.equal(churn.delete(o.key), real.delete(o.key));
        } else {
          real.clear();
          churn.clear();
        }
        assert.equal(churn.size, real.size);
      }
      assert.deepEqual([...churn], [...real]);
      for (let k = 0; k < 80; k++) assert.equal(churn.has(k), real.has(k));
    }),
    { numRuns: 300 },
  );
});
