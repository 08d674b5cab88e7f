// "Compact when it pays" (issue 25): the auto-compaction decision from the session's own numbers. Pure.
//
// Compacting now costs the summary call (the current request read from the cache when it is still
// cached, else sent uncached, plus the summary written out) and the re-write of the compacted prefix at
// the cache-write price of the TTL in use (the tail is written instead of read on the next call; the
// system prompt and tools stay cached). Every later call then reads (tokens removed) fewer tokens from
// the cache. The payback is the number of calls that recovers the cost. It is compared with the calls
// the compaction can still earn on: the fewest of
//  - the calls expected before the session ends: with n calls so far and nothing else known, the
//    remaining calls exceed n/3 with 75% probability (Gott's delta-t argument: the present is a random
//    point of the session's life) — the margin: a compaction is made only when it pays back within that
//    75% lower bound, not the median (n);
//  - the calls until the window would force a compaction anyway at the growth per call seen since the
//    last compaction (compacting now only buys those calls);
//  - the calls until the session idles past the cache TTL, from the idle gaps seen so far (an idle
//    expires the cache: a compaction then re-writes nothing it would not have re-written anyway).
// And one more bound, from the economic order quantity: each compaction has a fixed cost K and the tokens
// it can remove grow with the calls since the last one (g per call), so compacting every τ calls costs
// K/τ + g·r·τ/2 per call, least at τ* = √(2K / g·r) — where the payback K / (g·τ·r) is τ/2. So a
// compaction waits until its payback is at most half the calls its removable content took to gather
// (since the last compaction, or the session's start): earlier, waiting removes more for the same cost.
// When the cache has already expired (an idle just ended), the re-write is free and the first call even
// saves the removed tokens' cache write: such a compaction pays at once.
import { cacheWritePrice, type CacheTtl } from '../cost/cost';
import type { ModelPrice } from '../cost/prices';

export type AutoCompactPolicy = 'threshold' | 'pays';
export const AUTO_COMPACT_POLICIES: readonly AutoCompactPolicy[] = ['threshold', 'pays'];

/** The fraction of the calls so far that the remaining calls exceed with 75% probability (Gott: n/3). */
export const EXPECTED_CALLS_FRACTION = 1 / 3;

export interface PaysInput {
  /** The request now, in the model's tokens (system prompt and tools included). */
  tokens: number;
  /** The request right after the compaction (summary estimate included). */
  tokensAfter: number;
  /** The system prompt and tools: stay cached across a compaction. */
  overheadTokens: number;
  /** The summary the call writes (0 for a strategy that does not summarize). */
  summaryOutputTokens: number;
  /** The summarize instruction appended to the request (uncached input). */
  instructionTokens: number;
  /** The last call's prefix is still in the cache (sent within the TTL, no rewrite since). */
  cacheWarm: boolean;
  /** The TTL in use, or 'off' (no prompt caching: every token is input). */
  caching: CacheTtl | 'off';
  price: ModelPrice;
  /** Model calls so far in the session. */
  callsSoFar: number;
  /** Model calls since the last compaction (the session's calls when there was none). */
  callsSinceCompaction: number;
  /** Gaps between consecutive calls longer than the TTL so far. */
  idleGaps: number;
  /** Mean request growth per call since the last compaction (tokens; 0 when unknown). */
  growthPerCall: number;
  /** The request size at which the window forces a compaction. */
  forcedAtTokens: number;
}

export interface PaysDecision {
  compact: boolean;
  /** The extra cost of compacting now: the summary call and the re-written prefix, USD (may be negative when the cache expired). */
  costUSD: number;
  /** What every later call saves, USD (the removed tokens at the cache-read price). */
  savingPerCallUSD: number;
  /** Calls that recover the cost: 0 at once, null never (nothing removed). */
  paybackCalls: number | null;
  /** The 75% lower bound on the calls still to come (callsSoFar / 3). */
  expectedCalls: number;
  /** The calls the compaction can earn on: expected, until the window forces one, until the next idle. */
  horizonCalls: number;
  /** What bounds the horizon ('interval': half the calls since the last compaction, see above). */
  horizonBy: 'session' | 'window' | 'idle' | 'interval';
  reason: string;
}

/** USD per token of each kind for the caching in use (off: every token at the input price). */
function rates(i: PaysInput): { read: number; write: number; input: number; output: number } {
  const p = i.price;
  if (i.caching === 'off') return { read: p.input / 1e6, write: p.input / 1e6, input: p.input / 1e6, output: p.output / 1e6 };
  const write = cacheWritePrice(p, i.caching);
  return { read: p.cacheRead / 1e6, write: write / 1e6, input: p.input / 1e6, output: p.output / 1e6 };
}

export function paysDecision(i: PaysInput): PaysDecision {
  const r = rates(i);
  const removed = Math.max(0, i.tokens - i.tokensAfter);
  const warm = i.cacheWarm && i.caching !== 'off';
  const summaryRead = warm ? i.tokens * r.read : i.tokens * r.input;
  const summaryCall = summaryRead + i.instructionTokens * r.input + i.summaryOutputTokens * r.output;
  const tail = Math.max(0, i.tokensAfter - i.overheadTokens);
  // Warm: the next call writes the compacted tail instead of reading it. Cold: it writes everything either
  // way, so compacting saves the removed tokens' write on that call (beyond the read every call saves).
  const rewrite = warm ? tail * (r.write - r.read) : -removed * (r.write - r.read);
  const costUSD = summaryCall + rewrite;
  const savingPerCallUSD = removed * r.read;
  const paybackCalls = savingPerCallUSD <= 0 ? null : costUSD <= 0 ? 0 : Math.ceil(costUSD / savingPerCallUSD);
  const expectedCalls = Math.floor(Math.max(0, i.callsSoFar) * EXPECTED_CALLS_FRACTION);
  const untilWindow = i.growthPerCall > 0 ? Math.max(0, Math.floor((i.forcedAtTokens - i.tokens) / i.growthPerCall)) : Infinity;
  const untilIdle = i.idleGaps > 0 ? Math.floor(i.callsSoFar / i.idleGaps) : Infinity;
  let horizonCalls = expectedCalls;
  let horizonBy: PaysDecision['horizonBy'] = 'session';
  if (untilWindow < horizonCalls) [horizonCalls, horizonBy] = [untilWindow, 'window'];
  if (untilIdle < horizonCalls) [horizonCalls, horizonBy] = [untilIdle, 'idle'];
  const interval = Math.floor(Math.min(i.callsSinceCompaction, i.callsSoFar) / 2);
  if (interval < horizonCalls) [horizonCalls, horizonBy] = [interval, 'interval'];
  const compact = paybackCalls !== null && (paybackCalls === 0 || paybackCalls <= horizonCalls);
  return {
    compact,
    costUSD,
    savingPerCallUSD,
    paybackCalls,
    expectedCalls,
    horizonCalls,
    horizonBy,
    reason: paysReason(compact, costUSD, paybackCalls, horizonCalls, horizonBy, i.callsSoFar),
  };
}

function paysReason(
  compact: boolean,
  cost: number,
  payback: number | null,
  horizon: number,
  by: PaysDecision['horizonBy'],
  calls: number,
): string {
  if (payback === null) return 'not yet: compacting now would remove nothing';
  const bound =
    by === 'session'
      ? `expected ≥ ${horizon} more calls (a third of the ${calls} so far)`
      : by === 'window'
        ? `the window forces a compaction in ~${horizon} calls anyway`
        : by === 'idle'
          ? `the session idles past the cache TTL every ~${horizon} calls`
          : `best once it pays back within half the calls since the last compaction (${horizon}): waiting removes more for the same cost`;
  const costText = cost <= 0 ? `saves ${usd(-cost)} at once (the cache expired)` : `costs ${usd(cost)}`;
  if (compact) return `compacting now ${costText} and pays back in ${payback} call${payback === 1 ? '' : 's'}; ${bound}`;
  return `not yet: compacting now ${costText} and pays back in ${payback} calls; ${bound}`;
}

function usd(n: number): string {
  return n >= 0.01 ? `$${n.toFixed(2)}` : `$${n.toFixed(4)}`;
}

/**
 * The request size at which the window forces a compaction: the answer reserve plus a margin (10% of the
 * window, at most 20,000 tokens, as the budget trigger's default headroom for large windows) left free.
 * Any window, 1M included, is handled the same way.
 */
export function forcedAtTokens(contextWindow: number, maxOutputTokens: number): number {
  return Math.max(0, contextWindow - maxOutputTokens - Math.min(20_000, Math.floor(contextWindow * 0.1)));
}
