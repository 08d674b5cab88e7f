// The pipeline plans within the window its requests really have: the system prompt and tool
// definitions (its overhead) count against it, in previews and in compactions alike.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from '../../src/core/conversation/conversation';
import { CompactionPipeline } from '../../src/core/pipeline/pipeline';
import { DEFAULT_PLAN_CONTEXT } from '../../src/core/pipeline/plan';
import { SessionFileStore } from '../../src/core/session/session';
import { TranscriptStore } from '../../src/core/transcripts/transcripts';
import { budgetTrigger } from '../../src/core/pipeline/triggers';
import { FixedCostCounter } from '../helpers/build';

function pipelineWith(overheadTokens: number | undefined): CompactionPipeline {
  const dir = mkdtempSync(join(tmpdir(), 'sp-fit-'));
  const session = new SessionFileStore(join(dir, 'sessions')).create('s1', 'fit');
  for (let i = 0; i < 10; i++) {
    const prompt: Message = { id: `u${i}`, role: 'user', content: `prompt ${i}` };
    const answer: Message = { id: `a${i}`, role: 'assistant', content: [{ type: 'text', text: `answer ${i}` }] };
    session.append(prompt, answer);
  }
  return new CompactionPipeline(
    {
      session,
      transcripts: new TranscriptStore({ dir: join(dir, '.transcripts') }),
      // 20 messages of 10 tokens: 200 tokens, exactly the request budget (300 - 100 for the answer).
      ctx: { ...DEFAULT_PLAN_CONTEXT, contextWindow: 300, maxOutputTokens: 100, tokens: new FixedCostCounter() },
      overheadTokens: overheadTokens === undefined ? undefined : () => overheadTokens,
    },
    {
      microCompact: { enabled: false, keepRecent: 3, minChars: 100 },
      autoCompact: { enabled: false, strategy: 'sliding-window', params: {}, trigger: budgetTrigger({ fraction: 0.8 }) },
    },
  );
}

test('pipeline: previews count the system prompt and tools against the window', () => {
  const without = pipelineWith(undefined).preview('sliding-window', { maxEvents: 100 });
  assert.equal(without.noop, true);
  assert.equal(without.fitsWindow, true);
  const withOverhead = pipelineWith(50).preview('sliding-window', { maxEvents: 100 });
  assert.equal(withOverhead.noop, false, 'with 50 tokens of overhead the 200-token history no longer fits');
  assert.equal(withOverhead.fitsWindow, true);
  assert.equal(withOverhead.tokensAfter, 140);
  assert.ok(withOverhead.notes.some((n) => n.includes('overhead 50')));
});

test('pipeline: a compaction is planned within the window minus the overhead', async () => {
  const pipeline = pipelineWith(50);
  const outcome = await pipeline.compact({ strategy: 'sliding-window', params: { maxEvents: 100 }, trigger: 'manual' });
  assert.equal(outcome.ok, true, outcome.ok ? '' : outcome.message);
  assert.equal(pipeline.session.messages.length, 14);
  assert.equal(pipeline.session.messages[0].id, 'u3');
});
