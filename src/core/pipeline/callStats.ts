// The session's own numbers, call by call, as the pipeline sees them before each model call: how many
// calls so far and since the last compaction, the gaps between them, the request's growth per call, and
// what the calls so far would have cost with 5-minute and with 1-hour cache writes (prompt caching
// "auto" picks the cheaper). Causal: only calls already made are counted. O(1) per call.
import { CACHE_TTL_MS, cacheWritePrice, type CacheTtl } from '../cost/cost';
import type { ModelPrice } from '../cost/prices';
import { recordedInputTokens, type Message, type RecordedUsage } from '../conversation/conversation';
import { sameUsage } from '../counting/recordedCalls';

/** The `splitpoint.promptCaching` setting: a TTL, none, or 'auto' (chosen from the gaps between calls). */
export type PromptCachingSetting = 'off' | CacheTtl | 'auto';

const TTLS: readonly CacheTtl[] = ['5m', '1h'];

export interface TtlChoice {
  ttl: CacheTtl;
  /** What the calls so far would have cost in cache reads and writes with each TTL, USD. */
  costUSD: Record<CacheTtl, number>;
  reason: string;
}

export class CallStats {
  /** Model calls so far. */
  calls = 0;
  /** Calls since the last compaction (Infinity before the first). */
  callsSinceCompaction = Infinity;
  private lastAt: number | undefined;
  private lastTokens = 0;
  private rewritten = false;
  private segmentFirstTokens = 0;
  private segmentCalls = 0;
  private readonly idle: Record<CacheTtl, number> = { '5m': 0, '1h': 0 };
  /** Per TTL: tokens the calls so far would have read from the cache and written to it. */
  private readonly cached: Record<CacheTtl, { read: number; write: number }> = { '5m': { read: 0, write: 0 }, '1h': { read: 0, write: 0 } };

  /** A model call at `now` with a request of `tokens`. */
  noteCall(now: number, tokens: number): void {
    if (this.lastAt !== undefined) {
      const gap = Math.max(0, now - this.lastAt);
      for (const ttl of TTLS) {
        const c = this.cached[ttl];
        if (gap > CACHE_TTL_MS[ttl]) this.idle[ttl]++;
        if (gap <= CACHE_TTL_MS[ttl] && !this.rewritten && tokens >= this.lastTokens) {
          c.read += this.lastTokens;
          c.write += tokens - this.lastTokens;
        } else c.write += tokens;
      }
    }
    this.calls++;
    this.callsSinceCompaction++;
    if (this.rewritten || this.segmentCalls === 0) {
      this.segmentFirstTokens = tokens;
      this.segmentCalls = 0;
    }
    this.segmentCalls++;
    this.lastTokens = tokens;
    this.lastAt = now;
    this.rewritten = false;
  }

  /**
   * The calls a history records, in order (a resumed or continued session: its statistics go on from its own calls
   * rather than from zero): each assistant message with usage and a time is a call of its recorded input (several
   * messages of one response carry the same usage: one call); a summary means the history was compacted there.
   */
  noteHistory(messages: readonly Message[]): void {
    let previous: RecordedUsage | undefined;
    for (const m of messages) {
      if (m.synthetic === 'summary') this.noteCompaction();
      const usage = m.role === 'assistant' ? m.usage : undefined;
      if (!usage || m.createdAt === undefined || (previous && sameUsage(previous, usage))) continue;
      previous = usage;
      if (recordedInputTokens(usage) > 0) this.noteCall(m.createdAt, recordedInputTokens(usage));
    }
  }

  /** The history was rewritten (a compaction or an undo): the next call re-writes its prefix. */
  noteCompaction(): void {
    this.callsSinceCompaction = 0;
    this.rewritten = true;
    this.segmentCalls = 0;
  }

  /** Gaps between consecutive calls longer than `ttl`. */
  idleGaps(ttl: CacheTtl): number {
    return this.idle[ttl];
  }

  /** Mean request growth per call since the last compaction (0 with fewer than two calls). */
  get growthPerCall(): number {
    return this.segmentCalls < 2 ? 0 : Math.max(0, (this.lastTokens - this.segmentFirstTokens) / (this.segmentCalls - 1));
  }

  /** The last call's prefix is still cached at `now` (within the TTL, no rewrite since). */
  cacheWarm(now: number, ttl: CacheTtl): boolean {
    return this.lastAt !== undefined && !this.rewritten && now - this.lastAt <= CACHE_TTL_MS[ttl];
  }

  /**
   * "auto": the TTL under which the calls so far would have cost less. Every gap is priced both ways:
   * within the TTL the next call reads the previous request from the cache and writes what is new; past
   * it, it writes the whole request again (5-minute writes cost 1.25x the input price, 1-hour writes 2x).
   * Before the second call there is no gap: 5 minutes (the cheaper write).
   */
  chooseTtl(price: ModelPrice): TtlChoice {
    const cost = (ttl: CacheTtl) => {
      const c = this.cached[ttl];
      return (c.read * price.cacheRead + c.write * cacheWritePrice(price, ttl)) / 1e6;
    };
    const costUSD = { '5m': cost('5m'), '1h': cost('1h') };
    if (this.calls < 2) return { ttl: '5m', costUSD, reason: 'no gap between calls yet: 5 minutes (the cheaper write)' };
    const ttl: CacheTtl = costUSD['1h'] < costUSD['5m'] ? '1h' : '5m';
    const gaps = `${this.idle['5m']} of ${this.calls - 1} gaps over 5 minutes, ${this.idle['1h']} over an hour`;
    return {
      ttl,
      costUSD,
      reason:
        `${ttl === '1h' ? '1 hour' : '5 minutes'}: the calls so far would have cost $${costUSD['5m'].toFixed(2)} in cache reads and ` +
        `writes with 5-minute writes, $${costUSD['1h'].toFixed(2)} with 1-hour writes (${gaps})`,
    };
  }
}
