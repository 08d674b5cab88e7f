// What a replay takes from a recording: the messages in the order they happened (the recording
// agent's own compactions taken out), the model calls among them with their recorded usage, the
// calibration of local counts to the recording's model, the window, and the recorded summary size.
import { recordedInputTokens, textOf, type Message, type RecordedUsage } from '../conversation/conversation';
import { contextWindowFor, type CacheTtl, type PriceOverrides } from '../cost/cost';
import { recordedCallCostUSD } from '../cost/recordedCost';
import type { PriceSource } from '../cost/prices';
import { CalibratedCounter } from '../counting/calibration';
import type { ImportResult } from '../importers';
import { InputFit } from '../counting/inputFit';
import { recordedCalls } from '../counting/recordedCalls';
import type { MessageTokenCounter } from '../counting/tokens';
import type { RecordedTotals } from './types';

/** Claude's window when nothing says otherwise (the 1M window is an opt-in beta). */
export const FALLBACK_WINDOW = 200_000;

export interface RecordedTimeline {
  /** Every message the conversation produced, in order, without the recording agent's summaries and their copies. */
  messages: Message[];
  /**
   * Indices in `messages` of the first assistant message of each recorded call, with its usage, its time
   * and its segment (the recorded context it belongs to: 0 before the first recorded compaction).
   */
  calls: Array<{ index: number; usage: RecordedUsage; at: number | undefined; segment: number }>;
}

/** The contexts of a recording, oldest first: each compaction's `before`, then the current context. */
export function recordingContexts(result: Pick<ImportResult, 'messages' | 'compactions'>): Message[][] {
  return [...result.compactions.map((c) => c.before), result.messages];
}

/**
 * The messages as they happened: the first context whole, then each later context without the
 * summary (or replacement history) that opens it, and without messages an earlier context already
 * had (a segment a compaction kept). The calls are the assistant messages with recorded usage (one
 * response recorded as several messages with the same usage is one call; input 0 is no call).
 */
export function recordedTimeline(result: Pick<ImportResult, 'messages' | 'compactions'>): RecordedTimeline {
  const contexts = recordingContexts(result);
  const messages: Message[] = [];
  const segmentOf: number[] = [];
  const seen = new Set<string>();
  contexts.forEach((context, k) => {
    const opened = k === 0 ? 0 : result.compactions[k - 1].summary.length;
    for (let i = opened; i < context.length; i++) {
      if (k > 0 && seen.has(context[i].id)) continue;
      seen.add(context[i].id);
      messages.push(context[i]);
      segmentOf.push(k);
    }
  });
  const callIds = new Set(recordedCalls(contexts).map((c) => c.messageId));
  const calls: RecordedTimeline['calls'] = [];
  messages.forEach((m, index) => {
    if (callIds.has(m.id) && m.usage) calls.push({ index, usage: m.usage, at: m.createdAt, segment: segmentOf[index] });
  });
  return { messages, calls };
}

/** The model of the recording's last call (or the import's), if known. */
export function recordingModel(result: ImportResult): string | undefined {
  const calls = recordedCalls(recordingContexts(result));
  return calls[calls.length - 1]?.usage.model ?? result.model;
}

/** The window the recording names (the import's, else the last recorded call's), if any. */
export function recordedWindow(result: Pick<ImportResult, 'messages' | 'contextWindow'>): number | undefined {
  if (result.contextWindow !== undefined && result.contextWindow > 0) return result.contextWindow;
  for (let i = result.messages.length - 1; i >= 0; i--) {
    const w = result.messages[i].usage?.contextWindow;
    if (w !== undefined && w > 0) return w;
  }
  return undefined;
}

/** The window to replay a recording against: its own, else its model's, else 200K. */
export function recordingWindow(result: ImportResult): number {
  return recordedWindow(result) ?? contextWindowFor(recordingModel(result)) ?? FALLBACK_WINDOW;
}

/**
 * The fit of the recording's calls of its last model: reported input ≈ prefix + factor × raw count.
 * Null when fewer than two calls of that model were recorded (one call cannot tell prefix from factor).
 */
export function recordingFit(result: ImportResult, counter: MessageTokenCounter): InputFit | null {
  const calls = recordedCalls(recordingContexts(result));
  const model = calls[calls.length - 1]?.usage.model;
  const mine = calls.filter((c) => c.usage.model === model);
  if (mine.length < 2) return null;
  const fit = new InputFit();
  for (const c of mine) fit.observe(counter.countMessages(c.input), recordedInputTokens(c.usage));
  return fit;
}

/**
 * The fixed prefix of every recorded call (the unseen system prompt and tools), fitted from the
 * recording's usage the way the calibration fits it; null when it cannot be fitted (see recordingFit).
 */
export function fittedOverhead(result: ImportResult, counter: MessageTokenCounter): number | null {
  const fit = recordingFit(result, counter);
  return fit === null ? null : Math.round(fit.prefix);
}

/** A counter calibrated to the recording (Claude's tokens, not o200k), and the overhead of its requests. */
export function calibratedForRecording(result: ImportResult, raw: MessageTokenCounter): { counter: CalibratedCounter; overhead: number } {
  const counter = new CalibratedCounter(raw);
  const calls = recordedCalls(recordingContexts(result));
  const model = calls[calls.length - 1]?.usage.model;
  const mine = calls.filter((c) => c.usage.model === model);
  if (mine.length < 2) return { counter, overhead: 0 };
  for (const c of mine) counter.observe(raw.countMessages(c.input), recordedInputTokens(c.usage));
  return { counter, overhead: Math.round(counter.prefix) };
}

/**
 * Raw (o200k) tokens of the summaries the recording agent wrote, on average; null when it recorded
 * none. A summary is a replacing message whose text is not a copy of a message it replaced (Codex's
 * replacement history only repeats earlier messages: no summary text is recorded).
 */
export function recordedSummaryTokens(result: ImportResult, raw: MessageTokenCounter): number | null {
  const sizes: number[] = [];
  for (const c of result.compactions) {
    const before = new Set(c.before.map((m) => textOf(m)));
    const fresh = c.summary.filter((m) => !before.has(textOf(m)));
    if (fresh.length > 0) sizes.push(raw.countMessages(fresh));
  }
  return sizes.length === 0 ? null : Math.round(sizes.reduce((a, b) => a + b, 0) / sizes.length);
}

/** The TTL most of the recording's cache writes used ('5m' when it wrote none or says nothing). */
export function recordedTtl(result: Pick<ImportResult, 'messages' | 'compactions'>): CacheTtl {
  let hour = 0;
  let all = 0;
  for (const c of recordedCalls(recordingContexts(result))) {
    hour += c.usage.cacheWrite1hTokens ?? 0;
    all += c.usage.cacheCreationTokens;
  }
  return all > 0 && hour * 2 > all ? '1h' : '5m';
}

/**
 * The recorded usage summed over every call, priced as billed (each write at its recorded TTL), and
 * the recording agent's compactions with the call they come before (null without recorded usage).
 */
export function recordedTotals(result: ImportResult, prices: PriceOverrides = {}): RecordedTotals | null {
  const contexts = recordingContexts(result);
  const calls = recordedCalls(contexts);
  if (calls.length === 0) return null;
  const t: RecordedTotals = {
    calls: calls.length,
    inputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: 0,
    cacheWrite1hTokens: 0,
    costUSD: 0,
    costUSDAt5m: 0,
    priceSource: 'table',
    compactions: [],
  };
  const sources = new Set<PriceSource>();
  for (const c of calls) {
    const u = c.usage;
    // Priced at the call's time: a long-context premium that has since ended applied then.
    const at = contexts.find((context) => context[c.input.length]?.id === c.messageId)?.[c.input.length]?.createdAt;
    t.inputTokens += u.inputTokens;
    t.cacheReadTokens += u.cacheReadTokens;
    t.cacheWriteTokens += u.cacheCreationTokens;
    t.cacheWrite1hTokens += u.cacheWrite1hTokens ?? 0;
    t.outputTokens += u.outputTokens;
    const billed = recordedCallCostUSD(u, prices, at);
    t.costUSD += billed.costUSD;
    sources.add(billed.priceSource);
    const { cacheWrite1hTokens: _hour, ...at5m } = u;
    t.costUSDAt5m += recordedCallCostUSD(at5m, prices, at).costUSD;
  }
  t.priceSource = worstSource(sources);
  let before = 0;
  result.compactions.forEach((compaction, k) => {
    before += recordedCalls([contexts[k]]).length;
    t.compactions.push({ call: before + 1, preTokens: compaction.preTokens ?? null, trigger: compaction.trigger ?? null });
  });
  return t;
}

/** The least certain of the sources used: a fallback anywhere makes the whole figure a fallback. */
export function worstSource(sources: Iterable<PriceSource>): PriceSource {
  const all = new Set(sources);
  return all.has('family-fallback') ? 'family-fallback' : all.has('user') ? 'user' : 'table';
}
