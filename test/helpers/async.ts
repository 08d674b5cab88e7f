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
