// Previews of a recorded session priced the way its own model counted and cached: token counts
// calibrated to the recording's usage (local o200k counts run about 2.8x low on Claude sessions) with
// the requests' fitted overhead, and the cache state the recording's last call left (its cache read +
// write; OpenAI caches the whole prompt on its own) instead of an assumed one. The calibration is the
// replay's (replay/recording.ts calibratedForRecording): the recorded calls of the last model, fitted
// as reported input ≈ prefix + factor × raw count.
import { recordedInputTokens, type Message, type RecordedUsage } from '../conversation/conversation';
import { CalibratedCounter } from '../counting/calibration';
import { recordedCalls } from '../counting/recordedCalls';
import type { MessageTokenCounter } from '../counting/tokens';
import type { ImportResult } from '../importers/types';
import type { CompactionPlan, PlanContext } from '../pipeline/plan';
import { costNote, planCostFor } from './cacheCost';
import type { CacheState, PlanCost } from './cacheTypes';
import { priceFor } from './prices';

/** A counter calibrated to a recording, and the fitted tokens every request carries beyond its messages. */
export interface RecordingCalibration {
  counter: CalibratedCounter;
  overheadTokens: number;
  /** Recorded calls the fit saw. */
  calls: number;
}

/** The recording's calibration; null when it recorded fewer than two calls of its last model (no fit). */
export function recordingCalibration(
  result: Pick<ImportResult, 'messages' | 'compactions'>,
  raw: MessageTokenCounter,
): RecordingCalibration | null {
  const contexts = [...result.compactions.map((c) => c.before), result.messages];
  const calls = recordedCalls(contexts);
  const model = calls.at(-1)?.usage.model;
  const mine = new Set(calls.filter((c) => c.usage.model === model).map((c) => c.messageId));
  if (mine.size < 2) return null;
  const counter = new CalibratedCounter(raw);
  // Each call's input is its context before it: a running sum per context (linear, however many calls).
  for (const context of contexts) {
    let before = 0;
    for (const m of context) {
      if (mine.has(m.id) && m.usage) counter.observe(before, recordedInputTokens(m.usage));
      before += raw.countMessage(m);
    }
  }
  return { counter, overheadTokens: Math.round(counter.prefix), calls: mine.size };
}

/**
 * What the last recorded call of `messages` left in the prompt cache: its cache read + write (for a
 * model whose cache writes are free and automatic, OpenAI's, its whole input), with the TTL of the last
 * recorded cache write (1h when it wrote 1-hour entries); undefined when no call is recorded there.
 */
export function recordedCacheState(messages: readonly Message[]): CacheState | undefined {
  let last: RecordedUsage | undefined;
  let ttl: CacheState['ttl'];
  for (let i = messages.length - 1; i >= 0 && ttl === undefined; i--) {
    const u = messages[i].role === 'assistant' ? messages[i].usage : undefined;
    if (!u || recordedInputTokens(u) <= 0) continue;
    last ??= u;
    if (u.cacheCreationTokens > 0 && u.cacheWrite1hTokens !== undefined) ttl = u.cacheWrite1hTokens > 0 ? '1h' : '5m';
  }
  if (!last) return undefined;
  const price = priceFor(last.model);
  const automatic = price.cacheWrite5m === price.input && last.cacheCreationTokens === 0;
  const cachedPrefixTokens = automatic ? recordedInputTokens(last) : last.cacheReadTokens + last.cacheCreationTokens;
  return { cachedPrefixTokens, ...(last.model ? { model: last.model } : {}), ...(ttl ? { ttl } : {}) };
}

/**
 * `plan` (made on `input` with `ctx`) with its cost priced on calibrated counts: the plan's totals and
 * each message scaled by the calibration, the fitted overhead, and `ctx.cache` (the recorded state, if
 * the caller set it). The cost note is replaced; the plan's token figures stay as counted.
 */
export function calibratedPlan(
  plan: CompactionPlan,
  input: readonly Message[],
  ctx: PlanContext,
  calibration: RecordingCalibration,
): CompactionPlan {
  if (!plan.cost) return plan;
  const cost = calibratedPlanCost(plan, input, ctx, calibration);
  return { ...plan, cost, notes: plan.notes.map((n) => (n.startsWith('cache: ') ? costNote(cost) : n)) };
}

export function calibratedPlanCost(
  plan: CompactionPlan,
  input: readonly Message[],
  ctx: PlanContext,
  calibration: RecordingCalibration,
): PlanCost {
  const factor = calibration.counter.factor;
  const totals = { tokensBefore: Math.round(plan.tokensBefore * factor), tokensAfter: Math.round(plan.tokensAfter * factor) };
  return planCostFor(input, plan.output, totals, { ...ctx, tokens: calibration.counter, overheadTokens: calibration.overheadTokens });
}
