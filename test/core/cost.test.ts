// Prices and the prompt-cache model: what a call costs, and what the cache serves of a request.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { callCostUSD, contextWindowFor, priceFor } from '../../src/core/index';
import { minCacheableTokens, PrefixCache, prefixHashes, type CacheSegment } from '../../src/core/cost/cost';

const seg = (key: string, tokens: number): CacheSegment => ({ key, tokens });

test('cost: Claude prices follow the cache multipliers (read 0.1x, 5m write 1.25x, 1h write 2x); overrides by id prefix', () => {
  const p = priceFor('claude-sonnet-4-5-20250929');
  const { longContext, ...rates } = p;
  assert.deepEqual(rates, { input: 3, output: 15, cacheWrite5m: 3.75, cacheWrite1h: 6, cacheRead: 0.3 });
  assert.equal(longContext?.aboveTokens, 200_000, 'Sonnet 4.5 bills requests over 200K at the long-context rates');
  assert.equal(priceFor('claude-opus-4-5').input, 5);
  assert.equal(priceFor('claude-opus-4-1').input, 15);
  assert.equal(priceFor('claude-haiku-4-5').output, 5);
  assert.equal(priceFor('gpt-5-codex').cacheWrite5m, 1.25, 'OpenAI caches without a write premium');
  assert.equal(priceFor(undefined).input, 3);
  assert.equal(priceFor('claude-sonnet-4-5', { claude: { input: 1 }, 'claude-sonnet': { input: 2 } }).input, 2, 'the longest prefix wins');
  // A million of each, priced at the standard rates (`rates`: without the long-context tier).
  const usd = callCostUSD({ inputTokens: 1e6, cacheReadTokens: 1e6, cacheWriteTokens: 1e6, outputTokens: 1e6 }, rates);
  assert.ok(Math.abs(usd - (3 + 0.3 + 3.75 + 15)) < 1e-9);
  assert.ok(Math.abs(callCostUSD({ inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 1e6, outputTokens: 0 }, rates, '1h') - 6) < 1e-9);
});

test('cost: minimum cacheable length and windows per model', () => {
  assert.equal(minCacheableTokens('claude-sonnet-4-5'), 1024);
  assert.equal(minCacheableTokens('claude-opus-4-5'), 4096);
  assert.equal(minCacheableTokens('claude-haiku-4-5'), 4096);
  assert.equal(minCacheableTokens('claude-3-5-haiku-latest'), 2048);
  assert.equal(contextWindowFor('claude-sonnet-4-5'), 200_000);
  assert.equal(contextWindowFor('gpt-5-codex'), 400_000);
  assert.equal(contextWindowFor('llama'), undefined);
});

test('prefix cache: a growing conversation with a moving breakpoint reads the previous prefix and writes the new turn', () => {
  const cache = new PrefixCache(1024);
  const sys = seg('system+tools', 3000);
  const r1 = [sys, seg('u1', 500)];
  assert.deepEqual(cache.call(r1, [0, 1]), { cacheReadTokens: 0, cacheWriteTokens: 3500, inputTokens: 0, cachedSegments: 0 });
  const r2 = [...r1, seg('a1', 200), seg('u2', 300)];
  assert.deepEqual(cache.call(r2, [0, 3]), { cacheReadTokens: 3500, cacheWriteTokens: 500, inputTokens: 0, cachedSegments: 2 });
  // A compaction rewrites the history after the system prompt: only the system breakpoint still hits.
  const r3 = [sys, seg('summary', 400), seg('u3', 100)];
  assert.deepEqual(cache.call(r3, [0, 2]), { cacheReadTokens: 3000, cacheWriteTokens: 500, inputTokens: 0, cachedSegments: 1 });
});

test('prefix cache: below the minimum nothing is written; without a breakpoint nothing is read; entries expire after their TTL', () => {
  const cache = new PrefixCache(1024);
  assert.deepEqual(cache.call([seg('s', 600)], [0]), { cacheReadTokens: 0, cacheWriteTokens: 0, inputTokens: 600, cachedSegments: 0 });
  assert.equal(cache.call([seg('s', 600)], [0]).cacheReadTokens, 0, 'a prefix under the minimum was never cached');
  const r = [seg('s', 2000), seg('u', 10)];
  cache.call(r, [1], 0);
  assert.equal(cache.call(r, [], 1000).cacheReadTokens, 0, 'no breakpoint: no cache lookup');
  assert.equal(cache.call(r, [1], 4 * 60_000).cacheReadTokens, 2010, 'within 5 minutes: a hit (and the TTL is refreshed)');
  assert.equal(cache.call(r, [1], 8 * 60_000).cacheReadTokens, 2010, 'refreshed by the last read');
  assert.equal(cache.call(r, [1], 20 * 60_000).cacheReadTokens, 0, 'expired');
});

test('prefix cache: the lookback finds a cached prefix at most 20 segments before the breakpoint; a changed segment breaks the prefix', () => {
  const cache = new PrefixCache(100);
  const base = [seg('s', 200)];
  cache.call(base, [0]);
  const near = [...base, ...Array.from({ length: 20 }, (_, i) => seg(`m${i}`, 1))];
  assert.equal(cache.call(near, [20]).cacheReadTokens, 200);
  const far = [...base, ...Array.from({ length: 30 }, (_, i) => seg(`x${i}`, 1))];
  const c2 = new PrefixCache(100);
  c2.call(base, [0]);
  assert.equal(c2.call(far, [30]).cacheReadTokens, 0, '30 segments back is beyond the lookback');
  const a = prefixHashes([seg('a', 1), seg('b', 1)]);
  const b = prefixHashes([seg('a', 1), seg('c', 1)]);
  assert.equal(a[0], b[0]);
  assert.notEqual(a[1], b[1]);
});
