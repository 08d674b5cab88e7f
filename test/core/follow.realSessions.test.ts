// The real Claude Code and Codex sessions written as their agents wrote them (recorded order, pieces ending
// mid-line, several lines at once, line by line): after every piece the follower's result equals the import of
// a file holding exactly the complete lines written so far, and it got there line by line (the whole file was
// read once, at the start), not by importing the file again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionFollower } from '../../src/core';
import { cutsFor, followInPieces } from './followSupport';

const REAL = 'test/fixtures/real-sessions';
const FIXTURES = [
  'claude-code-cipher-box-a.jsonl',
  'claude-code-cipher-box-b.jsonl',
  'claude-code-cipher-box-c.jsonl',
  'codex-agentv-a.jsonl',
  'codex-agentv-b.jsonl',
];

function tempDir(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'follow-real-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

for (const name of FIXTURES) {
  test(`${name}: followed in pieces, each result equals the import of the lines written so far, read line by line`, async (t) => {
    const dir = tempDir(t);
    const text = readFileSync(join(REAL, name), 'utf8');
    const path = join(dir, name);
    const follower = new SessionFollower(path);
    // The first piece is a tenth of the file: its first read imports that much whole; the rest is followed.
    const start = text.indexOf('\n', Math.floor(text.length / 10)) + 1;
    const cuts = [start, ...cutsFor(text.slice(start), 45, name.length).map((c) => c + start)];
    const updates = await followInPieces(follower, path, join(dir, `check-${name}`), text, cuts, name);
    assert.ok(updates.length >= 40, `${name}: ${updates.length} polls`);
    assert.ok(updates.filter((u) => u.changed).length >= 35, `${name}: polls that read new lines`);
    assert.ok(updates[updates.length - 1].result.messages.length > 0);
    assert.ok(follower.fullReads <= 2, `${name}: the whole file was imported ${follower.fullReads} times`);
  });
}

test('claude-code-cipher-box-a.jsonl line by line (parallel tool calls, results hung off their calls): never read whole again', async (t) => {
  const dir = tempDir(t);
  const name = 'claude-code-cipher-box-a.jsonl';
  const text = readFileSync(join(REAL, name), 'utf8');
  // Its first 400 lines, one poll per line (the later ones are covered in pieces above).
  const lineEnds = [...text.matchAll(/\n/g)].map((m) => (m.index as number) + 1).slice(0, 400);
  const path = join(dir, name);
  const follower = new SessionFollower(path);
  await followInPieces(follower, path, join(dir, `check-${name}`), text.slice(0, lineEnds[lineEnds.length - 1]), lineEnds, name);
  assert.equal(follower.fullReads, 1);
});
