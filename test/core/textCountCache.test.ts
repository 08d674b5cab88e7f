import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { countMessagesInBackground } from '../../src/core/counting/backgroundCounting';
import { planMicroCompact } from '../../src/core/strategies/microCompact';
import { DEFAULT_PLAN_CONTEXT } from '../../src/core/pipeline/plan';
import { CachingTextTokenizer } from '../../src/core/counting/textCountCache';
import { GptTokenizerTokenizer, warmupTokenizer } from '../../src/core/counting/tokenizers';
import { CharEstimateTokenizer, MemoizedMessageCounter, type TextTokenizer } from '../../src/core/counting/tokens';
import { syntheticSession } from '../helpers/synthetic';

/** A tokenizer that counts its calls. */
function spy(inner: TextTokenizer): TextTokenizer & { calls: number } {
  const s = { name: inner.name, calls: 0, countText: (t: string) => (s.calls++, inner.countText(t)) };
  return s;
}

test('the cached count of any text equals the inner count', () => {
  const cached = new CachingTextTokenizer(new GptTokenizerTokenizer(), { maxChars: 64, maxEntries: 50 });
  const inner = new GptTokenizerTokenizer();
  fc.assert(
    fc.property(fc.string({ maxLength: 120 }), (text) => {
      assert.equal(cached.countText(text), inner.countText(text));
      assert.equal(cached.countText(text), inner.countText(text));
    }),
    { numRuns: 400 },
  );
});

test('a short text is encoded once; a long one every time', () => {
  const inner = spy(new CharEstimateTokenizer());
  const cached = new CachingTextTokenizer(inner, { maxChars: 10 });
  for (let i = 0; i < 5; i++) cached.countText('[Previous]');
  assert.equal(inner.calls, 1);
  for (let i = 0; i < 5; i++) cached.countText('a text longer than ten characters');
  assert.equal(inner.calls, 6);
  assert.deepEqual(cached.stats, { entries: 1, hits: 4, misses: 1 });
});

test('the cache is emptied when full, so it never holds more than maxEntries texts', () => {
  const cached = new CachingTextTokenizer(new CharEstimateTokenizer(), { maxEntries: 3 });
  for (const t of ['a', 'b', 'c', 'd', 'e']) cached.countText(t);
  assert.ok(cached.stats.entries <= 3);
  assert.equal(cached.countText('a'), 1);
});

test('it keeps the inner name and forwards warmup, so counts and piecewise counting stay exact', async () => {
  const gpt = new GptTokenizerTokenizer();
  const cached = new CachingTextTokenizer(gpt);
  assert.equal(cached.name, 'gpt-tokenizer');
  assert.equal(typeof warmupTokenizer(cached), 'number');
  assert.equal(cached.loaded, true);
  const messages = syntheticSession({ messages: 120, seed: 11 });
  const reference = new MemoizedMessageCounter(gpt).countMessages(messages);
  assert.equal(new MemoizedMessageCounter(cached).countMessages(messages), reference);
  const background = await countMessagesInBackground(new MemoizedMessageCounter(new CachingTextTokenizer(gpt)), messages, {
    pieceChars: 1_000,
  });
  assert.equal(background.tokens, reference);
});

test('a micro-compact plan recounts its placeholder copies from the cache', () => {
  const messages = syntheticSession({ messages: 400, seed: 12 });
  const inner = spy(new GptTokenizerTokenizer());
  const counter = new MemoizedMessageCounter(new CachingTextTokenizer(inner));
  const ctx = { ...DEFAULT_PLAN_CONTEXT, tokens: counter };
  const first = planMicroCompact(messages, { keepRecent: 3, minChars: 100 }, ctx);
  const callsAfterFirst = inner.calls;
  const second = planMicroCompact(messages, { keepRecent: 3, minChars: 100 }, ctx);
  assert.ok(second.truncated.length > 10);
  assert.equal(second.tokensAfter, first.tokensAfter);
  assert.ok(inner.calls - callsAfterFirst < 10, `${inner.calls - callsAfterFirst} encoder calls for the second plan`);
  const plain = planMicroCompact(
    messages,
    { keepRecent: 3, minChars: 100 },
    { ...DEFAULT_PLAN_CONTEXT, tokens: new MemoizedMessageCounter(new GptTokenizerTokenizer()) },
  );
  assert.equal(second.tokensAfter, plain.tokensAfter);
});
