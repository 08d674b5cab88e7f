// The crash case: a process killed between the transcript write and the swap (or during the swap)
// leaves either the old or the new history on disk, never a mix, and the transcript is complete.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompactionPipeline } from '../../src/core/pipeline/pipeline';
import { DEFAULT_PLAN_CONTEXT } from '../../src/core/pipeline/plan';
import { SessionFileStore } from '../../src/core/session/session';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';
import { restoreTranscript, TranscriptStore } from '../../src/core/transcripts/transcripts';
import { neverTrigger } from '../../src/core/pipeline/triggers';
import type { Message } from '../../src/core/conversation/conversation';

function seeded(): { dir: string; before: Message[] } {
  const dir = mkdtempSync(join(tmpdir(), 'sp-crash-'));
  const log = new SessionFileStore(join(dir, 'sessions')).create('s');
  for (let t = 0; t < 5; t++) {
    log.append(
      { id: `u${t}`, role: 'user', content: `prompt ${t}` },
      { id: `a${t}`, role: 'assistant', content: [{ type: 'text', text: `answer ${t}` }] },
    );
  }
  return { dir, before: [...log.messages] };
}

function crashAt(dir: string, point: string): number | null {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'test/core/crash-child.ts', dir, point], { encoding: 'utf8' });
  assert.equal(r.stderr.includes('Error'), false, r.stderr);
  return r.status;
}

test('killed after the transcript write, before the swap: the old history is intact and the transcript is complete', () => {
  const { dir, before } = seeded();
  assert.equal(crashAt(dir, 'after-transcript'), null, 'the child was killed by a signal');
  const { log, errors } = new SessionFileStore(join(dir, 'sessions')).load('s');
  assert.deepEqual(errors, []);
  assert.deepEqual(log.messages, before);
  const [transcript] = readdirSync(join(dir, '.transcripts'));
  assert.deepEqual(restoreTranscript(join(dir, '.transcripts', transcript)), before);
});

test('killed half-way through rewriting the session: the old history is intact, no mix', () => {
  const { dir, before } = seeded();
  crashAt(dir, 'mid-session-rewrite');
  const { log, errors } = new SessionFileStore(join(dir, 'sessions')).load('s');
  assert.deepEqual(errors, []);
  assert.deepEqual(log.messages, before);
});

test('killed right after the swap: the new history is complete and the transcript holds the old one', () => {
  const { dir, before } = seeded();
  crashAt(dir, 'after-commit');
  const { log, errors } = new SessionFileStore(join(dir, 'sessions')).load('s');
  assert.deepEqual(errors, []);
  assert.deepEqual(
    log.messages.map((m) => m.id),
    ['u3', 'a3', 'u4', 'a4'],
  );
  assert.ok(existsSync(join(dir, '.transcripts')));
  const [transcript] = readdirSync(join(dir, '.transcripts'));
  assert.deepEqual(restoreTranscript(join(dir, '.transcripts', transcript)), before);
});

test('killed between the session swap and the meta write: the compaction record is recovered at load and undo still works', () => {
  const { dir, before } = seeded();
  crashAt(dir, 'after-commit');
  const store = new SessionFileStore(join(dir, 'sessions'));
  const { log, notices } = store.load('s');
  assert.equal(log.meta.compactions.length, 1, 'the record of the compaction is back');
  const [record] = log.meta.compactions;
  assert.equal(record.strategy, 'sliding-window');
  const [transcript] = readdirSync(join(dir, '.transcripts'));
  assert.equal(record.transcriptPath, join(dir, '.transcripts', transcript));
  assert.ok(notices.some((n) => n.includes(`Recovered the record of compaction ${record.id}`)));
  // The recovered record is saved: a second load finds it in the meta, without a notice.
  assert.deepEqual(new SessionFileStore(join(dir, 'sessions')).load('s').notices, []);
  const pipeline = new CompactionPipeline(
    {
      session: log,
      transcripts: new TranscriptStore({ dir: join(dir, '.transcripts') }),
      ctx: { ...DEFAULT_PLAN_CONTEXT, tokens: new MemoizedMessageCounter(new CharEstimateTokenizer()) },
    },
    {
      microCompact: { enabled: false, keepRecent: 3, minChars: 100 },
      autoCompact: { enabled: false, strategy: 'sliding-window', params: {}, trigger: neverTrigger },
    },
  );
  const undo = pipeline.undo();
  assert.ok(undo.ok, JSON.stringify(undo));
  assert.deepEqual(log.messages, before);
});

test('a temp file left by a crash mid-rewrite is removed at the next start', () => {
  const { dir } = seeded();
  crashAt(dir, 'mid-session-rewrite');
  const sessions = join(dir, 'sessions');
  const temps = () => readdirSync(sessions).filter((n) => n.endsWith('.tmp'));
  assert.equal(temps().length, 1, 'the crash left its temp file');
  const old = new Date(Date.now() - 120_000);
  for (const t of temps()) utimesSync(join(sessions, t), old, old);
  new SessionFileStore(sessions).load('s');
  assert.deepEqual(temps(), []);
});

test('temp files of a compaction killed mid-write go at the next start at once (their process is gone), in the session and transcript folders', () => {
  const { dir } = seeded();
  const sessions = join(dir, 'sessions');
  const transcripts = join(dir, '.transcripts');
  const temps = (folder: string) => (existsSync(folder) ? readdirSync(folder).filter((n) => n.endsWith('.tmp')) : []);
  crashAt(dir, 'mid-transcript');
  assert.equal(temps(transcripts).length, 1, 'the crash left the transcript temp file');
  crashAt(dir, 'mid-session-rewrite');
  assert.equal(temps(sessions).length, 1, 'the crash left the session temp file');
  // Restarted right away: the temp files are seconds old, but the processes that wrote them are dead.
  new SessionFileStore(sessions).load('s');
  new TranscriptStore({ dir: transcripts });
  assert.deepEqual(temps(sessions), []);
  assert.deepEqual(temps(transcripts), []);
});
