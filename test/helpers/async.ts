// Small async helpers for tests.
import assert from 'node:assert/strict';

/** The error `promise` rejects with; fails the test if it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  assert.fail('expected the promise to reject');
}

/**
 * `work`'s value and how many turns the event loop got while it ran: a setImmediate chain runs one callback
 * per turn, so work done in slices (runStepsSliced) lets it run many times, work done in one piece at most once.
 */
export async function withEventLoopTurns<T>(work: () => Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let done = false;
  const tick = () => {
    if (done) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  try {
    return { value: await work(), turns };
  } finally {
    done = true;
  }
}
