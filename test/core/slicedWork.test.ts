// SlicedWork: a generator run in slices that a synchronous caller can finish at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SlicedWork, type Steps } from '../../src/core/base/slicedWork';

function* counting(log: number[], n: number, failAt = -1): Steps<void> {
  for (let i = 0; i < n; i++) {
    if (i === failAt) throw new Error(`step ${i} failed`);
    log.push(i);
    yield;
  }
}

test('run goes through every step in slices; running is true until it is done', async () => {
  const work = new SlicedWork();
  const log: number[] = [];
  const done = work.run(counting(log, 5), 0);
  assert.equal(work.running, true);
  await done;
  assert.equal(work.running, false);
  assert.deepEqual(log, [0, 1, 2, 3, 4]);
});

test('finish() runs the rest synchronously, each step once; the run then resolves', async () => {
  const work = new SlicedWork();
  const log: number[] = [];
  const done = work.run(counting(log, 1_000), 0);
  assert.ok(log.length < 1_000, 'a slice of 0 ms stops after a step');
  work.finish();
  assert.equal(work.running, false);
  assert.deepEqual(log, [...Array(1_000).keys()]);
  await done;
  assert.deepEqual(log, [...Array(1_000).keys()], 'nothing ran twice');
});

test('a step that throws rejects the run and leaves nothing running', async () => {
  const work = new SlicedWork();
  await assert.rejects(work.run(counting([], 10, 3), 0), /step 3 failed/);
  assert.equal(work.running, false);
});
