// What a model call costs, and what a prompt cache would serve of it.
//
// Prices are USD per million tokens, from the providers' public price lists (Anthropic: cache reads
// 0.1x the input price, 5-minute cache writes 1.25x, 1-hour writes 2x; OpenAI caches automatically:
// no write premium, reads 0.1x for GPT-5). `priceFor` matches a model id against the table in order;
// callers may override any row by model id prefix. Context windows and the minimum cacheable prefix
// per model live here too, so the agent, the replay and the inspector agree on them.
//
// PrefixCache models the API's prompt cache the way the documentation describes it: a request is a
// sequence of segments (the system prompt + tools, then each message); a breakpoint (cache_control)
// on a segment caches the exact prefix that ends there, if that prefix reaches the model's minimum
// cacheable length; a later request reads the longest cached prefix found at one of its breakpoints
// or up to LOOKBACK_SEGMENTS segments before one; an entry lives for its TTL after its last use.

export interface ModelPrice {
  /** USD per million uncached input tokens. */
  input: number;
  output: number;
  cacheWrite5m: number;
  cacheWrite1h: number;
  cacheRead: number;
}

export type CacheTtl = '5m' | '1h';

function anthropic(input: number, output: number): ModelPrice {
  return { input, output, cacheWrite5m: input * 1.25, cacheWrite1h: input * 2, cacheRead: input / 10 };
}

function openai(input: number, output: number, cacheRead: number): ModelPrice {
  return { input, output, cacheWrite5m: input, cacheWrite1h: input, cacheRead };
}

/** First match wins: specific ids before families. */
export const MODEL_PRICES: ReadonlyArray<readonly [RegExp, ModelPrice]> = [
  [/^claude-opus-4-(5|6)/, anthropic(5, 25)],
  [/^claude-opus-4/, anthropic(15, 75)],
  [/^claude-3-opus/, anthropic(15, 75)],
  [/^claude-(sonnet-4|3-7-sonnet|3-5-sonnet)/, anthropic(3, 15)],
  [/^claude-haiku-4/, anthropic(1, 5)],
  [/^claude-3-5-haiku/, anthropic(0.8, 4)],
  [/^claude-3-haiku/, anthropic(0.25, 1.25)],
  [/^claude-/, anthropic(3, 15)],
  [/^gpt-5(\.\d+)?-codex-mini/, openai(0.25, 2, 0.025)],
  [/^gpt-5(\.\d+)?-mini/, openai(0.25, 2, 0.025)],
  [/^gpt-5/, openai(1.25, 10, 0.125)],
  [/^(o3|o4-mini|codex-mini)/, openai(1.1, 4.4, 0.275)],
];

/** The price used for a model the table does not know (and for no model): Claude Sonnet's. */
export const DEFAULT_PRICE: ModelPrice = anthropic(3, 15);

/** Per-model price overrides: the key is a model id prefix, the longest matching prefix wins. */
export type PriceOverrides = Readonly<Record<string, Partial<ModelPrice>>>;

export function priceFor(model: string | undefined, overrides: PriceOverrides = {}): ModelPrice {
  const base = (model !== undefined ? MODEL_PRICES.find(([re]) => re.test(model))?.[1] : undefined) ?? DEFAULT_PRICE;
  const key = Object.keys(overrides)
    .filter((prefix) => model !== undefined && model.startsWith(prefix))
    .sort((a, b) => b.length - a.length)[0];
  return key === undefined ? base : { ...base, ...overrides[key] };
}

/** Token counts of one call, as the API reports them (input excludes cache reads and writes). */
export interface CallTokens {
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
}

export function callCostUSD(t: CallTokens, price: ModelPrice, ttl: CacheTtl = '5m'): number {
  const write = ttl === '1h' ? price.cacheWrite1h : price.cacheWrite5m;
  return (
    (t.inputTokens * price.input + t.cacheReadTokens * price.cacheRead + t.cacheWriteTokens * write + t.outputTokens * price.output) / 1e6
  );
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
 * Context windows of model ids (Claude's 1M window is an opt-in beta: 200K here). Codex records its
 * window in the session; these are the fallbacks.
 */
export const MODEL_WINDOWS: ReadonlyArray<readonly [RegExp, number]> = [
  // Every Claude model of BUILTIN_MODELS (models.ts) and those the models endpoint lists.
  [/^claude-(opus|sonnet|haiku)-4/, 200_000],
  [/^claude-3-(7|5)-/, 200_000],
  [/^claude-/, 200_000],
  [/^gpt-5/, 400_000],
  [/^(o3|o4-mini|codex-mini)/, 200_000],
];

export function contextWindowFor(model: string | undefined): number | undefined {
  return model !== undefined ? MODEL_WINDOWS.find(([re]) => re.test(model))?.[1] : undefined;
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

const TTL_MS: Record<CacheTtl, number> = { '5m': 5 * 60_000, '1h': 60 * 60_000 };

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
      if (b <= hit || cumulative[b] < this.minTokens) continue;
      const ms = TTL_MS[ttlOf.get(b) ?? '5m'];
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
