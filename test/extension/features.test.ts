import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FeatureActivation, FeatureUnavailableError, unavailable } from '../../src/extension/features';
import type { IDisposable } from '../../src/extension/lifecycle';
import type { FailureSink } from '../../src/extension/router';

function recordingSink(): FailureSink & { errors: string[]; shown: string[] } {
  const errors: string[] = [];
  const shown: string[] = [];
  return { errors, shown, error: (m) => void errors.push(m), showError: (m) => void shown.push(m) };
}

class Feature implements IDisposable {
  disposed = false;
  constructor(readonly name: string) {}
  dispose(): void {
    this.disposed = true;
  }
}

test('a feature that throws while activating is reported by name; the features before and after it activate', () => {
  const owner: IDisposable[] = [];
  const sink = recordingSink();
  const features = new FeatureActivation(owner, sink);
  const first = features.activate('First', () => new Feature('first'));
  const broken = features.activate('Broken feature', (): Feature => {
    throw new Error('no such scheme');
  });
  const last = features.activate('Last', () => new Feature('last'));

  assert.equal(first?.name, 'first');
  assert.equal(broken, undefined);
  assert.equal(last?.name, 'last');
  assert.deepEqual(owner, [first, last], 'the built features are handed to the owner, in order');
  assert.deepEqual(features.failed, ['Broken feature']);
  assert.equal(sink.errors.length, 1);
  assert.match(sink.errors[0], /^Broken feature failed to activate: Error: no such scheme\n\s+at /, 'logged with the stack');
  assert.deepEqual(sink.shown, [
    'Splitpoint: Broken feature failed to start (no such scheme). The rest of Splitpoint works; see the Splitpoint output.',
  ]);
});

test('a thrown non-Error is reported too, and a sink that throws does not stop activation', () => {
  const owner: IDisposable[] = [];
  const features = new FeatureActivation(owner, {
    error: () => {
      throw new Error('channel disposed');
    },
    showError: () => undefined,
  });
  assert.equal(
    features.activate('Odd', () => {
      throw 'a string';
    }),
    undefined,
  );
  assert.ok(features.activate('Next', () => new Feature('next')));
  assert.deepEqual(features.failed, ['Odd']);
  assert.equal(owner.length, 1);
});

test('what stands in for a feature that did not start rejects with an error naming it', async () => {
  const openDiff: (id: string) => Promise<void> = unavailable('Diff review');
  await assert.rejects(openDiff('toolu_1'), (e: unknown) => {
    assert.ok(e instanceof FeatureUnavailableError);
    assert.equal(e.feature, 'Diff review');
    assert.match(e.message, /^Diff review is not available: it failed to start/);
    return true;
  });
});
