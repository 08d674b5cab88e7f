// Following a session file as an agent writes it (src/extension/following.ts), on real files with real
// fs.watch events: the first lines of a real Claude Code session are shown (panel revealed), lines
// appended (one split mid-line) are shown with the context of the last call written (estimated at once,
// then counted), a deleted file is
// said once and shown as gone, a file of no known format is refused naming the file, and the follow stops
// once the panel shows something else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ImportError, importSession, liveStatus } from '../../src/core';
import type { InspectedRecording } from '../../src/agent/service/inspectorService';
import { Following, type FollowingInspector } from '../../src/extension/following';
import type { LiveView } from '../../src/protocol';

const FIXTURE = join(import.meta.dirname ?? __dirname, '..', 'fixtures', 'real-sessions', 'claude-code-cipher-box-a.jsonl');
const LINES = readFileSync(FIXTURE, 'utf8')
  .split('\n')
  .filter((l) => l.length > 0);

/** The inspector as a follow sees it: records what it was asked to show. */
class FakeInspector implements FollowingInspector {
  showing = true;
  readonly shown: Array<{ recording: InspectedRecording; live: LiveView; reveal: boolean }> = [];
  readonly notices: string[] = [];
  isShowing = () => this.showing;
  showLive = (_token: number, recording: InspectedRecording, live: LiveView, reveal: boolean) => {
    if (!this.showing) return false;
    this.shown.push({ recording, live, reveal });
    return true;
  };
  liveNotice = (_token: number, _level: 'info' | 'error', message: string) => void this.notices.push(message);
  get last() {
    return this.shown.at(-1);
  }
}

/** Resolves once `pred` holds (checked every 20 ms); fails naming `what` after 15 s. */
async function until(what: string, pred: () => boolean): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!pred()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function setup(lines: number) {
  const dir = mkdtempSync(join(tmpdir(), 'sp-following-'));
  const file = join(dir, 'session.jsonl');
  writeFileSync(file, `${LINES.slice(0, lines).join('\n')}\n`);
  const inspector = new FakeInspector();
  const statuses: Array<LiveView | undefined> = [];
  const following = new Following(file, 1, {
    inspector,
    countRecording: () => Promise.resolve(),
    log: { warn: () => undefined },
    status: (live) => statuses.push(live),
  });
  return { dir, file, inspector, statuses, following, dispose: () => (following.dispose(), rmSync(dir, { recursive: true, force: true })) };
}

const contextOf = (file: string) => liveStatus(importSession(readFileSync(file, 'utf8'), file)).contextTokens;

test('appended lines are shown with the context of the last call written; a half line waits for its end', async () => {
  const s = setup(30);
  try {
    await s.following.start();
    const first = s.inspector.shown[0];
    assert.equal(first.reveal, true, 'the first show opens the panel');
    assert.equal(first.live.following, true);
    assert.equal(first.live.status.contextTokens, contextOf(s.file));
    await until('the counted show', () => s.inspector.shown.some((x) => !x.recording.counter));

    const before = s.inspector.shown.length;
    const next = LINES[30];
    appendFileSync(s.file, next.slice(0, 100));
    // The half line is not a line yet: a poll (the 1 s timer runs too) shows nothing new.
    await new Promise((r) => setTimeout(r, 1_300));
    assert.equal(s.inspector.shown.length, before, 'nothing shown for a half-written line');
    appendFileSync(s.file, `${next.slice(100)}\n${LINES.slice(31, 60).join('\n')}\n`);
    const expected = contextOf(s.file);
    assert.notEqual(expected, first.live.status.contextTokens, 'the appended lines hold a later call');
    await until('the appended call', () => s.inspector.last?.live.status.contextTokens === expected);
    assert.equal(s.inspector.last?.reveal, false, 'updates never take the focus');
    assert.equal(s.inspector.last?.recording.result.messages.length, importSession(readFileSync(s.file, 'utf8'), s.file).messages.length);
    assert.equal(s.statuses.at(-1)?.status.contextTokens, expected, 'the status bar follows');
    // Estimated at once, counted once the file is quiet.
    await until('the counted view of the appended lines', () => !s.inspector.last?.recording.counter);
    assert.equal(s.inspector.last?.recording.result.messages.length, importSession(readFileSync(s.file, 'utf8'), s.file).messages.length);
  } finally {
    s.dispose();
  }
});

test('a deleted file is said once and shown as gone; the follow stops once the panel shows something else', async () => {
  const s = setup(30);
  try {
    await s.following.start();
    rmSync(s.file);
    await until('the gone view', () => s.inspector.last?.live.gone === true);
    assert.equal(s.inspector.notices.filter((n) => n.includes('is gone')).length, 1, s.inspector.notices.join('\n'));
    assert.equal(s.statuses.at(-1)?.gone, true);
    s.inspector.showing = false;
    await until('the follow to stop', () => s.statuses.at(-1) === undefined);
  } finally {
    s.dispose();
  }
});

test('a file in no known format is refused, naming the file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sp-following-'));
  const file = join(dir, 'notes.jsonl');
  writeFileSync(file, `${Array.from({ length: 30 }, (_, i) => JSON.stringify({ hello: i })).join('\n')}\n`);
  const following = new Following(file, 1, {
    inspector: new FakeInspector(),
    countRecording: () => Promise.resolve(),
    log: { warn: () => undefined },
    status: () => undefined,
  });
  try {
    await assert.rejects(following.start(), (e: unknown) => e instanceof ImportError && e.message.includes(file));
  } finally {
    following.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
});
