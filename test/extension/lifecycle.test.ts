import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Disposable, DisposableStore, MutableDisposable, toDisposable, type IDisposable } from '../../src/extension/lifecycle';

function tracked(log: string[], name: string): IDisposable {
  return { dispose: () => void log.push(name) };
}

test('toDisposable runs its function once, however often it is disposed', () => {
  let runs = 0;
  const d = toDisposable(() => runs++);
  d.dispose();
  d.dispose();
  assert.equal(runs, 1);
});

test('a DisposableStore disposes what it holds once, in reverse order of addition', () => {
  const log: string[] = [];
  const store = new DisposableStore();
  store.add(tracked(log, 'a'));
  store.add(tracked(log, 'b'));
  store.add(tracked(log, 'c'));
  store.dispose();
  store.dispose();
  assert.deepEqual(log, ['c', 'b', 'a']);
  assert.equal(store.isDisposed, true);
});

test('a DisposableStore disposes a late addition at once and reports it', () => {
  const log: string[] = [];
  const reports: string[] = [];
  const store = new DisposableStore((m) => reports.push(m));
  store.dispose();
  const added = tracked(log, 'late');
  assert.equal(store.add(added), added, 'add returns what it was given');
  assert.deepEqual(log, ['late']);
  assert.equal(reports.length, 1);
});

test('DisposableStore.clear disposes the current items and the store stays usable', () => {
  const log: string[] = [];
  const store = new DisposableStore();
  store.add(tracked(log, 'a'));
  store.clear();
  store.add(tracked(log, 'b'));
  assert.deepEqual(log, ['a']);
  store.dispose();
  assert.deepEqual(log, ['a', 'b']);
});

test('DisposableStore.delete removes an item without disposing it', () => {
  const log: string[] = [];
  const store = new DisposableStore();
  const a = store.add(tracked(log, 'a'));
  store.delete(a);
  store.dispose();
  assert.deepEqual(log, []);
});

test('a DisposableStore disposes everything even if one throws, then rethrows the first error', () => {
  const log: string[] = [];
  const store = new DisposableStore();
  store.add(tracked(log, 'a'));
  store.add({
    dispose: () => {
      throw new Error('first');
    },
  });
  store.add({
    dispose: () => {
      throw new Error('second');
    },
  });
  store.add(tracked(log, 'd'));
  assert.throws(() => store.dispose(), /second/);
  assert.deepEqual(log, ['d', 'a']);
});

test('a disposable that disposes its own store while being disposed is not disposed twice', () => {
  const log: string[] = [];
  const store = new DisposableStore();
  store.add(tracked(log, 'a'));
  store.add({
    dispose: () => {
      log.push('reentrant');
      store.dispose();
    },
  });
  store.dispose();
  assert.deepEqual(log, ['reentrant', 'a']);
});

test('a MutableDisposable disposes the old value when a new one is set, and not when the same one is set again', () => {
  const log: string[] = [];
  const slot = new MutableDisposable<IDisposable>();
  const a = tracked(log, 'a');
  slot.value = a;
  slot.value = a;
  assert.deepEqual(log, []);
  slot.value = tracked(log, 'b');
  assert.deepEqual(log, ['a']);
  slot.clear();
  assert.deepEqual(log, ['a', 'b']);
  assert.equal(slot.value, undefined);
});

test('MutableDisposable.clearAndLeak empties the slot without disposing the value', () => {
  const log: string[] = [];
  const slot = new MutableDisposable<IDisposable>();
  const a = tracked(log, 'a');
  slot.value = a;
  assert.equal(slot.clearAndLeak(), a);
  assert.equal(slot.value, undefined);
  slot.dispose();
  assert.deepEqual(log, []);
});

test('a disposed MutableDisposable disposes its value and any value set afterwards', () => {
  const log: string[] = [];
  const slot = new MutableDisposable<IDisposable>();
  slot.value = tracked(log, 'a');
  slot.dispose();
  assert.deepEqual(log, ['a']);
  slot.value = tracked(log, 'late');
  assert.deepEqual(log, ['a', 'late']);
  assert.equal(slot.value, undefined);
});

test('a Disposable feature disposes what it registered when it is disposed', () => {
  const log: string[] = [];
  class Feature extends Disposable {
    readonly slot = this.register(new MutableDisposable<IDisposable>());
    constructor() {
      super();
      this.register(tracked(log, 'listener'));
      this.slot.value = tracked(log, 'panel');
    }
  }
  const feature = new Feature();
  feature.dispose();
  assert.deepEqual(log.sort(), ['listener', 'panel']);
});
