// One configuration over one recording, call by call, the way the agent would have run it: before
// every recorded call the pipeline (micro-compaction view, auto-compact trigger and strategy, pins and
// the ledger where the configuration carries one) prepares the request; the request is priced with the
// prompt cache (breakpoints on the system prompt, the micro-compaction frontier and the end of the history; recorded timestamps drive
// the TTL; the cache starts as warm as the recording's first call shows it; the provider's observed
// misses are applied); the call's output is the recorded one, and the recorded messages up to the next
// call are appended. Every recorded message has its recorded size (sizes.ts); what the replay writes is
// counted with its segment's factor. A compaction's summary is a call of its own, priced the way the
// agents send it: the conversation's cached prefix with the instruction appended (billing.ts).
import type { Message } from '../conversation/conversation';
import { contextWindowFor, minCacheableTokens, PrefixCache, type CacheTtl, type ModelPrice, type PriceOverrides } from '../cost/cost';
import { priceLookup } from '../cost/prices';
import { summaryTokenBound, type SummaryBound } from '../pipeline/summaryBudget';
import { DEFAULT_PLAN_CONTEXT, type PlanContext } from '../pipeline/plan';
import { CompactionPipeline } from '../pipeline/pipeline';
import { ReplacementCache } from '../pipeline/replacementCache';
import { SUMMARY_SYSTEM_PROMPT } from '../pipeline/summarize';
import { SessionLog } from '../session/session';
import { TranscriptStore, type SavedTranscript } from '../transcripts/transcripts';
import type { TextTokenizer } from '../counting/tokens';
import { Bill, emptyResult, served, summaryCallTokens, type SentRequest } from './billing';
import { ProbeRecallTally } from './probeRecall';
import { ledgerRecall, sessionRecall } from './recall';
import type { RecordedTimeline } from './recording';
import { requestSegments, warmSegments, type RequestPrefix } from './requestCache';
import type { RecordedSizes } from './sizes';
import { standInSummarizer, type RecordedSummary, type SummaryCall } from './standInSummarizer';
import type { PromptCaching, ReplayCallPoint, ReplayConfig, ReplayConfigResult, ReplayOptions } from './types';

/** A host's yield is awaited before every call (a call with a compaction can take a while on its own). */
const YIELD_CALLS = 1;

/** Failed compactions are noted up to this many times (a trigger that keeps firing would repeat itself). */
const MAX_NOTES = 20;

/** What every configuration of one recording shares. */
export interface ReplayInputs {
  timeline: RecordedTimeline;
  /** Recorded sizes of the recording's messages; the counter of everything else. */
  sizes: RecordedSizes;
  tokenizer: TextTokenizer;
  window: number;
  model: string | undefined;
  summaryTokens: number;
  /** The recording agent's own summaries (a configuration summarizing the same split answers with them). */
  recordedSummaries: readonly RecordedSummary[];
  prices: PriceOverrides;
  /** Of the modelled cache reads, the share the provider served on the recorded requests. */
  cacheServedRatio: number;
  /** Every path and genuine prompt of the session (the denominators of pathRecall and promptRecall). */
  artifacts: { paths: ReadonlySet<string>; prompts: ReadonlySet<string> };
  yieldEvery?: ReplayOptions['yieldEvery'];
}

/** Transcripts are not written in a replay (nothing is lost: the recording is the transcript). */
class ReplayTranscripts extends TranscriptStore {
  constructor(private readonly clock: () => number) {
    super({ dir: 'replay' });
  }
  override saveTranscript(sessionId: string): SavedTranscript {
    return { path: `replay/transcript_${this.clock()}_${sessionId}.jsonl`, sha256: '' };
  }
}

/** The prefix of a counterfactual request: the first recorded context's, warm as the recording's first call found it. */
export function counterfactualPrefix(sizes: RecordedSizes): RequestPrefix {
  const first = sizes.contexts[0];
  return { overheadTokens: first?.overhead ?? 0, warmTokens: first?.warmTokens ?? 0 };
}

export async function replayConfig(config: ReplayConfig, inp: ReplayInputs): Promise<ReplayConfigResult> {
  const { timeline, sizes } = inp;
  const clock = { now: timeline.calls[0]?.at ?? 0 };
  const summaries: SummaryCall[] = [];
  const bounds: SummaryBound[] = [];
  const prefix = counterfactualPrefix(sizes);
  const lookup = priceLookup(inp.model, inp.prices);
  const { session, pipeline } = replayPipeline(config, inp, clock, summaries, prefix.overheadTokens, bounds, lookup.price);
  const cache = new PrefixCache(minCacheableTokens(inp.model));
  // The TTL of the next call ('auto': chosen by the pipeline from the recorded gaps between the calls so far).
  const caching = () => pipeline.cacheTtl(config.promptCaching);
  const ttlOf = (c: PromptCaching): CacheTtl => (c === 'off' ? '5m' : c);
  const result = emptyResult(config.name, lookup.source);
  const { bill, summaryBill, ownModel } = bills(config, inp, result, lookup.price, ttlOf(caching()));
  const warm = warmSegments(prefix);
  if (warm && caching() !== 'off') cache.call(warm, [0], clock.now, ttlOf(caching()));
  const instruction = () => Math.round(inp.tokenizer.countText(SUMMARY_SYSTEM_PROMPT) * sizes.factor);
  const archived = new Map<string, Message>();
  const probes = new ProbeRecallTally();
  let lastRequest: readonly Message[] = [];
  let lastSent: SentRequest | null = null;
  let appended = 0;
  for (let k = 0; k < timeline.calls.length; k++) {
    const call = timeline.calls[k];
    if (inp.yieldEvery && k % YIELD_CALLS === 0) await inp.yieldEvery();
    sizes.segment = call.segment;
    sizes.at = k;
    if (call.index > appended) session.appendAll(timeline.messages.slice(appended, call.index));
    appended = Math.max(appended, call.index);
    if (call.at !== undefined) clock.now = call.at;
    const snapshot = session.messages;
    const before = requestSegments(prefix, pipeline.effectiveMessages(), sizes);
    const summariesBefore = summaries.length;
    const prepared = await pipeline.beforeModelCall();
    const ttl = ttlOf(caching());
    let compaction: ReplayCallPoint['compaction'];
    let cost = 0;
    if (prepared.compaction?.ok) {
      const { plan, record } = prepared.compaction;
      const now = archivedBy(plan.archived, snapshot, archived);
      // Scored on the request right after the compaction (stand-in filler left out).
      probes.add(now, pipeline.effectiveMessages(), timeline.messages.slice(call.index));
      result.compactions++;
      compaction = {
        strategy: record.strategy,
        tokensBefore: record.tokensBefore,
        tokensAfter: record.tokensAfter,
        summarized: plan.needsSummary,
      };
    } else if (prepared.compaction && prepared.compaction.reason !== 'noop' && result.notes.length < MAX_NOTES) {
      result.notes.push(`call ${k + 1}: compaction failed (${prepared.compaction.reason}): ${prepared.compaction.message}`);
    }
    for (const s of summaries.slice(summariesBefore)) {
      const priced = summaryCallTokens({
        call: s,
        before,
        instructionTokens: instruction(),
        maxSummaryTokens: s.maxTokens,
        window: inp.window,
        factor: sizes.factor,
        caching: ownModel ? caching() : 'off',
        cache,
        now: clock.now,
        ratio: inp.cacheServedRatio,
        lastSent,
      });
      cost += billSummary(result, summaryBill, priced, clock.now, ttl, ownModel ? k + 1 : null);
    }
    const messages = pipeline.effectiveMessages();
    const request = requestSegments(prefix, messages, sizes, prepared.stableMessages);
    if (request.tokens + config.maxOutputTokens > inp.window) {
      result.stoppedAt = k + 1;
      result.notes.push(
        `stopped at call ${k + 1} of ${timeline.calls.length}: the request (${request.tokens.toLocaleString('en-US')} tokens) ` +
          `and the answer reserve (${config.maxOutputTokens.toLocaleString('en-US')}) overflow the ${inp.window.toLocaleString('en-US')}-token window`,
      );
      break;
    }
    const cached =
      caching() === 'off'
        ? { inputTokens: request.tokens, cacheReadTokens: 0, cacheWriteTokens: 0 }
        : served(cache.call(request.segments, request.breakpoints, clock.now, ttl), inp.cacheServedRatio);
    const tokens = {
      inputTokens: cached.inputTokens,
      cacheReadTokens: cached.cacheReadTokens,
      cacheWriteTokens: cached.cacheWriteTokens,
      outputTokens: call.usage.outputTokens,
    };
    cost += bill.add(tokens, clock.now, ttl);
    // What the agent does after every call: the call's cache read + write is what the next request can read.
    pipeline.noteCache({ cachedPrefixTokens: cached.cacheReadTokens + cached.cacheWriteTokens, model: inp.model, ttl });
    result.calls++;
    result.peakContextTokens = Math.max(result.peakContextTokens, request.tokens);
    lastRequest = messages;
    lastSent = { request, at: clock.now };
    result.points.push({
      call: k + 1,
      contextTokens: request.tokens,
      ...tokens,
      costUSD: cost,
      cumulativeCostUSD: result.costUSD,
      ...(compaction ? { compaction } : {}),
    });
  }
  if (config.ledger) {
    const recall = ledgerRecall([...archived.values()], lastRequest, sizes);
    result.ledgerRecall = recall.recall;
    result.archivedArtifacts = recall.archived;
  }
  Object.assign(result, sessionRecall(inp.artifacts, lastRequest));
  result.probeRecall = probes.value;
  result.summaryBound = boundRange(bounds);
  if (!ownModel && result.summaryCalls > 0)
    result.notes.push(
      `summaries by ${result.summaryModel}: the standalone prompt, uncached, at its price (the conversation's cache is ${inp.model ?? 'the session model'}'s)`,
    );
  return result;
}

/**
 * Adds one summary call to the result; returns its cost. `call` (1-based), for a summary by the
 * session's model: a call that could not reuse the cached conversation is noted.
 */
function billSummary(
  result: ReplayConfigResult,
  bill: Bill,
  priced: ReturnType<typeof summaryCallTokens>,
  now: number,
  ttl: CacheTtl,
  call: number | null,
): number {
  result.summaryCalls++;
  const c = bill.add(priced.tokens, now, ttl);
  result.summaryCostUSD += c;
  if (call !== null && !priced.cachedPrefix && result.notes.length < MAX_NOTES)
    result.notes.push(
      `call ${call}: the summary request could not reuse the cached conversation (none sent, rewritten, expired or no room); sent standalone, uncached`,
    );
  return c;
}

/**
 * The bills of a run: the session's calls, and its summary calls (another summary model reads nothing of the
 * conversation's cache, which is per model: standalone, uncached, at its own price).
 */
function bills(
  config: ReplayConfig,
  inp: ReplayInputs,
  result: ReplayConfigResult,
  price: ModelPrice,
  ttl: CacheTtl,
): { bill: Bill; summaryBill: Bill; ownModel: boolean } {
  const bill = new Bill(result, price, ttl);
  const summaryModel = summaryModelOf(config, inp.model);
  const ownModel = summaryModel === inp.model;
  result.summaryModel = summaryModel ?? null;
  return { bill, summaryBill: ownModel ? bill : new Bill(result, priceLookup(summaryModel, inp.prices).price, ttl), ownModel };
}

/** The model of a configuration's summary calls: its summaryModel, else the session's. */
export function summaryModelOf(config: Pick<ReplayConfig, 'summaryModel'>, sessionModel: string | undefined): string | undefined {
  return config.summaryModel?.trim() || sessionModel;
}

function boundRange(bounds: readonly SummaryBound[]): ReplayConfigResult['summaryBound'] {
  if (bounds.length === 0) return null;
  const tokens = bounds.map((b) => b.tokens);
  return { min: Math.min(...tokens), max: Math.max(...tokens), source: bounds[0].source };
}

/** The real messages a compaction archived (also added to `all`, every message the configuration archived). */
function archivedBy(entries: ReadonlyArray<{ id: string }>, snapshot: readonly Message[], all: Map<string, Message>): Message[] {
  const byId = new Map(snapshot.map((m) => [m.id, m]));
  const now: Message[] = [];
  for (const e of entries) {
    const m = byId.get(e.id);
    if (m) all.set(m.id, m);
    if (m && m.synthetic === undefined) now.push(m);
  }
  return now;
}

/** A session and the pipeline the agent would run on it, with the stand-in summarizer. */
function replayPipeline(
  config: ReplayConfig,
  inp: ReplayInputs,
  clock: { now: number },
  summaries: SummaryCall[],
  overheadTokens: number,
  bounds: SummaryBound[],
  price: ModelPrice,
): { session: SessionLog; pipeline: CompactionPipeline } {
  const summaryModel = summaryModelOf(config, inp.model);
  // The standalone prompt is trimmed to the summary model's window.
  const summaryWindow = summaryModel === inp.model ? inp.window : Math.min(inp.window, contextWindowFor(summaryModel) ?? inp.window);
  const session = new SessionLog({ id: 'replay', title: config.name, createdAt: 0, updatedAt: 0, compactions: [] });
  const ctx: PlanContext = {
    ...DEFAULT_PLAN_CONTEXT,
    tokens: inp.sizes,
    contextWindow: inp.window,
    maxOutputTokens: config.maxOutputTokens,
    copies: new ReplacementCache(),
    ledger: config.ledger,
    ...(inp.model ? { model: inp.model } : {}),
  };
  const pipeline = new CompactionPipeline(
    {
      session,
      transcripts: new ReplayTranscripts(() => clock.now),
      ctx,
      overheadTokens: () => overheadTokens,
      now: () => clock.now,
      price,
      summarizer: standInSummarizer({
        tokenizer: inp.tokenizer,
        summaryTokens: inp.summaryTokens,
        contextWindow: summaryWindow,
        bound: (input) => {
          const b = summaryTokenBound(input, {
            setting: config.summaryMaxTokens ?? 0,
            maxOutputTokens: config.maxOutputTokens,
            tokenizer: inp.tokenizer,
          });
          bounds.push(b);
          return b.tokens;
        },
        factor: () => inp.sizes.factor,
        recorded: inp.recordedSummaries,
        onCall: (c) => summaries.push(c),
      }),
    },
    config.pipeline,
  );
  return { session, pipeline };
}
