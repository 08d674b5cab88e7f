// What the replay bills: each call's tokens priced at the configuration's TTL and added to its result,
// the provider's cache misses applied to a modelled cache read, and a compaction's summary call priced
// the way the agents send it (the conversation's cached prefix with the instruction appended).
import { callCostUSD, type CacheOutcome, type CacheSegment, type CacheTtl, type CallTokens, type PrefixCache } from '../cost/cost';

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
  add(t: CallTokens, at?: number): number {
    const r = this.result;
    r.inputTokens += t.inputTokens;
    r.cacheReadTokens += t.cacheReadTokens;
    r.cacheWriteTokens += t.cacheWriteTokens;
    r.outputTokens += t.outputTokens;
    const cost = callCostUSD(t, this.price, this.ttl, at);
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

/**
 * The tokens of a summary call. When the conversation as last sent, the instruction and the summary's
 * answer fit the window, the call is that request with the instruction appended as the last user turn
 * (it reads the conversation's cached prefix); otherwise the summarizer's standalone, trimmed prompt,
 * uncached. `factor` scales the summarizer's local counts to the model's tokens.
 */
export function summaryCallTokens(o: {
  call: SummaryCall;
  before: SegmentedRequest;
  instructionTokens: number;
  maxSummaryTokens: number;
  window: number;
  factor: number;
  caching: PromptCaching;
  cache: PrefixCache;
  now: number;
  ratio: number;
  index: number;
}): { tokens: CallTokens; cachedPrefix: boolean } {
  const output = Math.round(o.call.outputTokens * o.factor);
  const fits = o.before.tokens + o.instructionTokens + o.maxSummaryTokens <= o.window;
  if (!fits) {
    const input = Math.round(o.call.inputTokens * o.factor);
    return { tokens: { inputTokens: input, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: output }, cachedPrefix: false };
  }
  if (o.caching === 'off') {
    return {
      tokens: { inputTokens: o.before.tokens + o.instructionTokens, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: output },
      cachedPrefix: true,
    };
  }
  const segments = [...o.before.segments, { key: `summary-instruction:${o.index}`, tokens: o.instructionTokens }];
  const out = served(o.cache.call(segments, [0, segments.length - 1], o.now, o.caching), o.ratio);
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
    summaryCostUSD: 0,
    priceSource,
    costErrorVsRecorded: null,
    summaryCalls: 0,
    stoppedAt: null,
    notes: [],
    points: [],
  };
}
