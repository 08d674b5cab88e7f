// A session lock lost while held is reported (the chat tells the user another window may now write to
// the session): its folder deleted, or replaced by another holder's (a takeover after this process did
// not refresh it within the stale time). The holder refreshes every half of the stale time (1 s here),
// so each loss shows within about a second.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lockSession } from '../../src/core/session/sessionLock';

/** proper-lockfile's smallest stale time. */
const STALE_MS = 2_000;

async function until(done: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!done() && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
}

function held(): { file: string; lost: string[]; release(): void } {
  const file = join(mkdtempSync(join(tmpdir(), 'sp-lock-lost-')), 's.json');
  const lost: string[] = [];
  const lock = lockSession(file, (m) => lost.push(m), STALE_MS);
  return { file, lost, release: () => lock.release() };
}

test('a lock whose folder is deleted while held is reported as lost', async () => {
  const h = held();
  try {
    rmSync(`${h.file}.lock`, { recursive: true });
    await until(() => h.lost.length > 0, 5 * STALE_MS);
    assert.equal(h.lost.length, 1, `the loss is reported once (reported ${h.lost.length} times within ${5 * STALE_MS} ms)`);
    assert.match(h.lost[0], /The lock of .*s\.json was lost .*another window may now write to this session/);
  } finally {
    h.release();
  }
});

test('a lock taken over by another holder (a new lock folder with its own time) is reported as lost', async () => {
  const h = held();
  try {
    const dir = `${h.file}.lock`;
    rmSync(dir, { recursive: true });
    mkdirSync(dir);
    const other = new Date(Date.now() - 60_000);
    utimesSync(dir, other, other);
    await until(() => h.lost.length > 0, 5 * STALE_MS);
    assert.equal(h.lost.length, 1, `the loss is reported once (reported ${h.lost.length} times within ${5 * STALE_MS} ms)`);
    assert.match(h.lost[0], /was lost .*another window may now write to this session/);
  } finally {
    h.release();
  }
});

test('a lock held and refreshed past its stale time is not reported lost', async () => {
  const h = held();
  try {
    await new Promise((r) => setTimeout(r, STALE_MS + 600));
    assert.deepEqual(h.lost, []);
  } finally {
    h.release();
  }
});
