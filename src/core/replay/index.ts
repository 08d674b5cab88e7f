// Replay: the cost of a compaction configuration on a recorded session. See run.ts for the walk and
// the pricing, recording.ts for what is taken from the recording, standInSummarizer.ts for summaries.
import type { ImportResult } from '../importers';
import { DEFAULT_PLAN_CONTEXT } from '../pipeline/plan';
import { createTokenizer, DEFAULT_TOKENIZER } from '../counting/tokenizers';
import { MemoizedMessageCounter } from '../counting/tokens';
import type { Message } from '../conversation/conversation';
import {
  calibratedForRecording,
  recordedSummaryTokens,
  recordedTimeline,
  recordedTotals,
  recordingContexts,
  recordingModel,
  recordingWindow,
} from './recording';
import { MAX_SUMMARY_OUTPUT, replayConfig } from './run';
import type { ReplayConfig, ReplayOptions, ReplayReport } from './types';

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
  const tokenizer = options.tokenizer ?? createTokenizer(DEFAULT_TOKENIZER);
  const raw = new MemoizedMessageCounter(tokenizer);
  // A host waits on nothing long: the first (o200k) counts, the slow part, are taken a few messages at a time.
  if (options.yieldEvery) await precount(recordingContexts(result), raw, options.yieldEvery);
  const { counter, overhead } = calibratedForRecording(result, raw);
  const window = options.contextWindow ?? recordingWindow(result);
  const model = recordingModel(result);
  const recordedSummary = recordedSummaryTokens(result, raw);
  // The summary's output: the recorded size when the agent wrote one, else the plan's estimate.
  const summaryTokens = recordedSummary ?? DEFAULT_SUMMARY_ESTIMATE;
  const timeline = recordedTimeline(result);
  const prices = options.prices ?? {};
  const report: ReplayReport = {
    window,
    model: model ?? null,
    overheadTokens: overhead,
    factor: counter.factor,
    summaryTokens: { tokens: summaryTokens, source: recordedSummary === null ? 'estimate' : 'recorded' },
    recorded: recordedTotals(result, prices),
    configs: [],
  };
  for (const config of configs) {
    const r = await replayConfig(config, {
      timeline,
      counter,
      tokenizer,
      overheadTokens: overhead,
      window,
      model,
      summaryTokens,
      prices,
      yieldEvery: options.yieldEvery,
    });
    // The summarizer is asked for at most min(max output, 4,096) tokens, as the agent's is.
    const size = Math.min(summaryTokens, config.maxOutputTokens, MAX_SUMMARY_OUTPUT).toLocaleString('en-US');
    if (r.summaryCalls > 0)
      r.notes.push(
        recordedSummary === null
          ? `summaries: ${size}-token stand-ins (an estimate: the recording has no summary text)`
          : `summaries: ${size}-token stand-ins (the size of the recording's own summaries)`,
      );
    report.configs.push(r);
  }
  return report;
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
