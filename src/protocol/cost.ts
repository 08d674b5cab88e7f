// Cost figures the inspector shows with a preview (mirrors of the engine's PlanCost and
// MicroCompactDecision, plain data for the webview). Re-exported by protocol.ts.

/** What the previewed plan costs with the prompt cache. */
export interface PlanCostView {
  /** Tokens of the cached prefix the plan's first change invalidates. */
  invalidatedCachedTokens: number;
  /** The next request's input cost (USD) without and with the plan. */
  nextRequestUSD: { before: number; after: number };
  /** Turns until the smaller requests pay back the extra cost: 0 at once, null never. */
  paybackTurns: number | null;
  /** The cached prefix priced (overhead included); `cacheAssumed`: no cache state was known (the previous request assumed cached whole). */
  cachedPrefixTokens: number;
  cacheAssumed: boolean;
  /** The model priced (null: unknown, the default price). */
  model: string | null;
}

/** Micro-compaction's batch decision: cleared or held, and why, with its numbers. */
export interface MicroDecisionView {
  action: 'cleared' | 'held' | 'none';
  reason: string;
  candidates: number;
  clearableTokens: number;
  savedTokens: number;
  triggerTokens: number;
  clearAtLeast: number;
  cacheAware: boolean;
  horizonTurns: number;
  /** The cache weighing (cache-aware with a known cache state), else null. */
  cache: {
    cachedPrefixTokens: number;
    invalidatedCachedTokens: number;
    costNowUSD: number;
    savingPerTurnUSD: number;
    paybackTurns: number | null;
  } | null;
}
