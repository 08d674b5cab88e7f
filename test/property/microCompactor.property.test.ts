// The incremental micro-compactor (layer 1 of the pipeline) must produce exactly what the pure
// micro-compact strategy produces, however the history grew, and keep its token total exact.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { IncrementalMicroCompactor } from '../../src/core/microCompactor';
import { planMicroCompact } from '../../src/core/strategies/microCompact';
import { DEFAULT_PLAN_CONTEXT } from '../../src/core/plan';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/tokens';
import { conversationArb } from './arbitraries';

test('incremental micro-compaction over any sequence of appends equals the pure strategy on the whole history', () => {
  fc.assert(
    fc.property(
      conversationArb,
      fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 20 }),
      fc.integer({ min: 0, max: 5 }),
      fc.integer({ min: 0, max: 300 }),
      (messages, steps, keepRecent, minChars) => {
        const tokens = new MemoizedMessageCounter(new CharEstimateTokenizer());
        const micro = new IncrementalMicroCompactor({ keepRecent, minChars }, tokens);
        const session: typeof messages = [];
        let at = 0;
        for (const step of [...steps, messages.length]) {
          session.push(...messages.slice(at, at + step));
          at = Math.min(messages.length, at + step);
          micro.sync(session);
          const expected = planMicroCompact(session, { keepRecent, minChars }, { ...DEFAULT_PLAN_CONTEXT, tokens }).output;
          assert.deepEqual(micro.messages, expected);
          assert.equal(micro.tokenTotal, tokens.countMessages(expected));
        }
        // A rewrite (e.g. a compaction) rebuilds the view.
        const rewritten = session.slice(Math.floor(session.length / 2));
        micro.sync(rewritten);
        assert.deepEqual(micro.messages, planMicroCompact(rewritten, { keepRecent, minChars }, { ...DEFAULT_PLAN_CONTEXT, tokens }).output);
      },
    ),
    { numRuns: 400 },
  );
});
