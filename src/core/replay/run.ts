// One configuration over one recording, call by call, the way the agent would have run it: before
// every recorded call the pipeline (micro-compaction view, auto-compact trigger and strategy, pins and
// the ledger) prepares the request; the request is priced with the prompt cache (breakpoints on the
// system + tools and the end of the history; recorded timestamps drive the TTL); the call's output is
// the recorded one, and the recorded messages up to the next call are appended. A compaction's summary
// is a call of its own (the summarizer's prompt in, the summary out), priced uncached.
import type { Message } from '../conversation/conversation';
import { callCostUSD, minCacheableTokens, PrefixCache, priceFor, type CallTokens } from '../cost/cost';
import { DEFAULT_PLAN_CONTEXT, type PlanContext } from '../pipeline/plan';
import { CompactionPipeline } from '../pipeline/pipeline';
import { ReplacementCache } from '../pipeline/replacementCache';
import { SessionLog } from '../session/session';
import type { CalibratedCounter } from '../counting/calibration';
import { TranscriptStore, type SavedTranscript } from '../transcripts/transcripts';
import type { TextTokenizer } from '../counting/tokens';
import { ledgerRecall } from './recall';
import type { RecordedTimeline } from './recording';
import { requestSegments } from './requestCache';
import { standInSummarizer, type SummaryCall } from './standInSummarizer';
import type { ReplayCallPoint, ReplayConfig, ReplayConfigResult, ReplayOptions } from './types';

/** The summarizer's max_tokens cap, as the agent's SummaryRunner sets it (min(max output, this)). */
export const MAX_SUMMARY_OUTPUT = 4_096;

/** A host's yield is awaited before every call (a call with a compaction can take a while on its own). */
const YIELD_CALLS = 1;

/** Failed compactions are noted up to this many times (a trigger that keeps firing would repeat itself). */
const MAX_NOTES = 20;

/** What every configuration of one recording shares. */
export interface ReplayInputs {
  timeline: RecordedTimeline;
  counter: CalibratedCounter;
  tokenizer: TextTokenizer;
  overheadTokens: number;
  window: number;
  model: string | undefined;
  summaryTokens: number;
  prices: NonNullable<ReplayOptions['prices']>;
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

export async function replayConfig(config: ReplayConfig, inp: ReplayInputs): Promise<ReplayConfigResult> {
  const { timeline, counter } = inp;
  const clock = { now: 0 };
  const summaries: SummaryCall[] = [];
  const { session, pipeline } = replayPipeline(config, inp, clock, summaries);
  const cache = new PrefixCache(minCacheableTokens(inp.model));
  const price = priceFor(inp.model, inp.prices);
  const ttl = config.promptCaching === 'off' ? '5m' : config.promptCaching;
  const result = emptyResult(config.name);
  const add = (t: CallTokens): number => {
    result.inputTokens += t.inputTokens;
    result.cacheReadTokens += t.cacheReadTokens;
    result.cacheWriteTokens += t.cacheWriteTokens;
    result.outputTokens += t.outputTokens;
    const cost = callCostUSD(t, price, ttl);
    result.costUSD += cost;
    return cost;
  };
  const archived = new Map<string, Message>();
  let lastRequest: readonly Message[] = [];
  let appended = 0;
  for (let k = 0; k < timeline.calls.length; k++) {
    const call = timeline.calls[k];
    if (inp.yieldEvery && k % YIELD_CALLS === 0) await inp.yieldEvery();
    if (call.index > appended) session.appendAll(timeline.messages.slice(appended, call.index));
    appended = Math.max(appended, call.index);
    if (call.at !== undefined) clock.now = call.at;
    const snapshot = session.messages;
    const summariesBefore = summaries.length;
    const prepared = await pipeline.beforeModelCall();
    let compaction: ReplayCallPoint['compaction'];
    let cost = 0;
    if (prepared.compaction?.ok) {
      const { plan, record } = prepared.compaction;
      const byId = new Map(snapshot.map((m) => [m.id, m]));
      for (const e of plan.archived) {
        const m = byId.get(e.id);
        if (m) archived.set(m.id, m);
      }
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
      result.summaryCalls++;
      const factor = counter.factor;
      cost += add({
        inputTokens: Math.round(s.inputTokens * factor),
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        outputTokens: Math.round(s.outputTokens * factor),
      });
    }
    const messages = pipeline.effectiveMessages();
    const request = requestSegments(inp.overheadTokens, messages, counter);
    if (request.tokens + config.maxOutputTokens > inp.window) {
      result.stoppedAt = k + 1;
      result.notes.push(
        `stopped at call ${k + 1} of ${timeline.calls.length}: the request (${request.tokens.toLocaleString('en-US')} tokens) ` +
          `and the answer reserve (${config.maxOutputTokens.toLocaleString('en-US')}) overflow the ${inp.window.toLocaleString('en-US')}-token window`,
      );
      break;
    }
    const cached =
      config.promptCaching === 'off'
        ? { inputTokens: request.tokens, cacheReadTokens: 0, cacheWriteTokens: 0 }
        : cache.call(request.segments, request.breakpoints, clock.now, ttl);
    const tokens: CallTokens = {
      inputTokens: cached.inputTokens,
      cacheReadTokens: cached.cacheReadTokens,
      cacheWriteTokens: cached.cacheWriteTokens,
      outputTokens: call.usage.outputTokens,
    };
    cost += add(tokens);
    // What the agent does after every call: the call's cache read + write is what the next request can read.
    pipeline.noteCache({ cachedPrefixTokens: cached.cacheReadTokens + cached.cacheWriteTokens, model: inp.model, ttl });
    result.calls++;
    result.peakContextTokens = Math.max(result.peakContextTokens, request.tokens);
    lastRequest = messages;
    result.points.push({
      call: k + 1,
      contextTokens: request.tokens,
      ...tokens,
      costUSD: cost,
      cumulativeCostUSD: result.costUSD,
      ...(compaction ? { compaction } : {}),
    });
  }
  const recall = ledgerRecall([...archived.values()], lastRequest, counter);
  result.ledgerRecall = recall.recall;
  result.archivedArtifacts = recall.archived;
  return result;
}

/** A session and the pipeline the agent would run on it, with the stand-in summarizer. */
function replayPipeline(
  config: ReplayConfig,
  inp: ReplayInputs,
  clock: { now: number },
  summaries: SummaryCall[],
): { session: SessionLog; pipeline: CompactionPipeline } {
  const session = new SessionLog({ id: 'replay', title: config.name, createdAt: 0, updatedAt: 0, compactions: [] });
  const ctx: PlanContext = {
    ...DEFAULT_PLAN_CONTEXT,
    tokens: inp.counter,
    contextWindow: inp.window,
    maxOutputTokens: config.maxOutputTokens,
    copies: new ReplacementCache(),
    ledger: true,
    ...(inp.model ? { model: inp.model } : {}),
  };
  const pipeline = new CompactionPipeline(
    {
      session,
      transcripts: new ReplayTranscripts(() => clock.now),
      ctx,
      overheadTokens: () => inp.overheadTokens,
      now: () => clock.now,
      summarizer: standInSummarizer({
        tokenizer: inp.tokenizer,
        summaryTokens: inp.summaryTokens,
        contextWindow: inp.window,
        maxSummaryTokens: Math.min(config.maxOutputTokens, MAX_SUMMARY_OUTPUT),
        onCall: (c) => summaries.push(c),
      }),
    },
    config.pipeline,
  );
  return { session, pipeline };
}

function emptyResult(name: string): ReplayConfigResult {
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
    ledgerRecall: 1,
    archivedArtifacts: 0,
    summaryCalls: 0,
    stoppedAt: null,
    notes: [],
    points: [],
  };
}
