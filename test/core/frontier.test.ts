// The one frontier rule (core/replay/frontier.ts) the inspector's chart and `splitpoint tune` share.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { onFrontier } from '../../src/core/replay/frontier';

type P = { id: string; cost: number; rate: number | null };
const axes = { cost: (p: P) => p.cost, rate: (p: P) => p.rate };
const on = (points: P[], epsilon?: number) => points.filter((_, i) => onFrontier(points, { ...axes, epsilon })[i]).map((p) => p.id);

test('frontier: dominated points are off; equal points are both on; a point without a rate is on none and beats none', () => {
  const points: P[] = [
    { id: 'cheap-low', cost: 1, rate: 0.5 },
    { id: 'dear-high', cost: 3, rate: 1 },
    { id: 'dominated', cost: 2, rate: 0.4 },
    { id: 'same-cost-lower-rate', cost: 3, rate: 0.9 },
    { id: 'twin-a', cost: 2, rate: 0.8 },
    { id: 'twin-b', cost: 2, rate: 0.8 },
    { id: 'nothing-archived', cost: 0.5, rate: null },
  ];
  assert.deepEqual(on(points), ['cheap-low', 'dear-high', 'twin-a', 'twin-b']);
});

test('frontier: rates within epsilon are equal, so the cheaper of two such points alone is on it', () => {
  const points: P[] = [
    { id: 'cheaper', cost: 1, rate: 0.7 },
    { id: 'noise-higher', cost: 2, rate: 0.7 + 1e-12 },
  ];
  assert.deepEqual(on(points), ['cheaper', 'noise-higher'], 'without epsilon the float noise counts');
  assert.deepEqual(on(points, 1e-9), ['cheaper']);
});
