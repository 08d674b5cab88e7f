// One writer per session between windows (issue 12, item 6): the lock is exclusive within a process
// and between processes, and a dead holder's lock is taken over once stale.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipelineSettingsFor, strategyParamsFor } from '../../src/settings/engineSettings';
import { DEFAULT_HOST_SETTINGS } from '../../src/settings/hostSettings';
import { SessionScope } from '../../src/agent/service/sessionScope';
import { SessionFileStore } from '../../src/core/session/session';
import { lockSession, SessionLockedError } from '../../src/core/session/sessionLock';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';

const tmp = () => mkdtempSync(join(tmpdir(), 'sp-lock-'));

test('a session is locked for one writer: a second lock is refused until the first is released', () => {
  const dir = tmp();
  const store = new SessionFileStore(dir);
  const lost: string[] = [];
  const first = store.lock('s', (m) => lost.push(m));
  assert.throws(() => new SessionFileStore(dir).lock('s', (m) => lost.push(m)), /open in another window/);
  first.release();
  const second = new SessionFileStore(dir).lock('s', (m) => lost.push(m));
  second.release();
  assert.deepEqual(lost, []);
});

test('two processes: the second cannot lock a session the first holds; once the first dies the stale lock is taken over', async () => {
  const dir = tmp();
  const file = join(dir, 's.jsonl');
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/core/crash-lock-child.ts', file, '2000'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => d.toString().includes('locked') && resolve());
      child.on('exit', (code) => reject(new Error(`the child exited (${code}) before locking`)));
    });
    assert.throws(
      () => lockSession(file, () => undefined, 2000),
      (e: unknown) => e instanceof SessionLockedError,
    );
  } finally {
    child.kill('SIGKILL');
  }
  // Stale after 2 s without a refresh (the mtime may be rounded up to the next second): poll for up to 8 s.
  const killedAt = Date.now();
  for (;;) {
    try {
      lockSession(file, () => undefined, 2000).release();
      break;
    } catch (e) {
      if (!(e instanceof SessionLockedError) || Date.now() - killedAt > 8000) throw e;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  assert.ok(Date.now() - killedAt >= 1000, 'the lock was not taken over while it was still fresh');
});

function scopeRig() {
  const dir = tmp();
  const store = new SessionFileStore(join(dir, 'sessions'));
  const settings = DEFAULT_HOST_SETTINGS;
  const open = (id?: string) =>
    new SessionScope({
      store: new SessionFileStore(join(dir, 'sessions')),
      id,
      settings,
      pipelineSettings: pipelineSettingsFor(settings, (name) => strategyParamsFor(settings, name, () => {})),
      counter: new MemoizedMessageCounter(new CharEstimateTokenizer()),
      transcriptDir: join(dir, 'transcripts'),
      summarizer: async () => ({ ok: true, summary: 'summary', attempts: 1, promptTokens: 0, droppedMessages: 0, truncatedResults: 0 }),
      overheadTokens: () => 0,
      scale: () => 1,
      log: { warn: () => {} },
      hooks: {
        chatChanged: () => {},
        sessionChanged: () => {},
        compactionStarted: () => {},
        compacted: () => {},
        compactionFailed: () => {},
      },
    });
  return { dir, store, open };
}

const notices = (scope: SessionScope): string[] => scope.chatLog.all().flatMap((i) => (i.kind === 'notice' ? [i.message] : []));

test('a second window opening a session that is open elsewhere starts a new chat and says why; after the first closes it opens', () => {
  const { open } = scopeRig();
  const first = open();
  first.session.append({ id: 'u1', role: 'user', content: 'hi' });
  const id = first.session.id;
  const second = open(id);
  assert.notEqual(second.session.id, id);
  assert.deepEqual(second.session.messages, []);
  assert.ok(
    notices(second).some((n) => /open in another window.*A new chat was started/s.test(n)),
    JSON.stringify(notices(second)),
  );
  second.dispose();
  first.dispose();
  const third = open(id);
  assert.equal(third.session.id, id);
  assert.deepEqual(
    third.session.messages.map((m) => m.id),
    ['u1'],
  );
  third.dispose();
});

test('a session repaired on load shows the repair as a notice in the chat', () => {
  const { store, open } = scopeRig();
  const log = store.create('s');
  log.append({ id: 'u1', role: 'user', content: 'hi' });
  appendFileSync(store.messagesPath('s'), '{"id":"broken\n');
  const scope = open('s');
  assert.ok(
    notices(scope).some((n) => /unreadable line.*kept as .*quarantine-/s.test(n)),
    JSON.stringify(notices(scope)),
  );
  scope.dispose();
});
