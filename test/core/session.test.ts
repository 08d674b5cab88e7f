import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newSessionMeta, SessionFileStore, SessionLog, type CompactionRecord } from '../../src/core/session/session';
import { assistant, summary, user, ids } from '../helpers/build';

const tmp = () => mkdtempSync(join(tmpdir(), 'sp-sess-'));
const record = (resultLength: number): CompactionRecord => ({
  id: 'c1',
  at: 1,
  strategy: 'x',
  params: {},
  trigger: 'manual',
  tokensBefore: 1,
  tokensAfter: 1,
  archivedCount: 1,
  truncatedCount: 0,
  transcriptPath: 't',
  syntheticId: null,
  tailStartId: null,
  resultLength,
});

test('a rewrite commits when nothing changed since the snapshot', () => {
  const log = new SessionLog(newSessionMeta('s'), [user('u1'), assistant('a1'), user('u2')]);
  const snap = log.snapshot();
  const r = log.commitRewrite(snap, [summary('s1'), user('u2')]);
  assert.equal(r.ok, true);
  assert.deepEqual(ids(log.messages), ['s1', 'u2']);
});

test('messages appended during a slow compaction are kept after the compacted history, once', () => {
  const log = new SessionLog(newSessionMeta('s'), [user('u1'), assistant('a1'), user('u2')]);
  const snap = log.snapshot();
  log.append(assistant('a2'), user('u3'));
  const r = log.commitRewrite(snap, [summary('s1'), user('u2')]);
  assert.ok(r.ok && r.carriedOver === 2);
  assert.deepEqual(ids(log.messages), ['s1', 'u2', 'a2', 'u3']);
});

test('a commit from a stale snapshot after another rewrite is refused and changes nothing', () => {
  const log = new SessionLog(newSessionMeta('s'), [user('u1'), assistant('a1'), user('u2')]);
  const snapA = log.snapshot();
  const snapB = log.snapshot();
  assert.equal(log.commitRewrite(snapB, [user('u2')]).ok, true);
  const before = [...log.messages];
  const r = log.commitRewrite(snapA, [summary('x'), user('u2')]);
  assert.equal(r.ok, false);
  assert.deepEqual(log.messages, before);
});

test('the file store appends, rewrites atomically and reloads the same history and compactions', () => {
  const dir = tmp();
  const store = new SessionFileStore(dir);
  const log = store.create('abc', 'Fix the parser');
  log.append(user('u1'), assistant('a1'));
  log.append(user('u2'));
  log.commitRewrite(log.snapshot(), [summary('s1'), user('u2')], record(2));
  log.append(assistant('a2'));
  const { log: again, errors } = store.load('abc');
  assert.deepEqual(errors, []);
  assert.deepEqual(again.messages, log.messages);
  assert.equal(again.meta.title, 'Fix the parser');
  assert.equal(again.meta.compactions.length, 1);
  assert.deepEqual(
    store.list().map((m) => m.id),
    ['abc'],
  );
});

test('a session file with a corrupt line loads the other lines and names file and line', () => {
  const dir = tmp();
  const store = new SessionFileStore(dir);
  const log = store.create('s');
  log.append(user('u1'), assistant('a1'));
  appendFileSync(join(dir, 's.jsonl'), '{"id":"x","role":"user","content":\n');
  log.append(user('u2'));
  const { log: again, errors } = store.load('s');
  assert.deepEqual(ids(again.messages), ['u1', 'a1', 'u2']);
  assert.equal(errors.length, 1);
  assert.equal(errors[0].line, 3);
  assert.equal(errors[0].file, join(dir, 's.jsonl'));
});

test('a session with no meta file still loads with a default title', () => {
  const dir = tmp();
  writeFileSync(join(dir, 'lonely.jsonl'), JSON.stringify(user('u1')) + '\n');
  const { log } = new SessionFileStore(dir).load('lonely');
  assert.equal(log.meta.title, 'New chat');
  assert.deepEqual(ids(log.messages), ['u1']);
});

test('a partial last line left by a crash does not swallow the next appended message', () => {
  const dir = tmp();
  const store = new SessionFileStore(dir);
  store.create('s').append(user('u1'));
  appendFileSync(join(dir, 's.jsonl'), '{"id":"half","role":"us');
  const { log, errors } = store.load('s');
  assert.equal(errors.length, 1);
  log.append(user('u2'));
  const again = store.load('s');
  assert.deepEqual(ids(again.log.messages), ['u1', 'u2']);
  assert.equal(again.errors.length, 1);
});
