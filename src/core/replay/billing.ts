// What the replay bills: each call's tokens priced at the configuration's TTL and added to its result,
// the provider's cache misses applied to a modelled cache read, and a compaction's summary call priced
// the way the agents send it (the conversation's cached prefix with the instruction appended).
import {
  CACHE_TTL_MS,
  callCostUSD,
  type CacheOutcome,
  type CacheSegment,
  type CacheTtl,
  type CallTokens,
  type PrefixCache,
} from '../cost/cost';

type Price = Parameters<typeof callCostUSD>[1];
import type { SummaryCall } from './standInSummarizer';
import type { PromptCaching, ReplayConfigResult } from './types';

export class Bill {
  constructor(
    private readonly result: ReplayConfigResult,
    private readonly price: Price,
    readonly ttl: CacheTtl,
  ) {}

  /** Adds one call's tokens to the result; returns its cost. */
  add(t: CallTokens, at?: number, ttl: CacheTtl = this.ttl): number {
    const r = this.result;
    r.inputTokens += t.inputTokens;
    r.cacheReadTokens += t.cacheReadTokens;
    r.cacheWriteTokens += t.cacheWriteTokens;
    r.outputTokens += t.outputTokens;
    const cost = callCostUSD(t, this.price, ttl, at);
    r.costUSD += cost;
    return cost;
  }
}

/**
 * A modelled cache outcome with the provider's observed misses applied: `ratio` of the modelled read is
 * served, the rest is written again (for OpenAI, whose writes cost the input price, that is input).
 */
export function served(out: CacheOutcome, ratio: number): CacheOutcome {
  if (ratio >= 1) return out;
  const read = Math.round(out.cacheReadTokens * ratio);
  return { ...out, cacheReadTokens: read, cacheWriteTokens: out.cacheWriteTokens + (out.cacheReadTokens - read) };
}

/** A request as the cache sees it. */
export interface SegmentedRequest {
  segments: CacheSegment[];
  breakpoints: number[];
  tokens: number;
}

/** The last request a replay sent: its segments and when (the summary call reuses it while it is cached). */
export interface SentRequest {
  request: SegmentedRequest;
  at: number;
}

/** Whether `sent` is a prefix of `now` (same segments, in order): nothing was rewritten since it was sent. */
function extends_(now: SegmentedRequest, sent: SegmentedRequest): boolean {
  if (sent.segments.length > now.segments.length) return false;
  return sent.segments.every((s, i) => s.key === now.segments[i].key && s.tokens === now.segments[i].tokens);
}

/**
 * The tokens of a summary call, sent the way the agents send it (src/core/pipeline/summaryRequest.ts):
 * the last request exactly as sent, with its breakpoints (read from the cache), then the messages since
 * and the instruction (uncached input, no new breakpoint). The summarizer's standalone, trimmed prompt,
 * uncached, instead when that cannot be read: nothing sent yet, a rewrite since, its TTL run out,
 * caching off, or no room in the window. `factor` scales the summarizer's local counts to the model's tokens.
 */
export function summaryCallTokens(o: {
  call: SummaryCall;
  before: SegmentedRequest;
  lastSent: SentRequest | null;
  instructionTokens: number;
  maxSummaryTokens: number;
  window: number;
  factor: number;
  caching: PromptCaching;
  cache: PrefixCache;
  now: number;
  ratio: number;
}): { tokens: CallTokens; cachedPrefix: boolean } {
  const output = Math.round(o.call.outputTokens * o.factor);
  const sent = o.lastSent;
  const reusable =
    o.caching !== 'off' &&
    sent !== null &&
    o.now - sent.at <= CACHE_TTL_MS[o.caching] &&
    extends_(o.before, sent.request) &&
    o.before.tokens + o.instructionTokens + o.maxSummaryTokens <= o.window;
  if (!reusable) {
    const input = Math.round(o.call.inputTokens * o.factor);
    return { tokens: { inputTokens: input, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: output }, cachedPrefix: false };
  }
  const segments = [...o.before.segments, { key: 'summary-instruction', tokens: o.instructionTokens }];
  const out = served(o.cache.call(segments, sent.request.breakpoints, o.now, o.caching as CacheTtl), o.ratio);
  return {
    tokens: {
      inputTokens: out.inputTokens,
      cacheReadTokens: out.cacheReadTokens,
      cacheWriteTokens: out.cacheWriteTokens,
      outputTokens: output,
    },
    cachedPrefix: true,
  };
}

export function emptyResult(name: string, priceSource: ReplayConfigResult['priceSource']): ReplayConfigResult {
  return {
    name,
    calls: 0,
    compactions: 0,
    peakContextTokens: 0,
    inputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: 0,
    costUSD: 0,
    ledgerRecall: null,
    archivedArtifacts: 0,
    pathRecall: 1,
    promptRecall: 1,
    probeRecall: null,
    summaryCostUSD: 0,
    summaryModel: null,
    summaryBound: null,
    priceSource,
    costErrorVsRecorded: null,
    summaryCalls: 0,
    stoppedAt: null,
    notes: [],
    points: [],
  };
}
