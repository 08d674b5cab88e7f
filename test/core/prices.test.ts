// The price table and its lookup (prices.ts): where a model's price comes from (its row, a family
// fallback, the user's override), the warning a fallback gets, cache writes priced by their recorded TTL
// split, and the long-context premium of the models that bill one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { callCostUSD, ratesFor, type ModelPrice } from '../../src/core/cost/cost';
import { baseModelId, fallbackPriceWarning, priceFor, priceLookup } from '../../src/core/cost/prices';
import { recordedCallCostUSD } from '../../src/core/cost/recordedCost';

const close = (a: number, b: number) => Math.abs(a - b) < 1e-12;
const M = 1e6;

test('priceLookup: known ids are priced from their row, unknown ones by their family (with a warning), overrides are the user’s', () => {
  const cases: Array<[string, number, number, 'table' | 'family-fallback']> = [
    ['claude-opus-4-6', 5, 25, 'table'],
    ['claude-opus-4-5-20251101', 5, 25, 'table'],
    ['claude-opus-4-1-20250805', 15, 75, 'table'],
    ['claude-opus-4-20250514', 15, 75, 'table'],
    ['claude-sonnet-4-6', 3, 15, 'table'],
    ['claude-sonnet-4-5-20250929', 3, 15, 'table'],
    ['claude-sonnet-4-20250514', 3, 15, 'table'],
    ['claude-haiku-4-5-20251001', 1, 5, 'table'],
    ['claude-3-5-haiku-20241022', 0.8, 4, 'table'],
    ['gpt-5', 1.25, 10, 'table'],
    ['gpt-5.1-codex-max', 1.25, 10, 'table'],
    ['gpt-5.2', 1.75, 14, 'table'],
    ['gpt-5.3-codex', 1.75, 14, 'table'],
    ['gpt-5.4', 2.5, 15, 'table'],
    ['gpt-5.5', 5, 30, 'table'],
    ['codex-mini-latest', 1.5, 6, 'table'],
    // Not in the table: the family's latest price, never an old one.
    ['claude-opus-4-8', 5, 25, 'family-fallback'],
    ['claude-sonnet-7', 3, 15, 'family-fallback'],
    ['claude-fable-5', 3, 15, 'family-fallback'],
    ['gpt-5.9', 5, 30, 'family-fallback'],
    ['llama-3', 3, 15, 'family-fallback'],
  ];
  for (const [model, input, output, source] of cases) {
    const l = priceLookup(model);
    assert.deepEqual([l.price.input, l.price.output, l.source], [input, output, source], model);
    assert.equal(priceFor(model), l.price, 'priceFor is the lookup’s price');
  }
  assert.equal(priceLookup(undefined).source, 'family-fallback');
  assert.equal(priceLookup(undefined).row, 'default');
  // Claude's cache multipliers; OpenAI writes are free (input price), reads 0.1x.
  const opus = priceFor('claude-opus-4-6');
  assert.deepEqual([opus.cacheRead, opus.cacheWrite5m, opus.cacheWrite1h], [0.5, 6.25, 10]);
  const gpt = priceFor('gpt-5.5');
  assert.deepEqual([gpt.cacheRead, gpt.cacheWrite5m, gpt.cacheWrite1h], [0.5, 5, 5]);
  // The user's override: source 'user', the longest prefix wins, the table's long-context tier no longer applies.
  const user = priceLookup('claude-sonnet-4-5', { claude: { input: 1 }, 'claude-sonnet': { input: 2 } });
  assert.deepEqual([user.price.input, user.price.output, user.source, user.row], [2, 15, 'user', 'claude-sonnet']);
  assert.equal('longContext' in user.price, false);
});

test('a fallback price is said in one sentence naming the model, the family and the rates; a table price says nothing', () => {
  const fable = fallbackPriceWarning('claude-fable-5', priceLookup('claude-fable-5'));
  assert.equal(
    fable,
    "claude-fable-5: no price in the table; priced as the claude-* family's price ($3 input, $15 output per million tokens) " +
      '(family fallback; set a price override to correct it)',
  );
  assert.match(
    fallbackPriceWarning('claude-opus-4-8', priceLookup('claude-opus-4-8'))!,
    /^claude-opus-4-8: .*claude-opus-\* family's price \(\$5 input, \$25 output/,
  );
  assert.match(fallbackPriceWarning('llama', priceLookup('llama'))!, /priced as the default price/);
  assert.equal(fallbackPriceWarning('claude-opus-4-6', priceLookup('claude-opus-4-6')), undefined);
  assert.equal(fallbackPriceWarning('x', priceLookup('x', { x: { input: 1 } })), undefined, "the user's price is no fallback");
});

test('the [1m] window marker is not part of the billed model: claude-opus-4-6[1m] is priced as claude-opus-4-6', () => {
  assert.equal(baseModelId('claude-opus-4-6[1m]'), 'claude-opus-4-6');
  assert.equal(priceLookup('claude-opus-4-6[1m]').source, 'table');
  assert.equal(priceLookup('claude-opus-4-6[1m]').price, priceFor('claude-opus-4-6'));
});

test('cache writes: the recorded 1-hour part at the 1-hour rate, the rest at the given TTL', () => {
  const p: ModelPrice = { input: 3, output: 15, cacheWrite5m: 3.75, cacheWrite1h: 6, cacheRead: 0.3 };
  const t = { inputTokens: 10, cacheReadTokens: 1000, cacheWriteTokens: 400, outputTokens: 20 };
  const base = 10 * 3 + 1000 * 0.3 + 20 * 15;
  assert.ok(close(callCostUSD(t, p), (base + 400 * 3.75) / M), 'no split: all at 5m');
  assert.ok(close(callCostUSD(t, p, '1h'), (base + 400 * 6) / M), 'no split: all at 1h');
  assert.ok(close(callCostUSD({ ...t, cacheWrite1hTokens: 300 }, p), (base + 300 * 6 + 100 * 3.75) / M), '300 at 1h, 100 at 5m');
  assert.ok(close(callCostUSD({ ...t, cacheWrite1hTokens: 400 }, p, '5m'), (base + 400 * 6) / M));
  assert.ok(close(callCostUSD({ ...t, cacheWrite1hTokens: 9999 }, p), (base + 400 * 6) / M), 'a split larger than the writes is capped');
});

test('long context: Sonnet 4.5 over 200K input and GPT-5.5 over 272K bill every token at 2x input, 1.5x output; Opus 4.6 only before its 1M GA', () => {
  const sonnet = priceFor('claude-sonnet-4-5');
  const at = (input: number) => ({ inputTokens: 0, cacheReadTokens: input, cacheWriteTokens: 0, outputTokens: 1000 });
  // 200,000 exactly: standard; 200,001: the whole request at the premium.
  assert.ok(close(callCostUSD(at(200_000), sonnet), (200_000 * 0.3 + 1000 * 15) / M));
  assert.ok(close(callCostUSD(at(200_001), sonnet), (200_001 * 0.6 + 1000 * 22.5) / M));
  const withWrite = { inputTokens: 100, cacheReadTokens: 150_000, cacheWriteTokens: 60_000, cacheWrite1hTokens: 60_000, outputTokens: 10 };
  assert.ok(
    close(callCostUSD(withWrite, sonnet), (100 * 6 + 150_000 * 0.6 + 60_000 * 12 + 10 * 22.5) / M),
    'cache reads and writes count toward the threshold',
  );
  const gpt = priceFor('gpt-5.5');
  assert.ok(close(callCostUSD(at(272_000), gpt), (272_000 * 0.5 + 1000 * 30) / M));
  assert.ok(close(callCostUSD(at(300_000), gpt), (300_000 * 1 + 1000 * 45) / M));
  // Opus 4.6: the premium applied before 2026-03-13 only; a call without a time is priced at today's rates.
  const opus = priceFor('claude-opus-4-6');
  const big = at(303_594);
  assert.equal(ratesFor(big, opus), opus);
  assert.equal(ratesFor(big, opus, Date.UTC(2026, 3, 1)), opus);
  assert.equal(ratesFor(big, opus, Date.UTC(2026, 1, 13)).input, 10);
  assert.ok(close(callCostUSD(big, opus, '5m', Date.UTC(2026, 1, 13)), (303_594 * 1 + 1000 * 37.5) / M));
  assert.equal(ratesFor(at(100_000), opus, Date.UTC(2026, 1, 13)), opus, 'under 200K: standard then too');
});

test('recordedCallCostUSD prices a recorded call as billed: its TTL split, its model, and where the price came from', () => {
  const usage = { inputTokens: 2, cacheReadTokens: 28_204, cacheCreationTokens: 15_137, cacheWrite1hTokens: 15_137, outputTokens: 9 };
  const opus = recordedCallCostUSD({ ...usage, model: 'claude-opus-4-6' });
  assert.equal(opus.priceSource, 'table');
  assert.ok(close(opus.costUSD, (2 * 5 + 28_204 * 0.5 + 15_137 * 10 + 9 * 25) / M));
  const unsplit = recordedCallCostUSD({ ...usage, cacheWrite1hTokens: undefined, model: 'claude-opus-4-6' });
  assert.ok(close(unsplit.costUSD, (2 * 5 + 28_204 * 0.5 + 15_137 * 6.25 + 9 * 25) / M), 'no recorded split: the API default, 5 minutes');
  assert.equal(recordedCallCostUSD({ ...usage, model: 'claude-fable-5' }).priceSource, 'family-fallback');
  const user = recordedCallCostUSD({ ...usage, model: 'claude-opus-4-6' }, { 'claude-opus': { cacheWrite1h: 1 } });
  assert.equal(user.priceSource, 'user');
  assert.ok(close(user.costUSD, (2 * 5 + 28_204 * 0.5 + 15_137 * 1 + 9 * 25) / M));
});
