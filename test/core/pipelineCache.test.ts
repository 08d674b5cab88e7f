// The pipeline and the prompt cache: the agent reports each call's cache usage (noteCache); previews are
// priced with it (not assumed), micro-compaction weighs it, and its decision is readable; a rewrite of
// the history (a compaction) makes the cache state unknown until the next call reports one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompactionPipeline } from '../../src/core/pipeline/pipeline';
import { DEFAULT_PLAN_CONTEXT } from '../../src/core/pipeline/plan';
import { SessionFileStore } from '../../src/core/session/session';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';
import { TranscriptStore } from '../../src/core/transcripts/transcripts';
import { neverTrigger } from '../../src/core/pipeline/triggers';
import { assistant, call, results, user } from '../helpers/build';

test('noteCache: previews are priced with the reported cache, micro-compaction weighs it, a compaction forgets it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sp-pipecache-'));
  const session = new SessionFileStore(dir).create('s1', 'cache');
  session.append(user('u0', 'Read the files.'));
  for (let i = 1; i <= 6; i++) session.append(call(`c${i}`, [`t${i}`, 'read_file']), results(`r${i}`, [`t${i}`, 'x'.repeat(4000)]));
  session.append(assistant('a'), user('u1', 'And now?'));
  const pipeline = new CompactionPipeline(
    {
      session,
      transcripts: new TranscriptStore({ dir: join(dir, '.transcripts') }),
      ctx: { ...DEFAULT_PLAN_CONTEXT, tokens: new MemoizedMessageCounter(new CharEstimateTokenizer()), model: 'claude-sonnet-4-5' },
    },
    {
      microCompact: { enabled: true, keepRecent: 5, minChars: 100, cacheAware: true },
      autoCompact: { enabled: false, strategy: 'sliding-window', params: {}, trigger: neverTrigger },
    },
  );
  // No call yet: the cache is assumed (the previous request cached whole), micro-compaction clears as before.
  assert.equal(pipeline.preview('sliding-window', { maxEvents: 2 }).cost!.cacheAssumed, true);
  assert.equal(pipeline.prepareRequest().truncatedResults, 1);

  // A call reports its whole prefix cached: the next old result is held (it would re-write the cache).
  session.append(call('c7', ['t7', 'read_file']), results('r7', ['t7', 'x'.repeat(4000)]));
  pipeline.noteCache({ cachedPrefixTokens: 1_000_000, model: 'claude-sonnet-4-5' });
  assert.equal(pipeline.prepareRequest().truncatedResults, 1, 'r2 is held');
  const d = pipeline.microDecision()!;
  assert.equal(d.action, 'held');
  assert.ok(d.cache!.invalidatedCachedTokens > 0);
  const priced = pipeline.preview('sliding-window', { maxEvents: 2 }).cost!;
  assert.equal(priced.cacheAssumed, false);
  assert.ok(priced.invalidatedCachedTokens > 0);
  // The micro-compact preview starts from what the live view cleared (r1) and decides like the view.
  const micro = pipeline.preview('micro-compact', { keepRecent: 5, minChars: 100 });
  assert.equal(micro.microCompaction!.action, 'held');
  assert.deepEqual(
    micro.truncated.map((t) => t.id),
    ['r1'],
  );

  // A compaction rewrites the history: the cache state is forgotten until the next call.
  const outcome = await pipeline.compact({ strategy: 'sliding-window', params: { maxEvents: 4 }, trigger: 'manual' });
  assert.ok(outcome.ok, outcome.ok ? '' : outcome.message);
  assert.equal(pipeline.preview('sliding-window', { maxEvents: 1 }).cost!.cacheAssumed, true);
  session.dispose();
});
