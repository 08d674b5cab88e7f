// What a model call costs, and what a prompt cache would serve of it.
//
// Prices are USD per million tokens, from the providers' public price lists (Anthropic: cache reads
// 0.1x the input price, 5-minute cache writes 1.25x, 1-hour writes 2x; OpenAI caches automatically:
// no write premium, reads 0.1x for GPT-5). The table and its lookup are in prices.ts (`priceFor`,
// `priceLookup`: a model id against the table in order; callers may override any row by model id prefix). Context windows and the minimum cacheable prefix
// per model live here too, so the agent, the replay and the inspector agree on them.
//
// PrefixCache models the API's prompt cache the way the documentation describes it: a request is a
// sequence of segments (the system prompt + tools, then each message); a breakpoint (cache_control)
// on a segment caches the exact prefix that ends there, if that prefix reaches the model's minimum
// cacheable length; a later request reads the longest cached prefix found at one of its breakpoints
// or up to LOOKBACK_SEGMENTS segments before one; an entry lives for its TTL after its last use.
import type { ModelPrice, TieredPrice } from './prices';

export type CacheTtl = '5m' | '1h';

/** How long a cache entry lives after its last write or read, by TTL. */
export const CACHE_TTL_MS: Readonly<Record<CacheTtl, number>> = { '5m': 5 * 60_000, '1h': 60 * 60_000 };

/** The price per million tokens of a cache write with `ttl` (5-minute 1.25x the input price, 1-hour 2x). */
export function cacheWritePrice(price: ModelPrice, ttl: CacheTtl): number {
  return ttl === '1h' ? price.cacheWrite1h : price.cacheWrite5m;
}

export { DEFAULT_PRICE, MODEL_PRICES, priceFor, type ModelPrice, type PriceOverrides, type TieredPrice } from './prices';

/** Token counts of one call, as the API reports them (input excludes cache reads and writes). */
export interface CallTokens {
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
  /** The part of cacheWriteTokens written with a 1-hour TTL, when known (the rest has the call's ttl). */
  cacheWrite1hTokens?: number;
}

/** The rates a call is billed at: the long-context ones when its whole input is over their threshold. */
export function ratesFor(t: Omit<CallTokens, 'outputTokens'>, price: ModelPrice, at?: number): ModelPrice {
  const long = (price as TieredPrice).longContext;
  const input = t.inputTokens + t.cacheReadTokens + t.cacheWriteTokens;
  if (!long || input <= long.aboveTokens) return price;
  if (long.until !== undefined && (at === undefined || at >= long.until)) return price;
  return long;
}

/**
 * What one call costs, USD. Cache writes: the 1-hour part (`cacheWrite1hTokens`) at the 1-hour rate, the
 * rest at `ttl`'s. `at` (epoch ms), when known, picks a long-context premium that has since ended.
 */
export function callCostUSD(t: CallTokens, price: ModelPrice, ttl: CacheTtl = '5m', at?: number): number {
  const r = ratesFor(t, price, at);
  const oneHour = Math.min(t.cacheWriteTokens, Math.max(0, t.cacheWrite1hTokens ?? 0));
  const rest = t.cacheWriteTokens - oneHour;
  const write = (ttl === '1h' ? r.cacheWrite1h : r.cacheWrite5m) * rest + r.cacheWrite1h * oneHour;
  return (t.inputTokens * r.input + t.cacheReadTokens * r.cacheRead + write + t.outputTokens * r.output) / 1e6;
}

/** The minimum prefix a cache breakpoint caches, per model (shorter prefixes are not cached, silently). */
export const MIN_CACHEABLE_TOKENS: ReadonlyArray<readonly [RegExp, number]> = [
  [/^claude-(opus-4-(5|6)|haiku-4)/, 4096],
  [/^claude-sonnet-4-6/, 2048],
  [/^claude-3(-5)?-haiku/, 2048],
  [/^claude-/, 1024],
  [/^(gpt-|o\d|codex)/, 1024],
];

export function minCacheableTokens(model: string | undefined): number {
  return (model !== undefined ? MIN_CACHEABLE_TOKENS.find(([re]) => re.test(model))?.[1] : undefined) ?? 1024;
}

/** At most this many cache_control breakpoints per request (the API rejects more). */
export const MAX_CACHE_BREAKPOINTS = 4;

/** How far before a breakpoint the API looks for an earlier cached prefix, in content blocks. */
export const LOOKBACK_SEGMENTS = 20;

/**
 * Context windows of model ids: the standard window each model has without opting in to more. Codex
 * records its window in the session; these are the fallbacks (importers/window.ts weighs the evidence).
 */
export const MODEL_WINDOWS: ReadonlyArray<readonly [RegExp, number]> = [
  // Every Claude model of BUILTIN_MODELS (models.ts) and those the models endpoint lists.
  [/^claude-(opus|sonnet|haiku)-4/, 200_000],
  [/^claude-3-(7|5)-/, 200_000],
  [/^claude-/, 200_000],
  [/^gpt-5/, 400_000],
  [/^(o3|o4-mini|codex-mini)/, 200_000],
];

/**
 * The larger window a model offers on request: Claude's 1M tier (Claude Code names it with a `[1m]`
 * suffix, `/model opus[1m]`; the API with the context-1m beta header, generally available for Opus 4.6
 * and Sonnet 4.6 since 2026-03-13). Haiku and Opus 4.5 and earlier have none.
 */
export const LARGE_WINDOWS: ReadonlyArray<readonly [RegExp, number]> = [
  [/^claude-(opus-4-6|sonnet-4-6|sonnet-4-5|sonnet-4(-0)?(-\d{8})?$)/, 1_000_000],
];

export function contextWindowFor(model: string | undefined): number | undefined {
  if (model === undefined) return undefined;
  if (/\[1m\]$/i.test(model)) return 1_000_000;
  return MODEL_WINDOWS.find(([re]) => re.test(model))?.[1];
}

/** The larger window `model` offers (the 1M tier), if any. */
export function largeWindowFor(model: string | undefined): number | undefined {
  return model !== undefined ? LARGE_WINDOWS.find(([re]) => re.test(model.replace(/\[1m\]$/i, '')))?.[1] : undefined;
}

/** One unit of a request, in order: `key` identifies its exact content (equal keys = equal bytes). */
export interface CacheSegment {
  key: string;
  tokens: number;
}

export interface CacheOutcome extends Omit<CallTokens, 'outputTokens'> {
  /** Segments served from the cache (the cached prefix ends before segment index `cachedSegments`). */
  cachedSegments: number;
}

interface CacheEntry {
  expiresAt: number;
  ttlMs: number;
}

/**
 * The prompt cache of one API key, as far as one conversation sees it. Deterministic: time is given
 * by the caller (a replay uses the recorded timestamps, or none: then nothing expires).
 */
export class PrefixCache {
  private readonly entries = new Map<string, CacheEntry>();

  constructor(private readonly minTokens: number) {}

  /**
   * One request: `breakpoints` are indices of the segments that carry cache_control (at most
   * MAX_CACHE_BREAKPOINTS are honoured, the first ones). `ttl` is the TTL of every breakpoint, or one
   * per breakpoint (parallel to `breakpoints`). Returns what the API would bill and updates the
   * cache (reads refresh, writes add entries).
   */
  call(
    segments: readonly CacheSegment[],
    breakpoints: readonly number[],
    now = 0,
    ttl: CacheTtl | readonly CacheTtl[] = '5m',
  ): CacheOutcome {
    const prefixKeys = prefixHashes(segments);
    const cumulative: number[] = [];
    let sum = 0;
    for (const s of segments) cumulative.push((sum += s.tokens));
    const total = sum;
    const ttlOf = new Map<number, CacheTtl>();
    breakpoints.forEach((b, i) => {
      const t = typeof ttl === 'string' ? ttl : (ttl[i] ?? '5m');
      // The same segment marked twice: the longer TTL wins.
      if (ttlOf.get(b) !== '1h') ttlOf.set(b, t);
    });
    const marks = [...new Set(breakpoints.filter((b) => b >= 0 && b < segments.length))]
      .sort((a, b) => a - b)
      .slice(0, MAX_CACHE_BREAKPOINTS);
    // The longest cached prefix reachable from a breakpoint (at it or within the lookback).
    let hit = -1;
    for (const b of marks) {
      for (let i = b; i >= Math.max(0, b - LOOKBACK_SEGMENTS); i--) {
        if (i <= hit) break;
        const e = this.entries.get(prefixKeys[i]);
        if (e && e.expiresAt >= now) {
          hit = i;
          break;
        }
      }
    }
    if (hit >= 0) {
      const e = this.entries.get(prefixKeys[hit])!;
      e.expiresAt = now + e.ttlMs;
    }
    const read = hit >= 0 ? cumulative[hit] : 0;
    let written = read;
    for (const b of marks) {
      // A breakpoint inside the prefix read is used too: its entry is refreshed (a request's system
      // breakpoint stays warm while longer prefixes are read past it).
      const inside = b <= hit ? this.entries.get(prefixKeys[b]) : undefined;
      if (inside && inside.expiresAt >= now) inside.expiresAt = now + inside.ttlMs;
      if (b <= hit || cumulative[b] < this.minTokens) continue;
      const ms = CACHE_TTL_MS[ttlOf.get(b) ?? '5m'];
      this.entries.set(prefixKeys[b], { expiresAt: now + ms, ttlMs: ms });
      written = Math.max(written, cumulative[b]);
    }
    return { cacheReadTokens: read, cacheWriteTokens: written - read, inputTokens: total - written, cachedSegments: hit + 1 };
  }

  /** Drop every entry (a new API key, or a test). */
  clear(): void {
    this.entries.clear();
  }
}

/** A rolling FNV-1a hash of each prefix: prefixHashes(s)[i] names segments 0..i exactly. */
export function prefixHashes(segments: readonly CacheSegment[]): string[] {
  const out: string[] = [];
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  for (const s of segments) {
    const text = `${s.key}\u0000`;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 0x01000193) >>> 0;
      h2 = Math.imul(h2 ^ c, 0x5bd1e995) >>> 0;
    }
    out.push(`${h1.toString(16)}:${h2.toString(16)}:${out.length}`);
  }
  return out;
}
