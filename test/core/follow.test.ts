// SessionFollower (src/core/importers/follow.ts) on real files: appended in pieces, a half-written last line,
// truncation, replacement by rename, deletion, unknown formats. The real sessions are followed in
// follow.realSessions.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ImportError, importSessionFile, SessionFollower } from '../../src/core';
import { comparable, cutsFor, followInPieces } from './followSupport';

const SESSIONS = 'test/fixtures/sessions';

function tempDir(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'follow-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('every JSONL fixture followed line by line and in pieces equals the import of its complete lines', async (t) => {
  const dir = tempDir(t);
  const fixtures = readdirSync(SESSIONS).filter((f) => f.endsWith('.jsonl'));
  assert.ok(fixtures.length >= 10, `fixtures: ${fixtures.length}`);
  for (const name of fixtures) {
    const text = readFileSync(join(SESSIONS, name), 'utf8');
    const lineEnds = [...text.matchAll(/\n/g)].map((m) => (m.index as number) + 1);
    const path = join(dir, name);
    await followInPieces(new SessionFollower(path), path, join(dir, `check-${name}`), text, lineEnds, `${name} line by line`);
    const pieces = cutsFor(text, 6, name.length);
    await followInPieces(new SessionFollower(path), path, join(dir, `check-${name}`), text, pieces, `${name} in pieces`);
  }
});

test('a half-written last line waits for its newline; nothing new is "unchanged"', async (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'session.jsonl');
  const lines = readFileSync(join(SESSIONS, 'claude-code-session.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l !== '');
  writeFileSync(path, `${lines[0]}\n${lines[1]}\n`);
  const follower = new SessionFollower(path);
  const first = await follower.poll();
  assert.equal(first.changed, true);
  assert.equal(first.gone, false);
  assert.equal(first.reset, undefined);
  const before = first.result.messages.length;
  const half = Math.floor(lines[2].length / 2);
  appendFileSync(path, lines[2].slice(0, half));
  const waiting = await follower.poll();
  assert.equal(waiting.changed, false);
  assert.equal(waiting.bytes, first.bytes);
  assert.equal(waiting.result.messages.length, before);
  appendFileSync(path, `${lines[2].slice(half)}\n`);
  const done = await follower.poll();
  assert.equal(done.changed, true);
  assert.equal(done.bytes, Buffer.byteLength(`${lines[0]}\n${lines[1]}\n${lines[2]}\n`));
  assert.deepEqual(comparable(done.result), comparable(await importSessionFile(path)));
  const again = await follower.poll();
  assert.equal(again.changed, false);
  assert.equal(again.newCalls, 0);
  // Polls called together run one after the other: the line is read once.
  appendFileSync(path, `${lines[3]}\n`);
  const [one, two] = await Promise.all([follower.poll(), follower.poll()]);
  assert.equal(one.changed, true);
  assert.equal(two.changed, false);
  assert.equal(two.result, one.result);
});

test('newCalls counts the recorded model calls each poll added', async (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'rollout.jsonl');
  const text = readFileSync(join(SESSIONS, 'codex-compactions.jsonl'), 'utf8');
  const lines = text.split('\n').filter((l) => l !== '');
  writeFileSync(path, '');
  const follower = new SessionFollower(path);
  let total = 0;
  for (const line of lines) {
    appendFileSync(path, `${line}\n`);
    total += (await follower.poll()).newCalls;
  }
  const all = await importSessionFile(path);
  const calls = all.compactions.reduce((n, c) => n + c.before.filter((m) => m.usage).length, all.messages.filter((m) => m.usage).length);
  assert.ok(calls > 0, 'the fixture records calls');
  assert.equal(total, calls);
});

test('a truncated file is read again from the start; a file replaced by rename too; a deleted one is gone', async (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'session.jsonl');
  const claude = readFileSync(join(SESSIONS, 'claude-code-session.jsonl'), 'utf8');
  const codex = readFileSync(join(SESSIONS, 'codex-rollout.jsonl'), 'utf8');
  writeFileSync(path, claude);
  const follower = new SessionFollower(path);
  const first = await follower.poll();
  assert.equal(first.result.format, 'claude-code-jsonl');

  // Truncated to its first lines (smaller than what was read).
  const head = claude.split('\n').slice(0, 3).join('\n') + '\n';
  writeFileSync(path, head);
  const truncated = await follower.poll();
  assert.equal(truncated.reset, 'truncated');
  assert.equal(truncated.changed, true);
  assert.deepEqual(comparable(truncated.result), comparable(await importSessionFile(path)));

  // Rewritten in place with other content at least as long as what was read: the bytes read no longer match.
  writeFileSync(path, codex);
  const rewritten = await follower.poll();
  assert.equal(rewritten.reset, 'truncated');
  assert.equal(rewritten.result.format, 'codex-rollout-jsonl');

  // Replaced: a new file renamed over it (a new inode).
  const other = join(dir, 'other.jsonl');
  writeFileSync(other, claude);
  renameSync(other, path);
  const replaced = await follower.poll();
  assert.equal(replaced.reset, 'replaced');
  assert.equal(replaced.result.format, 'claude-code-jsonl');
  assert.deepEqual(comparable(replaced.result), comparable(await importSessionFile(path)));
  assert.equal((await follower.poll()).reset, undefined);

  unlinkSync(path);
  const gone = await follower.poll();
  assert.equal(gone.gone, true);
  assert.equal(gone.changed, false);
  assert.equal(gone.result, replaced.result);
});

test('a file of unknown format, an empty file, a malformed line: an ImportError naming the file, and following goes on', async (t) => {
  const dir = tempDir(t);
  const unknown = join(dir, 'notes.jsonl');
  writeFileSync(unknown, Array.from({ length: 60 }, (_, i) => JSON.stringify({ note: i })).join('\n') + '\n');
  await assert.rejects(
    new SessionFollower(unknown).poll(),
    (e) => e instanceof ImportError && e.file === unknown && /unrecognised session format/.test(e.message),
  );

  const empty = join(dir, 'empty.jsonl');
  writeFileSync(empty, '');
  const follower = new SessionFollower(empty);
  await assert.rejects(follower.poll(), (e) => e instanceof ImportError && e.file === empty && /empty/.test(e.message));
  await assert.rejects(follower.poll(), (e) => e instanceof ImportError && /empty/.test(e.message));
  const codex = readFileSync(join(SESSIONS, 'codex-rollout.jsonl'), 'utf8');
  writeFileSync(empty, codex);
  const now = await follower.poll();
  assert.equal(now.result.format, 'codex-rollout-jsonl');
  assert.ok(now.result.messages.length > 0);

  const bad = join(dir, 'bad.jsonl');
  const lines = codex.split('\n').filter((l) => l !== '');
  writeFileSync(bad, `${lines[0]}\n${lines[1]}\n`);
  const badFollower = new SessionFollower(bad);
  await badFollower.poll();
  appendFileSync(bad, '{"type": "response_item", "payload": \n');
  await assert.rejects(
    badFollower.poll(),
    (e) => e instanceof ImportError && e.file === bad && e.line === 3 && /invalid JSON/.test(e.message),
  );
  await assert.rejects(badFollower.poll(), (e) => e instanceof ImportError && e.line === 3);
  // The writer rewrites the file without the bad line: followed again.
  writeFileSync(bad, codex);
  const fixed = await badFollower.poll();
  assert.deepEqual(comparable(fixed.result), comparable(await importSessionFile(bad)));
});

test('a file that is not there: an ImportError naming it', async (t) => {
  const dir = tempDir(t);
  const missing = join(dir, 'missing.jsonl');
  await assert.rejects(
    new SessionFollower(missing).poll(),
    (e) => e instanceof ImportError && e.file === missing && /not found/.test(e.message),
  );
});

test('appended lines are read on, not imported again, unless they leave the branch (a rewind, a result before its call)', async (t) => {
  const dir = tempDir(t);
  const followed = async (name: string, text: string): Promise<number> => {
    const path = join(dir, name);
    const follower = new SessionFollower(path);
    const lineEnds = [...text.matchAll(/\n/g)].map((m) => (m.index as number) + 1);
    await followInPieces(follower, path, join(dir, `check-${name}`), text, lineEnds, name);
    return follower.fullReads;
  };
  const fixture = (name: string): string => readFileSync(join(SESSIONS, name), 'utf8');
  // Queued prompts, attachments waiting for the message line that chains through them, compactions, a rollback.
  for (const name of [
    'claude-code-queued.jsonl',
    'claude-code-two-compactions.jsonl',
    'claude-code-session.jsonl',
    'codex-rollback.jsonl',
  ]) {
    assert.equal(await followed(name, fixture(name)), 1, name);
  }
  // The rewind abandons a branch: the file is imported again there, once.
  assert.equal(await followed('rewind.jsonl', fixture('claude-code-rewind-compact.jsonl')), 2);
  // A result written before its call is read after it: the whole import decides, each time.
  assert.ok((await followed('out-of-order.jsonl', fixture('claude-code-out-of-order.jsonl'))) > 2);
  // A sub-agent's own file (every line a sidechain): the first message line decides which chain is read, then it is followed.
  const sidechain = fixture('claude-code-queued.jsonl')
    .split('\n')
    .map((l) => (l.trim() === '' ? l : JSON.stringify({ ...JSON.parse(l), isSidechain: true })))
    .join('\n');
  assert.ok((await followed('agent-sidechain.jsonl', sidechain)) <= 2);
});
