// "Compact when it pays" (issue 25): the decision math, pure; the call statistics and prompt caching "auto".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { forcedAtTokens, paysDecision, type PaysInput } from '../../src/core/pipeline/paysTrigger';
import { CallStats } from '../../src/core/pipeline/callStats';
import { priceFor } from '../../src/core/cost/prices';

const OPUS = priceFor('claude-opus-4-6'); // $5 input, $25 output, $0.50 read, $6.25 / $10 write
const MIN = 60_000;

function input(over: Partial<PaysInput> = {}): PaysInput {
  return {
    tokens: 150_000,
    tokensAfter: 30_000,
    overheadTokens: 20_000,
    summaryOutputTokens: 3_000,
    instructionTokens: 1_000,
    cacheWarm: true,
    caching: '5m',
    price: OPUS,
    callsSoFar: 120,
    callsSinceCompaction: 120,
    idleGaps: 0,
    growthPerCall: 0,
    forcedAtTokens: 172_000,
    ...over,
  };
}

test('paysDecision: the cost of compacting now (summary call + re-written prefix) against the saving per later call', () => {
  const d = paysDecision(input());
  // Summary: 150,000 read at $0.50/M + 1,000 input at $5/M + 3,000 out at $25/M = 0.075 + 0.005 + 0.075.
  // Re-write: the 10,000-token tail written instead of read: 10,000 × (6.25 − 0.50)/M = 0.0575.
  assert.ok(Math.abs(d.costUSD - 0.2125) < 1e-9, String(d.costUSD));
  assert.ok(Math.abs(d.savingPerCallUSD - 0.06) < 1e-9, String(d.savingPerCallUSD)); // 120,000 × $0.50/M
  assert.equal(d.paybackCalls, 4);
  assert.equal(d.expectedCalls, 40); // a third of 120
  assert.equal(d.horizonBy, 'session');
  assert.equal(d.compact, true);
  assert.equal(d.reason, 'compacting now costs $0.21 and pays back in 4 calls; expected ≥ 40 more calls (a third of the 120 so far)');
});

test('paysDecision: not yet when few calls are expected (early in a session)', () => {
  const d = paysDecision(input({ callsSoFar: 9, callsSinceCompaction: 9 }));
  assert.equal(d.expectedCalls, 3);
  assert.equal(d.paybackCalls, 4);
  assert.equal(d.compact, false);
  assert.match(d.reason, /^not yet: compacting now costs \$0\.21 and pays back in 4 calls; expected ≥ 3 more calls/);
});

test('paysDecision: the 1-hour write price makes the re-write dearer; caching off makes every token input', () => {
  const oneHour = paysDecision(input({ caching: '1h' }));
  assert.ok(Math.abs(oneHour.costUSD - (0.155 + 10_000 * 9.5e-6)) < 1e-9);
  const off = paysDecision(input({ caching: 'off' }));
  // Uncached: the summary reads 150,000 at $5/M; no re-write premium; every call saves 120,000 × $5/M.
  assert.ok(Math.abs(off.costUSD - (0.75 + 0.005 + 0.075)) < 1e-9);
  assert.ok(Math.abs(off.savingPerCallUSD - 0.6) < 1e-9);
  assert.equal(off.paybackCalls, 2);
});

test('paysDecision: the window bounds the horizon when it would force a compaction soon anyway', () => {
  const d = paysDecision(input({ growthPerCall: 8_000, callsSoFar: 300, callsSinceCompaction: 300 })); // (172,000 − 150,000) / 8,000 = 2 calls
  assert.equal(d.horizonBy, 'window');
  assert.equal(d.horizonCalls, 2);
  assert.equal(d.compact, false);
  assert.match(d.reason, /the window forces a compaction in ~2 calls anyway/);
});

test('paysDecision: idles past the TTL bound the horizon; an expired cache makes the compaction pay at once', () => {
  const idle = paysDecision(input({ idleGaps: 40 })); // 120 calls, 40 idles: one every 3 calls
  assert.equal(idle.horizonBy, 'idle');
  assert.equal(idle.horizonCalls, 3);
  assert.equal(idle.compact, false);
  const cold = paysDecision(input({ cacheWarm: false, idleGaps: 40 }));
  // The summary reads the request uncached (150,000 at $5/M), but the next call writes everything either
  // way: compacting saves the removed tokens' write premium, 120,000 × (6.25 − 0.50)/M.
  assert.ok(Math.abs(cold.costUSD - (0.75 + 0.005 + 0.075 - 0.69)) < 1e-9, String(cold.costUSD));
  assert.equal(cold.paybackCalls, 3);
  assert.equal(cold.compact, true);
  // A small summary after an idle: it pays at once.
  const free = paysDecision(input({ cacheWarm: false, tokens: 150_000, tokensAfter: 10_000, summaryOutputTokens: 500, caching: '1h' }));
  assert.ok(free.costUSD < 0, String(free.costUSD));
  assert.equal(free.paybackCalls, 0);
  assert.match(free.reason, /^compacting now saves \$0\.\d+ at once \(the cache expired\)/);
});

test('paysDecision: after a compaction it waits until the payback is at most half the calls since (the order-quantity bound)', () => {
  // 120 calls so far, 6 since the last compaction: the 4-call payback must wait (half of 6 is 3).
  const soon = paysDecision(input({ callsSinceCompaction: 6 }));
  assert.equal(soon.horizonBy, 'interval');
  assert.equal(soon.horizonCalls, 3);
  assert.equal(soon.compact, false);
  assert.match(soon.reason, /^not yet: .* best once it pays back within half the calls since the last compaction \(3\)/);
  const later = paysDecision(input({ callsSinceCompaction: 8 }));
  assert.equal(later.horizonCalls, 4);
  assert.equal(later.compact, true);
});

test('paysDecision: nothing removed, no decision to compact', () => {
  const d = paysDecision(input({ tokensAfter: 150_000 }));
  assert.equal(d.paybackCalls, null);
  assert.equal(d.compact, false);
});

test('forcedAtTokens: the answer reserve plus a margin of 10% of the window, at most 20,000 — any window alike', () => {
  assert.equal(forcedAtTokens(200_000, 8_192), 171_808);
  assert.equal(forcedAtTokens(1_000_000, 8_192), 971_808);
  assert.equal(forcedAtTokens(30_000, 1_024), 25_976);
});

test('CallStats: calls, calls since a compaction, growth per call since it, idle gaps per TTL', () => {
  const s = new CallStats();
  assert.equal(s.callsSinceCompaction, Infinity);
  s.noteCall(0, 10_000);
  s.noteCall(30_000, 12_000);
  s.noteCall(30_000 + 10 * MIN, 14_000); // a 10-minute gap: idle for 5m, not for 1h
  assert.equal(s.calls, 3);
  assert.equal(s.growthPerCall, 2_000);
  assert.equal(s.idleGaps('5m'), 1);
  assert.equal(s.idleGaps('1h'), 0);
  assert.equal(s.cacheWarm(30_000 + 12 * MIN, '5m'), true);
  assert.equal(s.cacheWarm(30_000 + 16 * MIN, '5m'), false);
  s.noteCompaction();
  assert.equal(s.callsSinceCompaction, 0);
  assert.equal(s.cacheWarm(30_000 + 11 * MIN, '1h'), false, 'a rewrite: nothing of the last request is reusable');
  s.noteCall(31 * MIN, 5_000);
  assert.equal(s.callsSinceCompaction, 1);
  assert.equal(s.growthPerCall, 0, 'growth restarts after the compaction');
});

test('prompt caching "auto": 1 hour for gaps between 5 minutes and an hour, 5 minutes for short gaps', () => {
  const slow = new CallStats();
  for (let k = 0; k < 10; k++) slow.noteCall(k * 20 * MIN, 50_000 + k * 2_000);
  const s = slow.chooseTtl(OPUS);
  assert.equal(s.ttl, '1h');
  assert.ok(s.costUSD['1h'] < s.costUSD['5m']);
  assert.match(s.reason, /^1 hour: .* \(9 of 9 gaps over 5 minutes, 0 over an hour\)$/);

  const fast = new CallStats();
  for (let k = 0; k < 10; k++) fast.noteCall(k * 30_000, 50_000 + k * 2_000);
  assert.equal(fast.chooseTtl(OPUS).ttl, '5m');

  // Gaps over an hour: both expire, the cheaper write wins.
  const idle = new CallStats();
  for (let k = 0; k < 5; k++) idle.noteCall(k * 90 * MIN, 50_000);
  assert.equal(idle.chooseTtl(OPUS).ttl, '5m');

  assert.equal(new CallStats().chooseTtl(OPUS).ttl, '5m', 'no gap yet');
});
