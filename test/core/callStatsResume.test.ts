// A resumed (or continued) session's call statistics go on from its own recorded calls (issue 25): the
// "pays" policy and the "auto" TTL decide from the calls the history records, not from zero.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message, RecordedUsage } from '../../src/core/conversation/conversation';
import { CompactionPipeline } from '../../src/core/pipeline/pipeline';
import { DEFAULT_PLAN_CONTEXT } from '../../src/core/pipeline/plan';
import { SessionFileStore } from '../../src/core/session/session';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';
import { TranscriptStore } from '../../src/core/transcripts/transcripts';
import { budgetTrigger } from '../../src/core/pipeline/triggers';
import { summary, user } from '../helpers/build';

const MINUTE = 60_000;
const usage = (k: number): RecordedUsage => ({ inputTokens: 100, cacheReadTokens: 10_000 * k, cacheCreationTokens: 500, outputTokens: 50 });
const answer = (id: string, k: number, at: number): Message => ({
  id,
  role: 'assistant',
  content: [{ type: 'text', text: `answer ${id}` }],
  usage: usage(k),
  createdAt: at,
});

function pipelineOn(dir: string, id: string, now: number) {
  const loaded = new SessionFileStore(dir).load(id);
  const pipeline = new CompactionPipeline(
    {
      session: loaded.log,
      transcripts: new TranscriptStore({ dir: join(dir, '.transcripts') }),
      ctx: { ...DEFAULT_PLAN_CONTEXT, tokens: new MemoizedMessageCounter(new CharEstimateTokenizer()), model: 'claude-opus-4-6' },
      now: () => now,
    },
    {
      microCompact: { enabled: false, keepRecent: 3, minChars: 100 },
      autoCompact: { enabled: true, strategy: 'sliding-window', params: { maxEvents: 8 }, trigger: budgetTrigger({ fraction: 0.8 }) },
      promptCaching: 'auto',
    },
  );
  return { pipeline, session: loaded.log };
}

test('a resumed session counts the calls its history records: one per response, from the last compaction on', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sp-resume-stats-'));
  const log = new SessionFileStore(dir).create('s', 'resumed');
  // A compacted history: the summary, then 6 calls 10 minutes apart (gaps past the 5-minute TTL), the third
  // response written as two messages with the same usage (one call), and a user message between calls.
  log.append(summary('s0'), user('u0'));
  let at = 0;
  for (let k = 1; k <= 6; k++) {
    at += 10 * MINUTE;
    log.append(answer(`a${k}`, k, at));
    if (k === 3) log.append(answer(`a${k}b`, k, at + 1));
    log.append(user(`u${k}`));
  }
  log.dispose();
  const { pipeline, session } = pipelineOn(dir, 's', at + 20 * MINUTE);
  await pipeline.beforeModelCall();
  const d = pipeline.autoCompactDecision()!;
  assert.equal(d.calls, 6, 'six recorded calls (the split response counted once)');
  assert.equal(d.callsSinceCompaction, 6, 'all of them since the compaction the summary marks');
  assert.match(d.ttlReason ?? '', /5 of 5 gaps over 5 minutes/, 'the TTL choice has seen the recorded gaps');
  session.dispose();
});

test('a new session starts its statistics from zero', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sp-resume-stats-'));
  new SessionFileStore(dir).create('s', 'new').dispose();
  const { pipeline, session } = pipelineOn(dir, 's', 0);
  await pipeline.beforeModelCall();
  const d = pipeline.autoCompactDecision()!;
  assert.deepEqual([d.calls, d.callsSinceCompaction], [0, null]);
  assert.match(d.ttlReason ?? '', /no gap between calls yet/);
  session.dispose();
});
