// The first micro-compacted view of a long session, built in slices (IncrementalMicroCompactor.syncSteps,
// CompactionPipeline.warmView): the host's event loop runs between the slices, every step does a bounded
// amount of work (counted, not timed), the view is the one sync() builds, and a synchronous read while it
// is under way finishes it rather than see half a view.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from '../../src/core/conversation/conversation';
import { IncrementalMicroCompactor } from '../../src/core/pipeline/microCompactor';
import { CompactionPipeline, type PipelineSettings } from '../../src/core/pipeline/pipeline';
import { DEFAULT_PLAN_CONTEXT } from '../../src/core/pipeline/plan';
import { newSessionMeta, SessionLog } from '../../src/core/session/session';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';
import { TranscriptStore } from '../../src/core/transcripts/transcripts';
import { budgetTrigger } from '../../src/core/pipeline/triggers';
import { syntheticSession } from '../helpers/synthetic';

const MICRO = { enabled: true, keepRecent: 3, minChars: 100 } as const;

function settings(): PipelineSettings {
  return {
    microCompact: { ...MICRO },
    autoCompact: { enabled: false, strategy: 'recursive-summarization', params: {}, trigger: budgetTrigger({ fraction: 0.8 }) },
  };
}

function pipelineOver(messages: Message[], counter = new MemoizedMessageCounter(new CharEstimateTokenizer())): CompactionPipeline {
  return new CompactionPipeline(
    {
      session: new SessionLog(newSessionMeta('warm'), messages),
      transcripts: new TranscriptStore({ dir: join(tmpdir(), 'sp-warm-transcripts') }),
      ctx: { ...DEFAULT_PLAN_CONTEXT, tokens: counter },
    },
    settings(),
  );
}

/** A counter that counts its countMessage calls (the unit of work of a view step). */
class CallCounter extends MemoizedMessageCounter {
  calls = 0;
  override countMessage(m: Message): number {
    this.calls++;
    return super.countMessage(m);
  }
}

/**
 * A counter whose every count takes at least 20 µs, so that building a 6,000-message view takes longer
 * than many 8 ms slices on any machine: whether the event loop got a turn does not depend on the speed.
 */
class SlowCounter extends MemoizedMessageCounter {
  override countMessage(m: Message): number {
    const until = performance.now() + 0.02;
    while (performance.now() < until);
    return super.countMessage(m);
  }
}

test('syncSteps builds the view sync() builds, with a bounded number of counts between two yields', () => {
  const messages = syntheticSession({ messages: 6_000, seed: 5 });
  const straight = new IncrementalMicroCompactor(MICRO, new MemoizedMessageCounter(new CharEstimateTokenizer()));
  straight.sync(messages, 0);
  const counter = new CallCounter(new CharEstimateTokenizer());
  const sliced = new IncrementalMicroCompactor(MICRO, counter);
  const steps = sliced.syncSteps(messages, 0);
  let most = 0;
  let yields = 0;
  for (;;) {
    const before = counter.calls;
    const r = steps.next();
    most = Math.max(most, counter.calls - before);
    if (r.done) break;
    yields++;
  }
  assert.ok(straight.truncatedResults > 500, `${straight.truncatedResults} results cleared: the batch is large`);
  assert.deepEqual(sliced.messages, straight.messages);
  assert.equal(sliced.tokenTotal, straight.tokenTotal);
  assert.equal(sliced.truncatedResults, straight.truncatedResults);
  assert.deepEqual(sliced.lastDecision, straight.lastDecision);
  // One pass counts every message (6,000 calls); a step counts at most about a thousand.
  assert.ok(most <= 1_100, `a step made ${most} countMessage calls`);
  assert.ok(yields >= 10, `${yields} yields`);
});

test('warmView gives the event loop turns while it builds, and ends with the view currentTokens would build', async () => {
  const messages = syntheticSession({ messages: 6_000, seed: 6 });
  const reference = pipelineOver(messages).currentTokens();
  const pipeline = pipelineOver(messages, new SlowCounter(new CharEstimateTokenizer()));
  let turns = 0;
  const ticking = setInterval(() => turns++, 0);
  try {
    await pipeline.warmView();
  } finally {
    clearInterval(ticking);
  }
  assert.ok(turns > 0, 'timers ran while the view was built');
  assert.equal(pipeline.currentTokens(), reference);
  assert.deepEqual(pipeline.effectiveMessages(), pipelineOver(messages).effectiveMessages());
});

test('a synchronous read while warmView runs finishes the view first; warmView then resolves', async () => {
  const messages = syntheticSession({ messages: 6_000, seed: 7 });
  const reference = pipelineOver(messages);
  const pipeline = pipelineOver(messages);
  const warming = pipeline.warmView();
  await new Promise<void>((resolve) => setImmediate(resolve));
  // Mid-way: an append and a read. The read must see the whole view, the append included.
  pipeline.session.append({ id: 'late', role: 'user', content: 'one more prompt' });
  reference.session.append({ id: 'late', role: 'user', content: 'one more prompt' });
  assert.equal(pipeline.currentTokens(), reference.currentTokens());
  assert.equal(pipeline.prepareRequest().truncatedResults, reference.prepareRequest().truncatedResults);
  await warming;
  assert.deepEqual(pipeline.effectiveMessages(), reference.effectiveMessages());
  assert.deepEqual(pipeline.microDecision(), reference.microDecision());
});
