// Replay: the cost of a compaction configuration on a recorded session. See run.ts for the walk and
// the pricing, asRecorded.ts for the recording replayed as it happened, sizes.ts for the recorded
// sizes and the per-segment calibration, recording.ts for what else is taken from the recording, and
// standInSummarizer.ts for summaries.
import type { ImportResult } from '../importers';
import { sessionWindow } from '../importers/window';
import { DEFAULT_PLAN_CONTEXT } from '../pipeline/plan';
import { budgetTrigger } from '../pipeline/triggers';
import { agentCompactPoint } from '../live/status';
import { createTokenizer, DEFAULT_TOKENIZER } from '../counting/tokenizers';
import { MemoizedMessageCounter } from '../counting/tokens';
import { fallbackPriceWarning, priceLookup } from '../cost/prices';
import type { Message } from '../conversation/conversation';
import { replayAsRecorded } from './asRecorded';
import { PROBE_NOTE } from './probeRecall';
import { artifactsOf } from './recall';
import {
  calibratedForRecording,
  recordedSummaryTokens,
  recordedTimeline,
  recordedTotals,
  recordedTtl,
  recordingContexts,
  recordingModel,
} from './recording';
import { replayConfig, summaryModelOf, type ReplayInputs } from './run';
import { RecordedSizes } from './sizes';
import type { RecordedSummary } from './standInSummarizer';
import type { ReplayConfig, ReplayConfigResult, ReplayOptions, ReplayReport } from './types';

export { fittedOverhead, recordedWindow, recordedTimeline, recordingWindow, type RecordedTimeline } from './recording';
export { ledgerRecall, requestText } from './recall';
export { standInText } from './standInSummarizer';
export type * from './types';

/** Replays `result` under each configuration (in order). Deterministic for a given recording and options. */
export async function replaySession(
  result: ImportResult,
  configs: readonly ReplayConfig[],
  options: ReplayOptions = {},
): Promise<ReplayReport> {
  return replayPrepared(await prepareReplay(result, options, configs.find((c) => c.mode === 'as-recorded')?.name), configs, options);
}

/**
 * What every configuration's replay of one recording shares: the calibration, the recorded sizes and totals,
 * the recording replayed as it happened (the cost model's check and the provider's cache hit ratio). Made
 * once, it serves any number of replayPrepared calls (`splitpoint tune` keeps one per session and worker).
 */
export interface PreparedReplay {
  readonly report: Omit<ReplayReport, 'configs'>;
  readonly inputs: Omit<ReplayInputs, 'yieldEvery'>;
  readonly asRecorded: ReplayConfigResult;
  readonly recordedSummary: number | null;
}

export async function prepareReplay(
  result: ImportResult,
  options: ReplayOptions = {},
  asRecordedName = 'as-recorded',
): Promise<PreparedReplay> {
  const tokenizer = options.tokenizer ?? createTokenizer(DEFAULT_TOKENIZER);
  const raw = new MemoizedMessageCounter(tokenizer);
  const contexts = recordingContexts(result);
  // A host waits on nothing long: the first (o200k) counts, the slow part, are taken a few messages at a time.
  if (options.yieldEvery) await precount(contexts, raw, options.yieldEvery);
  const { counter, overhead } = calibratedForRecording(result, raw);
  const sizes = RecordedSizes.of(contexts, raw, counter.factor);
  const win = sessionWindow(result, options.contextWindow);
  const window = win.window;
  const model = recordingModel(result);
  const recordedSummary = recordedSummaryTokens(result, raw);
  // The summary's output: the recorded size when the agent wrote one, else the plan's estimate.
  const summaryTokens = recordedSummary ?? DEFAULT_SUMMARY_ESTIMATE;
  const timeline = recordedTimeline(result);
  const prices = options.prices ?? {};
  const recorded = recordedTotals(result, prices);
  const ttl = recordedTtl(result);
  const artifacts = artifactsOf(timeline.messages, sizes);
  const warnings: string[] = [];
  if (win.note) warnings.push(win.note);
  const fallback = fallbackPriceWarning(model, priceLookup(model, prices));
  if (fallback) warnings.push(fallback);
  // The recording replayed as it happened: the cost model's check, and the provider's cache hit ratio.
  const asRecorded = await replayAsRecorded(
    { name: asRecordedName },
    {
      contexts,
      compactions: result.compactions,
      sizes,
      tokenizer,
      window,
      model,
      ttl,
      prices,
      summaryTokens: Math.round(summaryTokens * counter.factor),
      artifacts,
      recordedCostUSD: recorded?.costUSD ?? null,
      yieldEvery: options.yieldEvery,
    },
  );
  // A provider never serves more than the model can reach for a counterfactual: the ratio scales reads down only.
  // A recording that read nothing from a cache ran without one: it says nothing about the provider's misses.
  const cacheServedRatio =
    asRecorded.modelledReads > 0 && asRecorded.servedReads > 0 ? Math.min(1, asRecorded.servedReads / asRecorded.modelledReads) : 1;
  const report: Omit<ReplayReport, 'configs'> = {
    window,
    windowSource: win.source,
    warnings,
    cacheServedRatio,
    recordedTtl: ttl,
    model: model ?? null,
    overheadTokens: sizes.contexts[0]?.overhead ?? overhead,
    factor: sizes.contexts[0]?.factor ?? counter.factor,
    segments: sizes.contexts.map((c) => ({ calls: c.calls.length, overheadTokens: c.overhead, factor: c.factor })),
    summaryTokens: { tokens: summaryTokens, source: recordedSummary === null ? 'estimate' : 'recorded' },
    recorded,
    probeNote: PROBE_NOTE,
  };
  const inputs = {
    timeline,
    sizes,
    tokenizer,
    window,
    model,
    summaryTokens,
    recordedSummaries: summariesOf(result),
    prices,
    cacheServedRatio,
    artifacts,
  };
  return { report, inputs, asRecorded: asRecorded.result, recordedSummary };
}

/** Replays a prepared recording under each configuration (in order); the prepared part is only read. */
export async function replayPrepared(
  prepared: PreparedReplay,
  configs: readonly ReplayConfig[],
  options: Pick<ReplayOptions, 'yieldEvery'> = {},
): Promise<ReplayReport> {
  const { inputs, recordedSummary } = prepared;
  const { model, prices, summaryTokens } = inputs;
  const warnings = [...prepared.report.warnings];
  const report: ReplayReport = { ...prepared.report, warnings, configs: [] };
  for (const config of configs) {
    if (config.mode === 'as-recorded') {
      report.configs.push(prepared.asRecorded);
      continue;
    }
    const r = await replayConfig(atAgentPoint(config, prepared.report), { ...inputs, yieldEvery: options.yieldEvery });
    if (r.summaryCalls > 0) r.notes.push(summaryNote(r.summaryBound, summaryTokens, recordedSummary !== null));
    const summaryModel = summaryModelOf(config, model);
    const summaryFallback = summaryModel === model ? null : fallbackPriceWarning(summaryModel, priceLookup(summaryModel, prices));
    if (summaryFallback && !warnings.includes(`summaryModel: ${summaryFallback}`)) warnings.push(`summaryModel: ${summaryFallback}`);
    report.configs.push(r);
  }
  return report;
}

/**
 * A configuration that compacts where an agent does (`agentPoint`): its trigger becomes that agent's point on
 * this session's window, the one the live strip shows (Codex: 90% of the model's window, which a Codex rollout
 * records as 95% usable; Claude Code: window - 33,000). A window too small for a point compacts only when full.
 */
function atAgentPoint(config: ReplayConfig, report: Pick<ReplayReport, 'window' | 'windowSource'>): ReplayConfig {
  if (!config.agentPoint) return config;
  const { compactAt } = agentCompactPoint(config.agentPoint, { window: report.window, source: report.windowSource });
  const trigger = compactAt === null ? budgetTrigger({ fraction: 1 }) : budgetTrigger({ maxTokens: compactAt });
  return { ...config, pipeline: { ...config.pipeline, autoCompact: { ...config.pipeline.autoCompact, trigger } } };
}

/** How the configuration's summaries were sized: the stand-in's size (recorded or estimated) under the call's bound. */
function summaryNote(bound: ReplayConfigResult['summaryBound'], summaryTokens: number, recorded: boolean): string {
  const n = (v: number) => v.toLocaleString('en-US');
  const range = bound ? (bound.min === bound.max ? n(bound.min) : `${n(bound.min)}-${n(bound.max)}`) : '?';
  const why = bound?.source === 'setting' ? 'summaryMaxTokens' : 'sized by the probes of what each compaction archived';
  const size = recorded
    ? `the recording's own summary where the split is the same, else ${n(summaryTokens)}-token stand-ins (its size)`
    : `${n(summaryTokens)}-token stand-ins (an estimate: the recording has no summary text)`;
  return `summaries: ${size}, cut to the call's max_tokens of ${range} (${why})`;
}

/** The recording agent's summaries with the ids of what each replaced (Codex records none: its history only repeats prompts). */
function summariesOf(result: ImportResult): RecordedSummary[] {
  const out: RecordedSummary[] = [];
  for (const c of result.compactions) {
    const before = new Set(c.before.map((m) => JSON.stringify(m.content)));
    const fresh = c.summary.filter((m) => !before.has(JSON.stringify(m.content)));
    if (fresh.length === 0) continue;
    const text = fresh
      .map((m) => (typeof m.content === 'string' ? m.content : m.content.map((b) => (b.type === 'text' ? b.text : '')).join('\n')))
      .join('\n\n');
    out.push({ replaced: new Set(c.before.map((m) => m.id)), text });
  }
  return out;
}

/** Output tokens of a summary when the recording has none to measure: the plans' own estimate. */
export const DEFAULT_SUMMARY_ESTIMATE = DEFAULT_PLAN_CONTEXT.summaryMaxTokens;

/** Messages counted between two yields when a host asked to be yielded to. */
const PRECOUNT_BATCH = 16;

async function precount(
  contexts: readonly (readonly Message[])[],
  raw: MemoizedMessageCounter,
  yieldEvery: () => Promise<void>,
): Promise<void> {
  let n = 0;
  for (const context of contexts) {
    for (const m of context) {
      if (raw.peek(m) !== undefined) continue;
      raw.countMessage(m);
      if (++n % PRECOUNT_BATCH === 0) await yieldEvery();
    }
  }
}
