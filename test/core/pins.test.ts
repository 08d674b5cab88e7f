// Pins: the closed set (a tool_use pins its tool_result and vice versa), unknown ids are errors naming the id.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pinnedIn, resolvePins } from '../../src/core/ledger/pins';
import { assistant, call, results, summary, user } from '../helpers/build';

const msgs = [
  user('u1'),
  call('c1', ['t1', 'read_file']),
  results('r1', ['t1', 'file body']),
  assistant('a1'),
  user('u2'),
  call('c2', ['t2', 'ls']),
  results('r2', ['t2', 'x']),
];

test('pins: pinning a tool_use pins the message carrying its tool_result, and the other way round', () => {
  const a = resolvePins(msgs, ['c1']);
  assert.ok(a.ok);
  assert.deepEqual([...a.pinned].sort(), ['c1', 'r1']);
  const b = resolvePins(msgs, ['r2', 'u1']);
  assert.ok(b.ok);
  assert.deepEqual([...b.pinned].sort(), ['c2', 'r2', 'u1']);
});

test('pins: a plain message pins only itself; no ids is the empty set', () => {
  const r = resolvePins(msgs, ['a1']);
  assert.ok(r.ok);
  assert.deepEqual([...r.pinned], ['a1']);
  const none = resolvePins(msgs, []);
  assert.ok(none.ok);
  assert.equal(none.pinned.size, 0);
});

test('pins: an unknown id is an error naming the id', () => {
  const r = resolvePins(msgs, ['u1', 'nope-42']);
  assert.equal(r.ok, false);
  if (!r.ok) {
    assert.match(r.error.message, /"nope-42"/);
    assert.equal(r.error.id, 'nope-42');
  }
});

test('pins: a stored pin set skips ids no longer in the history and still closes pairs', () => {
  assert.deepEqual([...pinnedIn(msgs, new Set(['gone', 'r1']))].sort(), ['c1', 'r1']);
  assert.equal(pinnedIn(msgs, undefined).size, 0);
});

test('pins: a compaction summary cannot be pinned (an error for an explicit pin, skipped in a stored set)', () => {
  const withSummary = [summary('s0'), ...msgs];
  const r = resolvePins(withSummary, ['s0']);
  assert.equal(r.ok, false);
  if (!r.ok) assert.match(r.error.message, /"s0".*summary/);
  assert.deepEqual([...pinnedIn(withSummary, new Set(['s0', 'u1']))], ['u1']);
});
