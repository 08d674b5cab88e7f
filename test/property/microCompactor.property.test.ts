// The incremental micro-compactor (layer 1 of the pipeline) must produce exactly what the pure
// micro-compact strategy produces, however the history grew, and keep its token total exact.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { IncrementalMicroCompactor } from '../../src/core/pipeline/microCompactor';
import { planMicroCompact } from '../../src/core/strategies/microCompact';
import { DEFAULT_PLAN_CONTEXT } from '../../src/core/pipeline/plan';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';
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

/** Cache-weighed decisions met by the batch property: both outcomes must occur, or it tests nothing. */
const weighed = { held: 0, cleared: 0 };
/** Superseded results the views replaced by pointers: some must be, or supersede is not exercised. */
let pointered = 0;

test('in batches (trigger, clear-at-least, tools, cache-aware), each incremental step equals the pure strategy given what was cleared', () => {
  fc.assert(
    fc.property(
      conversationArb,
      fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 20 }),
      fc.record({
        keepRecent: fc.integer({ min: 0, max: 5 }),
        minChars: fc.integer({ min: 0, max: 300 }),
        triggerTokens: fc.integer({ min: 0, max: 20_000 }),
        clearAtLeast: fc.integer({ min: 0, max: 10_000 }),
        tools: fc.subarray(['read_file', 'list_files', 'search', 'run_command', 'edit_file']),
        cacheAware: fc.boolean(),
        horizonTurns: fc.integer({ min: 1, max: 30 }),
        // The arbitraries' search and list_files calls repeat one input: a later one supersedes an earlier one.
        supersede: fc.boolean(),
      }),
      fc.array(fc.option(fc.integer({ min: 0, max: 60_000 }), { nil: undefined }), { minLength: 1, maxLength: 21 }),
      fc.integer({ min: 0, max: 3_000 }),
      (messages, steps, settings, cached, overheadTokens) => {
        const tokens = new MemoizedMessageCounter(new CharEstimateTokenizer());
        const micro = new IncrementalMicroCompactor(settings, tokens);
        const session: typeof messages = [];
        let at = 0;
        [...steps, messages.length].forEach((step, k) => {
          session.push(...messages.slice(at, at + step));
          at = Math.min(messages.length, at + step);
          const prefix = cached[k % cached.length];
          const decision = {
            overheadTokens,
            ...(prefix !== undefined ? { cache: { cachedPrefixTokens: prefix, model: 'claude-sonnet-4-5' } } : {}),
          };
          const before = micro.cleared;
          const pointers = micro.clearedPointers;
          micro.sync(session, 0, decision);
          const ctx = { ...DEFAULT_PLAN_CONTEXT, tokens, ...decision, microCleared: before, microPointers: pointers };
          const plan = planMicroCompact(session, settings, ctx);
          assert.deepEqual(micro.messages, plan.output);
          assert.equal(micro.tokenTotal, tokens.countMessages(plan.output));
          for (const id of before) assert.ok(micro.cleared.has(id), `${id} was cleared and came back`);
          if (!settings.supersede) assert.equal(micro.clearedPointers.size, 0);
          else pointered += micro.clearedPointers.size;
          // A cleared batch met every threshold it was given.
          const d = plan.microCompaction!;
          if (d.cache && d.action !== 'none') weighed[d.action]++;
          if (d.action === 'cleared') {
            assert.ok(d.clearableTokens >= settings.triggerTokens && d.savedTokens >= settings.clearAtLeast);
            if (d.cache) assert.ok(d.cache.paybackTurns !== null && d.cache.paybackTurns <= settings.horizonTurns);
          }
        });
      },
    ),
    { numRuns: 300 },
  );
  assert.ok(weighed.held > 0 && weighed.cleared > 0, `cache-weighed decisions: ${JSON.stringify(weighed)}`);
  assert.ok(pointered > 0, 'no superseded result was ever replaced by a pointer');
});
