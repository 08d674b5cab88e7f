// The `as-recorded` replay: the recording's own contexts sent as they were, its compactions at their
// recorded points, every request at its recorded size (sizes.ts), cache writes at the recording's TTL,
// and the cache as the recording shows it: warm where a call read from it, cold where it missed. The
// prompt-cache model (PrefixCache) runs beside it on the same requests: its reads against the recorded
// ones are the provider's cache hit ratio (Anthropic's 1-hour cache serves what the model predicts;
// OpenAI's automatic cache misses some), which the counterfactual configurations inherit. Its cost
// against the recorded cost checks the sizes, the TTL pricing and the compaction points.
import type { Message } from '../conversation/conversation';
import { minCacheableTokens, PrefixCache, type CacheTtl, type PriceOverrides } from '../cost/cost';
import { priceLookup } from '../cost/prices';
import type { ImportResult } from '../importers';
import { SUMMARY_SYSTEM_PROMPT } from '../pipeline/summarize';
import { recordedCalls } from '../counting/recordedCalls';
import type { TextTokenizer } from '../counting/tokens';
import { Bill, emptyResult, summaryCallTokens, type SentRequest } from './billing';
import { recordedProbeRecall } from './probeRecall';
import { sessionRecall } from './recall';
import { requestSegments, warmSegments, type RequestPrefix } from './requestCache';
import type { RecordedSizes } from './sizes';
import type { ReplayCallPoint, ReplayConfig, ReplayConfigResult, ReplayOptions } from './types';

export interface AsRecordedInputs {
  contexts: readonly (readonly Message[])[];
  compactions: ImportResult['compactions'];
  sizes: RecordedSizes;
  tokenizer: TextTokenizer;
  window: number;
  model: string | undefined;
  ttl: CacheTtl;
  prices: PriceOverrides;
  /** Output tokens of a summary the recording has no text of (Codex), in the model's tokens. */
  summaryTokens: number;
  artifacts: { paths: ReadonlySet<string>; prompts: ReadonlySet<string> };
  /** The recorded cost (priced as billed): the error is measured against it. */
  recordedCostUSD: number | null;
  yieldEvery?: ReplayOptions['yieldEvery'];
}

export interface AsRecordedRun {
  result: ReplayConfigResult;
  /** Cache reads the model predicts on the recorded requests, and those the provider served (the recorded ones). */
  modelledReads: number;
  servedReads: number;
}

export async function replayAsRecorded(config: Pick<ReplayConfig, 'name'>, inp: AsRecordedInputs): Promise<AsRecordedRun> {
  const { sizes } = inp;
  const cache = new PrefixCache(minCacheableTokens(inp.model));
  const lookup = priceLookup(inp.model, inp.prices);
  const result = emptyResult(config.name, lookup.source);
  const bill = new Bill(result, lookup.price, inp.ttl);
  // A recording that neither read nor wrote a cache ran without prompt caching: every token was input.
  const cached = inp.contexts.some((context) =>
    recordedCalls([context]).some((c) => c.usage.cacheReadTokens + c.usage.cacheCreationTokens > 0),
  );
  let modelledReads = 0;
  let servedReads = 0;
  let now = 0;
  let callNo = 0;
  let lastSent: SentRequest | null = null;
  for (let c = 0; c < inp.contexts.length; c++) {
    const context = inp.contexts[c];
    const cal = sizes.contexts[c];
    sizes.segment = c;
    const prefix: RequestPrefix = { overheadTokens: cal.overhead, warmTokens: cal.warmTokens, key: `context ${c}` };
    let compaction: ReplayCallPoint['compaction'];
    let pending = 0;
    if (c > 0) {
      const priced = recordedSummaryCall(inp, c, cached ? cache : null, now, lastSent);
      pending = bill.add(priced.tokens, now);
      result.summaryCostUSD += pending;
      result.summaryCalls++;
      result.compactions++;
      compaction = { strategy: 'recorded', tokensBefore: priced.before, tokensAfter: 0, summarized: true };
    }
    const warm = warmSegments(prefix);
    for (let k = 0; k < cal.calls.length; k++) {
      if (inp.yieldEvery) await inp.yieldEvery();
      const call = cal.calls[k];
      sizes.at = callNo;
      now = context[call.index]?.createdAt ?? now;
      if (k === 0 && warm) cache.call(warm, [0], now, inp.ttl);
      const request = requestSegments(prefix, context.slice(0, call.index), sizes);
      const modelled = cache.call(request.segments, request.breakpoints, now, inp.ttl);
      // The provider's cache as the recording shows it: warm where it read, cold where it missed.
      const read = Math.min(call.call.usage.cacheReadTokens, request.tokens);
      if (!cached) modelled.cacheWriteTokens = modelled.cacheReadTokens = 0;
      modelledReads += modelled.cacheReadTokens;
      servedReads += read;
      const write = Math.max(0, Math.min(request.tokens - read, modelled.cacheWriteTokens + (modelled.cacheReadTokens - read)));
      const tokens = {
        inputTokens: request.tokens - read - write,
        cacheReadTokens: read,
        cacheWriteTokens: write,
        outputTokens: call.call.usage.outputTokens,
      };
      const cost = bill.add(tokens, now) + pending;
      pending = 0;
      callNo++;
      result.calls++;
      result.peakContextTokens = Math.max(result.peakContextTokens, request.tokens);
      if (compaction) compaction.tokensAfter = request.tokens;
      lastSent = { request, at: now };
      result.points.push({
        call: callNo,
        contextTokens: request.tokens,
        ...tokens,
        costUSD: cost,
        cumulativeCostUSD: result.costUSD,
        ...(compaction ? { compaction } : {}),
      });
      compaction = undefined;
    }
  }
  const last = inp.contexts[inp.contexts.length - 1] ?? [];
  Object.assign(result, sessionRecall(inp.artifacts, last));
  // The recorded summaries (or replacement histories) are what each compaction kept.
  result.probeRecall = recordedProbeRecall({ messages: [...(inp.contexts[inp.contexts.length - 1] ?? [])], compactions: inp.compactions });
  if (inp.recordedCostUSD !== null && inp.recordedCostUSD > 0)
    result.costErrorVsRecorded = (result.costUSD - result.summaryCostUSD - inp.recordedCostUSD) / inp.recordedCostUSD;
  result.notes.push(
    `as recorded: ${inp.compactions.length} recorded compaction(s) at their recorded points, ${inp.ttl} cache writes (the recording's), ` +
      'sizes from the recorded usage; the summary calls the recording does not bill are priced as the agent sends them and left out of the error',
  );
  return { result, modelledReads, servedReads };
}

/**
 * The recording agent's summary call before context `c`: the whole previous context as last sent, the
 * instruction appended, the recorded summary's size as its answer (the estimate when it has no text).
 */
function recordedSummaryCall(inp: AsRecordedInputs, c: number, cache: PrefixCache | null, now: number, lastSent: SentRequest | null) {
  const { sizes } = inp;
  const previous = sizes.contexts[c - 1];
  const prefix: RequestPrefix = { overheadTokens: previous.overhead, warmTokens: previous.warmTokens, key: `context ${c - 1}` };
  sizes.segment = c - 1;
  const before = requestSegments(prefix, inp.contexts[c - 1], sizes);
  const compaction = inp.compactions[c - 1];
  const beforeTexts = new Set(compaction.before.map((m) => JSON.stringify(m.content)));
  const fresh = compaction.summary.filter((m) => !beforeTexts.has(JSON.stringify(m.content)));
  sizes.segment = c;
  const output = fresh.length > 0 ? sizes.countMessages(fresh) : inp.summaryTokens;
  const instructionTokens = Math.round(inp.tokenizer.countText(SUMMARY_SYSTEM_PROMPT) * previous.factor);
  const priced = summaryCallTokens({
    call: { inputTokens: before.tokens + instructionTokens, outputTokens: output, recorded: true, maxTokens: output },
    before,
    instructionTokens,
    maxSummaryTokens: output,
    window: Number.MAX_SAFE_INTEGER,
    factor: 1,
    caching: cache ? inp.ttl : 'off',
    cache: cache ?? new PrefixCache(Number.MAX_SAFE_INTEGER),
    now,
    ratio: 1,
    lastSent,
  });
  return { tokens: priced.tokens, before: compaction.preTokens ?? before.tokens };
}
