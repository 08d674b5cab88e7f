// Session storage under hostile or unlucky conditions: a corrupt line, a full disk, a stale snapshot,
// wrong-shaped meta files (issue 12, items 5, 7, 16; the lock between windows is in session.lock.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toApiMessages } from '../../src/core/conversation/conversation';
import { nodeStorageFs, type StorageFs } from '../../src/core/base/fsAtomic';
import { requestViolations } from '../../src/core/conversation/invariants';
import { CompactionPipeline } from '../../src/core/pipeline/pipeline';
import { DEFAULT_PLAN_CONTEXT } from '../../src/core/pipeline/plan';
import { newSessionMeta, SessionFileStore, SessionLog } from '../../src/core/session/session';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';
import { TranscriptStore } from '../../src/core/transcripts/transcripts';
import { neverTrigger } from '../../src/core/pipeline/triggers';
import { assistant, call, ids, summary, user } from '../helpers/build';

const tmp = () => mkdtempSync(join(tmpdir(), 'sp-store-'));

function pipelineFor(log: SessionLog, dir: string): CompactionPipeline {
  return new CompactionPipeline(
    {
      session: log,
      transcripts: new TranscriptStore({ dir: join(dir, '.transcripts') }),
      ctx: { ...DEFAULT_PLAN_CONTEXT, tokens: new MemoizedMessageCounter(new CharEstimateTokenizer()) },
    },
    {
      microCompact: { enabled: true, keepRecent: 3, minChars: 100 },
      autoCompact: { enabled: false, strategy: 'sliding-window', params: {}, trigger: neverTrigger },
    },
  );
}

/** A session whose tool_result line (line 3) is corrupt on disk: its tool_use is left orphaned. */
function corruptToolSession(): { dir: string; store: SessionFileStore; badLine: string } {
  const dir = tmp();
  const store = new SessionFileStore(join(dir, 'sessions'));
  const log = store.create('s');
  log.append(user('u0'), call('c1', ['t1', 'read_file']));
  const badLine = '{"id":"r1","role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"sec';
  appendFileSync(store.messagesPath('s'), badLine + '\n');
  for (let t = 1; t < 5; t++) log.append(user(`u${t}`), assistant(`a${t}`));
  return { dir, store, badLine };
}

test('a corrupt tool_result line: the load keeps a quarantine copy, drops the orphaned tool_use with a notice, the request is valid', () => {
  const { dir, store, badLine } = corruptToolSession();
  const loaded = store.load('s');
  assert.equal(loaded.errors.length, 1);
  assert.equal(loaded.errors[0].line, 3);
  assert.ok(!ids(loaded.log.messages).includes('c1'), 'the tool_use whose result was lost is dropped');
  assert.deepEqual(requestViolations(toApiMessages(loaded.log.messages)), []);
  assert.ok(loaded.quarantinePath, 'a quarantine copy was made');
  assert.match(loaded.quarantinePath, /s\.jsonl\.quarantine-\d+-[0-9a-f]+$/);
  assert.ok(readFileSync(loaded.quarantinePath, 'utf8').includes(badLine));
  assert.ok(loaded.notices.some((n) => n.includes('c1') && /dropped/.test(n)));
  assert.ok(loaded.notices.some((n) => n.includes(loaded.quarantinePath!)));
  // A second load of the same corruption does not make a second copy.
  store.load('s');
  assert.equal(readdirSync(join(dir, 'sessions')).filter((n) => n.includes('.quarantine-')).length, 1);
});

test('the next compaction after a corrupt load does not destroy the bytes no transcript holds', async () => {
  const { dir, store, badLine } = corruptToolSession();
  const { log } = store.load('s');
  const r = await pipelineFor(log, dir).compact({ strategy: 'sliding-window', params: { maxEvents: 4 }, trigger: 'manual' });
  assert.ok(r.ok, JSON.stringify(r));
  assert.ok(!readFileSync(store.messagesPath('s'), 'utf8').includes(badLine), 'the session file was rewritten');
  const holders = [
    ...readdirSync(join(dir, 'sessions')).map((n) => join(dir, 'sessions', n)),
    ...readdirSync(join(dir, '.transcripts')).map((n) => join(dir, '.transcripts', n)),
  ].filter((p) => readFileSync(p, 'utf8').includes(badLine));
  assert.equal(holders.length, 1, 'exactly the quarantine copy still holds the corrupt line');
  assert.match(holders[0], /\.quarantine-/);
});

test('a rewrite is refused when the skipped bytes could not be quarantined', () => {
  const { dir } = corruptToolSession();
  const fs: StorageFs = {
    ...nodeStorageFs,
    copyFileSync: () => {
      throw Object.assign(new Error('ENOSPC: no space left on device, copyfile'), { code: 'ENOSPC' });
    },
  };
  const store = new SessionFileStore(join(dir, 'sessions'), { fs });
  const before = readFileSync(store.messagesPath('s'), 'utf8');
  const { log, notices } = store.load('s');
  assert.ok(
    notices.some((n) => /could not be copied aside.*ENOSPC/.test(n)),
    JSON.stringify(notices),
  );
  assert.throws(() => log.commitRewrite(log.snapshot(), [summary('s1'), user('u4')]), /could not be copied aside/);
  assert.equal(readFileSync(store.messagesPath('s'), 'utf8'), before, 'the session file is untouched');
});

/** node:fs, except that writes to files named `*.jsonl` fail with ENOSPC after `allow` bytes. */
function fullDisk(allow: number): StorageFs {
  return {
    ...nodeStorageFs,
    writeSync(fd, data) {
      const n = Math.min(allow, data.length);
      if (n > 0) nodeStorageFs.writeSync(fd, data.subarray(0, n));
      allow -= n;
      if (n < data.length) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      return n;
    },
  };
}

test('a failed append (ENOSPC) is cut back, surfaced, and leaves the message out of memory; the next append survives a reload', () => {
  const dir = tmp();
  let disk: StorageFs = nodeStorageFs;
  const fs: StorageFs = { ...nodeStorageFs, writeSync: (fd, data) => disk.writeSync(fd, data) };
  const store = new SessionFileStore(dir, { fs });
  const log = store.create('s');
  log.append(user('u1'), assistant('a1'));
  const before = readFileSync(store.messagesPath('s'), 'utf8');
  disk = fullDisk(10);
  assert.throws(
    () => log.append(user('u2', 'a prompt that does not fit on the disk')),
    (e: unknown) => /Could not save the message to .*s\.jsonl: ENOSPC.*not added/.test((e as Error).message),
  );
  assert.deepEqual(ids(log.messages), ['u1', 'a1'], 'the unsaved message is not in memory');
  assert.equal(readFileSync(store.messagesPath('s'), 'utf8'), before, 'the partial line was cut back');
  disk = nodeStorageFs;
  log.append(user('u3'));
  const again = store.load('s');
  assert.deepEqual(again.errors, []);
  assert.deepEqual(ids(again.log.messages), ['u1', 'a1', 'u3']);
});

test('a new, empty session is created without an fsync (nothing to lose); naming it and its compactions are fsynced', () => {
  const dir = tmp();
  let fsyncs = 0;
  const fs: StorageFs = {
    ...nodeStorageFs,
    fsyncSync: (fd) => {
      fsyncs++;
      nodeStorageFs.fsyncSync(fd);
    },
  };
  const store = new SessionFileStore(dir, { fs });
  const log = store.create('s', 'New chat');
  assert.equal(fsyncs, 0, 'creating the empty session fsynced');
  assert.equal(JSON.parse(readFileSync(join(dir, 's.meta.json'), 'utf8')).title, 'New chat', 'the meta is on disk all the same');
  log.setTitle('Fix the parser');
  assert.ok(fsyncs >= 1, 'the title write of the first prompt is durable');
  assert.equal(store.load('s').log.meta.title, 'Fix the parser');
});

test('session append: persistence that throws leaves the message out of memory and fires no change', () => {
  let fired = 0;
  const log = new SessionLog(newSessionMeta('s'), [user('u1')], {
    append: () => {
      throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    },
    rewrite: () => undefined,
    writeMeta: () => undefined,
  });
  log.onDidChange(() => fired++);
  const version = log.version;
  assert.throws(() => log.append(assistant('a1')), /ENOSPC/);
  assert.deepEqual(ids(log.messages), ['u1']);
  assert.equal(log.version, version);
  assert.equal(fired, 0);
});

test('session CAS: a stale snapshot whose prefix objects are unchanged is rejected after a rewrite that kept that prefix', () => {
  const log = new SessionLog(newSessionMeta('s'), [user('u1'), assistant('a1'), user('u2')]);
  const older = log.snapshot();
  const current = log.snapshot();
  // A rewrite that keeps every message object of the snapshot and adds after them.
  assert.equal(log.commitRewrite(current, [...current.messages, assistant('a2')]).ok, true);
  const before = [...log.messages];
  const r = log.commitRewrite(older, [summary('s1'), user('u2')]);
  assert.equal(r.ok, false);
  assert.deepEqual(log.messages, before);
});

// Item 16: nine wrong shapes of a meta file. Each loads (no TypeError) with a warning naming file and field.
const wrongMetas: Array<[string, unknown, RegExp]> = [
  ['compactions is not an array', { id: 's', title: 't', createdAt: 1, updatedAt: 2, compactions: 5 }, /:compactions: expected an array/],
  ['compactions is missing', { id: 's', title: 't', createdAt: 1, updatedAt: 2 }, /:compactions: expected an array/],
  ['title is a number', { id: 's', title: 7, createdAt: 1, updatedAt: 2, compactions: [] }, /:title: expected a string/],
  ['updatedAt is a string', { id: 's', title: 't', createdAt: 1, updatedAt: 'yesterday', compactions: [] }, /:updatedAt: expected a time/],
  ['the meta is an array', [1, 2], /:\(file\): expected an object/],
  ['the meta is null', null, /:\(file\): expected an object/],
  [
    'a compaction is a string',
    { id: 's', title: 't', createdAt: 1, updatedAt: 2, compactions: ['x'] },
    /:compactions\[0\]: expected an object/,
  ],
  [
    'a compaction has a wrong-typed resultLength',
    { id: 's', title: 't', createdAt: 1, updatedAt: 2, compactions: [{ ...recordJson(), resultLength: '3' }] },
    /:compactions\[0\]\.resultLength: expected a number/,
  ],
  [
    'a compaction has an unknown trigger',
    { id: 's', title: 't', createdAt: 1, updatedAt: 2, compactions: [{ ...recordJson(), trigger: 'hack' }] },
    /:compactions\[0\]\.trigger: expected one of/,
  ],
];

function recordJson(): Record<string, unknown> {
  return {
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
    resultLength: 2,
  };
}

for (const [name, value, expected] of wrongMetas) {
  test(`a meta file where ${name} loads with a file:field warning, and list/undo/inspector data stay usable`, () => {
    const dir = tmp();
    const store = new SessionFileStore(dir);
    writeFileSync(join(dir, 's.jsonl'), JSON.stringify(user('u1')) + '\n');
    writeFileSync(join(dir, 's.meta.json'), JSON.stringify(value));
    const { log, notices } = store.load('s');
    const metaFile = join(dir, 's.meta.json');
    assert.ok(
      notices.some((n) => n.startsWith(metaFile) && expected.test(n)),
      `expected a warning ${expected} naming ${metaFile}: ${JSON.stringify(notices)}`,
    );
    assert.ok(Array.isArray(log.meta.compactions));
    assert.equal(typeof log.meta.title, 'string');
    assert.equal(typeof log.meta.updatedAt, 'number');
    assert.deepEqual(
      store.list().map((m) => [m.id, Array.isArray(m.compactions), typeof m.title]),
      [['s', true, 'string']],
    );
  });
}

test('a well-formed meta loads without warnings and keeps its compaction records', () => {
  const dir = tmp();
  const store = new SessionFileStore(dir);
  writeFileSync(join(dir, 's.meta.json'), JSON.stringify({ id: 's', title: 't', createdAt: 1, updatedAt: 2, compactions: [recordJson()] }));
  const { log, notices } = store.load('s');
  assert.deepEqual(notices, []);
  assert.deepEqual(log.meta.compactions, [recordJson()]);
});

test('start-up cleaning removes only old temp files of the atomic write: a fresh one (another window mid-write) stays', () => {
  const dir = tmp();
  const store = new SessionFileStore(dir);
  store.create('s').append(user('u1'));
  const fresh = join(dir, `.other.jsonl.${process.pid}.${Date.now()}-3.tmp`);
  const stale = join(dir, `.s.meta.json.${process.pid}.${Date.now() - 300_000}-0.tmp`);
  const notOurs = join(dir, 'notes.tmp');
  for (const p of [fresh, stale, notOurs]) writeFileSync(p, 'x');
  const old = new Date(Date.now() - 300_000);
  utimesSync(stale, old, old);
  utimesSync(notOurs, old, old);
  store.load('s');
  assert.deepEqual(
    [fresh, stale, notOurs].map((p) => existsSync(p)),
    [true, false, true],
  );
});
