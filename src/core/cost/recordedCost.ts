// A recorded call priced as it was billed: its cache writes by their recorded TTL split (Claude Code
// records `cache_creation.ephemeral_1h_input_tokens`), the model's price from the table (or the
// user's override), the long-context premium of the day when the call's time is known.
import type { RecordedUsage } from '../conversation/conversation';
import { callCostUSD, type PriceOverrides } from './cost';
import { priceLookup, type PriceSource } from './prices';

export interface RecordedCallCost {
  costUSD: number;
  priceSource: PriceSource;
}

/**
 * One recorded call's cost. Writes without a recorded split are priced at 5 minutes (the API's
 * default TTL); `at` (epoch ms, the call's time) applies a long-context premium that has since ended.
 */
export function recordedCallCostUSD(usage: RecordedUsage, overrides: PriceOverrides = {}, at?: number): RecordedCallCost {
  const lookup = priceLookup(usage.model, overrides);
  const tokens = {
    inputTokens: usage.inputTokens,
    cacheReadTokens: usage.cacheReadTokens,
    cacheWriteTokens: usage.cacheCreationTokens,
    outputTokens: usage.outputTokens,
    ...(usage.cacheWrite1hTokens !== undefined ? { cacheWrite1hTokens: usage.cacheWrite1hTokens } : {}),
  };
  return { costUSD: callCostUSD(tokens, lookup.price, '5m', at), priceSource: lookup.source };
}
