// Pins persist with the session (SessionMeta.pinned, validated on load) and every compaction the
// pipeline runs (preview, manual, auto) keeps them verbatim before the tail.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toApiMessages } from '../../src/core/conversation/conversation';
import { requestViolations } from '../../src/core/conversation/invariants';
import { CompactionPipeline } from '../../src/core/pipeline/pipeline';
import { DEFAULT_PLAN_CONTEXT } from '../../src/core/pipeline/plan';
import { SessionFileStore, type SessionLog } from '../../src/core/session/session';
import { parseSessionMeta } from '../../src/core/session/sessionMeta';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';
import { TranscriptStore } from '../../src/core/transcripts/transcripts';
import { neverTrigger } from '../../src/core/pipeline/triggers';
import { assistant, call, ids, results, user } from '../helpers/build';

function history() {
  const out = [user('u0', 'Always use tabs in this repo.'), assistant('a0')];
  for (let i = 1; i <= 6; i++)
    out.push(user(`u${i}`), call(`c${i}`, [`t${i}`, 'read_file']), results(`r${i}`, [`t${i}`, 'x'.repeat(300)]), assistant(`a${i}`));
  return out;
}

function pipelineOver(session: SessionLog, dir: string, micro = false): CompactionPipeline {
  return new CompactionPipeline(
    {
      session,
      transcripts: new TranscriptStore({ dir: join(dir, '.transcripts') }),
      ctx: { ...DEFAULT_PLAN_CONTEXT, tokens: new MemoizedMessageCounter(new CharEstimateTokenizer()) },
    },
    {
      microCompact: { enabled: micro, keepRecent: 0, minChars: 100 },
      autoCompact: { enabled: false, strategy: 'sliding-window', params: {}, trigger: neverTrigger },
    },
  );
}

test('pins: the pinned ids are saved with the session meta and come back on load', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sp-pins-'));
  const store = new SessionFileStore(dir);
  const log = store.create('s1', 'Pinned');
  log.append(...history());
  let changes = 0;
  log.onDidChange((c) => c.kind === 'meta' && changes++);
  assert.equal(log.setPinned(['u0', 'c2', 'r2']), true);
  assert.equal(log.setPinned(['u0', 'c2', 'r2']), false, 'an unchanged set writes nothing');
  assert.equal(changes, 1);
  log.dispose();
  const loaded = new SessionFileStore(dir).load('s1');
  assert.deepEqual([...loaded.log.pinnedIds()], ['u0', 'c2', 'r2']);
});

test('pins: a wrong pinned field is repaired on load with a warning naming file and field', () => {
  const base = { id: 's', title: 't', createdAt: 1, updatedAt: 2, compactions: [] };
  const bad = parseSessionMeta(JSON.stringify({ ...base, pinned: ['u1', 7, '', 'u1', 'u2'] }), 'f.meta.json', 's');
  assert.deepEqual(bad.meta.pinned, ['u1', 'u2']);
  assert.equal(bad.warnings.length, 2);
  assert.match(bad.warnings[0], /^f\.meta\.json:pinned\[1\]: expected a message id/);
  assert.match(bad.warnings[1], /^f\.meta\.json:pinned\[2\]:/);
  const notArray = parseSessionMeta(JSON.stringify({ ...base, pinned: 'u1' }), 'f.meta.json', 's');
  assert.equal(notArray.meta.pinned, undefined);
  assert.match(notArray.warnings[0], /^f\.meta\.json:pinned: expected an array/);
  const none = parseSessionMeta(JSON.stringify(base), 'f.meta.json', 's');
  assert.deepEqual(none.warnings, []);
  assert.equal(none.meta.pinned, undefined);
});

test('pins: preview and compaction through the pipeline keep the pinned messages verbatim, before the tail', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sp-pins-'));
  const log = new SessionFileStore(dir).create('s2', 'Pinned');
  log.append(...history());
  const pinnedMessages = log.messages.filter((m) => ['u0', 'c2', 'r2'].includes(m.id));
  log.setPinned(['u0', 'c2', 'r2']);
  const pipeline = pipelineOver(log, dir);
  const preview = pipeline.preview('sliding-window', { maxEvents: 4 });
  assert.deepEqual(preview.pinned, ['u0', 'c2', 'r2']);
  assert.ok((preview.pinnedTokens ?? 0) > 0);
  assert.ok(preview.notes.some((n) => /3 pinned messages kept verbatim/.test(n)));
  // Without the pins the same plan archives them.
  log.setPinned([]);
  const unpinned = pipeline.preview('sliding-window', { maxEvents: 4 });
  assert.ok(unpinned.archived.some((e) => e.id === 'u0'));
  log.setPinned(['u0', 'c2', 'r2']);
  // An auto-compaction (same path as manual) respects them.
  const outcome = await pipeline.compact({ strategy: 'sliding-window', params: { maxEvents: 4 }, trigger: 'auto' });
  assert.equal(outcome.ok, true);
  const after = log.messages;
  // The older pins come first (sliding-window writes no opener when the tail opens with a prompt), then the tail.
  assert.deepEqual(ids(after), ['u0', 'c2', 'r2', 'u6', 'c6', 'r6', 'a6']);
  for (const m of pinnedMessages)
    assert.deepEqual(
      after.find((x) => x.id === m.id),
      m,
      `${m.id} verbatim`,
    );
  assert.deepEqual(requestViolations(toApiMessages(after)), []);
  log.dispose();
});

test('pins: the request-time micro-compaction (layer 1) leaves pinned tool results verbatim and counts them', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sp-pins-'));
  const log = new SessionFileStore(dir).create('s3', 'Pinned');
  log.append(...history());
  const pipeline = pipelineOver(log, dir, true);
  const before = pipeline.prepareRequest();
  assert.equal(before.truncatedResults, 6, 'every old result is a placeholder without pins');
  log.setPinned(['c2', 'r2']);
  const after = pipeline.prepareRequest();
  assert.equal(after.truncatedResults, 5);
  const r2 = log.messages.find((m) => m.id === 'r2')!;
  assert.ok(JSON.stringify(after.messages).includes(JSON.stringify(r2.content)), 'r2 is sent as it was');
  assert.ok(after.tokens > before.tokens);
  assert.equal(pipeline.currentTokens(), after.tokens);
  assert.equal(
    pipeline.effectiveMessages().find((m) => m.id === 'r2'),
    r2,
  );
  log.dispose();
});
