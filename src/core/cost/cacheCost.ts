// What a rewrite of the history costs with the prompt cache: the cached prefix it invalidates, the
// next request before and after (priced with cost.ts), and the turns until the smaller request pays
// the re-write back. Used by every preview (`plan.cost`) and by cache-aware micro-compaction.
//
// A request is the overhead (system prompt + tools) followed by the messages. The agent puts a
// moving breakpoint at the end of the history, so the part after the cached prefix is written to the
// cache (1.25x input for 5 minutes, 2x for an hour; plain input below the model's minimum cacheable
// length) and the cached part is read (0.1x). A rewrite keeps the cache only up to its first changed
// message; later requests read its smaller prefix every turn, which is what pays the re-write back.
import { cacheWritePrice, minCacheableTokens, type CacheTtl, type ModelPrice, type PriceOverrides } from './cost';
import { priceLookup, type PriceSource } from './prices';
import type { Message } from '../conversation/conversation';
import type { PlanContext } from '../pipeline/plan';
import { countRun } from '../pipeline/planPrep';
import type { PlanCost } from './cacheTypes';

export type { CacheState, PlanCost } from './cacheTypes';

export interface RewriteTokens {
  /** The request before the rewrite, overhead included. */
  before: number;
  /** The request after the rewrite, overhead included. */
  after: number;
  /** Tokens the two requests share from the start (overhead + the messages before the first change). */
  commonPrefix: number;
}

export interface ResolvedCache {
  cachedPrefixTokens: number;
  assumed: boolean;
  model: string | undefined;
  ttl: CacheTtl;
  price: ModelPrice;
  priceSource: PriceSource;
}

/** Price one rewrite of the request with the cache state `cache`. Pure arithmetic. */
export function rewriteCost(t: RewriteTokens, cache: ResolvedCache): PlanCost & { savingPerTurnUSD: number } {
  const { price } = cache;
  const write = cacheWritePrice(price, cache.ttl);
  const minimum = minCacheableTokens(cache.model);
  const cached = Math.max(0, Math.min(cache.cachedPrefixTokens, t.before));
  const cachedAfter = Math.min(cached, t.commonPrefix);
  // The uncached rest is written by the moving breakpoint, if the request is long enough to be cached at all.
  const requestUSD = (total: number, read: number) =>
    (read * price.cacheRead + (total - read) * (total >= minimum ? write : price.input)) / 1e6;
  const before = requestUSD(t.before, cached);
  const after = requestUSD(t.after, Math.min(cachedAfter, t.after));
  const savingPerTurnUSD = (Math.max(0, t.before - t.after) * price.cacheRead) / 1e6;
  const extra = after - before;
  const paybackTurns = extra <= 1e-12 ? 0 : savingPerTurnUSD > 0 ? Math.ceil(extra / savingPerTurnUSD - 1e-9) : null;
  return {
    invalidatedCachedTokens: cached - cachedAfter,
    nextRequestUSD: { before, after },
    paybackTurns,
    cachedPrefixTokens: cached,
    cacheAssumed: cache.assumed,
    model: cache.model ?? null,
    priceSource: cache.priceSource,
    savingPerTurnUSD,
  };
}

/**
 * The cache state to price with: the context's (the last call's usage), else assumed: the previous
 * request's whole prefix (overhead + the messages before the last assistant message), if it reaches
 * the model's minimum cacheable length.
 */
export function resolveCache(messages: readonly Message[], ctx: PlanContext, overrides?: PriceOverrides): ResolvedCache {
  const model = ctx.cache?.model ?? ctx.model;
  const { price, source: priceSource } = priceLookup(model, overrides);
  if (ctx.cache) {
    return { cachedPrefixTokens: ctx.cache.cachedPrefixTokens, assumed: false, model, ttl: ctx.cache.ttl ?? '5m', price, priceSource };
  }
  let last = messages.length - 1;
  while (last >= 0 && messages[last].role !== 'assistant') last--;
  let prefix = last < 0 ? 0 : (ctx.overheadTokens ?? 0);
  if (last > 0) prefix += countRun(ctx.tokens, messages, 0, last);
  return { cachedPrefixTokens: prefix >= minCacheableTokens(model) ? prefix : 0, assumed: true, model, ttl: '5m', price, priceSource };
}

/** Tokens `before` and `after` share from the start: overhead + the messages before the first one that differs (by identity). */
export function commonPrefixTokens(before: readonly Message[], after: readonly Message[], ctx: PlanContext): number {
  const n = Math.min(before.length, after.length);
  let same = 0;
  while (same < n && before[same] === after[same]) same++;
  return (ctx.overheadTokens ?? 0) + countRun(ctx.tokens, before, 0, same);
}

/** The cost of going from `before` to `after` (token totals given: a summary slot counts as its estimate). */
export function planCostFor(
  before: readonly Message[],
  after: readonly Message[],
  totals: { tokensBefore: number; tokensAfter: number },
  ctx: PlanContext,
): PlanCost {
  const overhead = ctx.overheadTokens ?? 0;
  const cost = rewriteCost(
    { before: overhead + totals.tokensBefore, after: overhead + totals.tokensAfter, commonPrefix: commonPrefixTokens(before, after, ctx) },
    resolveCache(before, ctx),
  );
  return withoutSaving(cost);
}

/**
 * A plan's cost measured on the request view: `view` is what the model sees of `messages` (the plan's
 * input, same length), `totals` the plan's tokens before and after counted on the view.
 */
export function planCostOnView(
  output: readonly Message[],
  messages: readonly Message[],
  view: readonly Message[],
  totals: { tokensBefore: number; tokensAfter: number },
  ctx: PlanContext,
): PlanCost {
  const overhead = ctx.overheadTokens ?? 0;
  let common = overhead;
  for (let i = 0; i < Math.min(output.length, messages.length, view.length) && output[i] === messages[i]; i++)
    common += ctx.tokens.countMessage(view[i]);
  const t = { before: overhead + totals.tokensBefore, after: overhead + totals.tokensAfter, commonPrefix: common };
  return withoutSaving(rewriteCost(t, resolveCache(view, ctx)));
}

export function withoutSaving(c: PlanCost): PlanCost {
  return {
    invalidatedCachedTokens: c.invalidatedCachedTokens,
    nextRequestUSD: c.nextRequestUSD,
    paybackTurns: c.paybackTurns,
    cachedPrefixTokens: c.cachedPrefixTokens,
    cacheAssumed: c.cacheAssumed,
    model: c.model,
    priceSource: c.priceSource,
  };
}

/** One line for a plan's notes. */
export function costNote(c: PlanCost): string {
  const usd = (n: number) => `$${n.toFixed(4)}`;
  const assumed = c.cacheAssumed ? ' (assumed: the previous request cached whole)' : '';
  const payback =
    c.paybackTurns === null ? 'never pays back' : c.paybackTurns === 0 ? 'cheaper at once' : `pays back in ${c.paybackTurns} turns`;
  return (
    `cache: invalidates ${c.invalidatedCachedTokens} of ${c.cachedPrefixTokens} cached tokens${assumed}; ` +
    `next request ${usd(c.nextRequestUSD.before)} -> ${usd(c.nextRequestUSD.after)}; ${payback}`
  );
}
