// The cost types a plan carries (cacheCost.ts and microBatch.ts compute them; plan.ts and the
// pipeline only name them). Kept apart so plan.ts imports no module that imports it back.
import type { CacheTtl } from './cost';
import type { PriceSource } from './prices';

/** What the last model call left in the prompt cache (the agent fills it from the call's usage). */
export interface CacheState {
  /** Tokens of the request prefix served from or written to the cache: cache read + cache write. */
  cachedPrefixTokens: number;
  model?: string;
  ttl?: CacheTtl;
}

export interface PlanCost {
  /** Tokens of the cached prefix the plan's first change invalidates. */
  invalidatedCachedTokens: number;
  /** The next request's input cost, USD, without and with the plan (output excluded: the same either way). */
  nextRequestUSD: { before: number; after: number };
  /** Turns until the per-turn saving pays for the extra cost of the next request: 0 immediate, null never. */
  paybackTurns: number | null;
  /** The cached prefix the figures assume (overhead included), and whether it was assumed (no cache state known). */
  cachedPrefixTokens: number;
  cacheAssumed: boolean;
  /** The model priced (null: unknown, the default price). */
  model: string | null;
  /** Where the price came from: the table's row for the model, a family fallback (or the default), the user's override. */
  priceSource: PriceSource;
}

export interface MicroCompactDecision {
  action: 'cleared' | 'held' | 'none';
  reason: string;
  /** Old results from eligible tools not cleared yet. */
  candidates: number;
  /** Their tokens. */
  clearableTokens: number;
  /** Tokens the batch removes from the request (results minus their placeholders). */
  savedTokens: number;
  triggerTokens: number;
  clearAtLeast: number;
  cacheAware: boolean;
  horizonTurns: number;
  /** The cache weighing (cacheAware with a known cache state), else null. */
  cache: {
    cachedPrefixTokens: number;
    /** Cached tokens after the batch's first changed message: re-written by the next request. */
    invalidatedCachedTokens: number;
    /** Extra cost of the next request if the batch is cleared (negative: cheaper at once). */
    costNowUSD: number;
    /** What every later request saves (the saved tokens, read from the cache). */
    savingPerTurnUSD: number;
    /** 0: at once; null: never. */
    paybackTurns: number | null;
  } | null;
}
