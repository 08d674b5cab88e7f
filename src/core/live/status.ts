// The live status of a session (issue 24 item 3): what a user of that agent wants at a glance, from an
// import of the file so far. Every figure comes from what the agent recorded:
//  - contextTokens: the last recorded call's input + cache read + cache write (recordedInputTokens, the
//    figure `splitpoint inspect` and the inspector show as the recorded input);
//  - compactAt: the agent's own auto-compact point (see agentCompactPoint);
//  - callsToCompaction: (compactAt - contextTokens) / the median growth per call of the last calls since
//    the last compaction (null when the context is not growing);
//  - costSoFar: every recorded call priced as billed (cost/recordedCost.ts, the price table's rows).
import { recordedInputTokens, type Message, type RecordedUsage } from '../conversation/conversation';
import { sameUsage } from '../counting/recordedCalls';
import { fallbackPriceWarning, priceLookup } from '../cost/prices';
import { recordedCallCostUSD, type RecordedCallCost } from '../cost/recordedCost';
import type { ImportResult, SessionFormat } from '../importers/types';
import { sessionWindow, type SessionWindow } from '../importers/window';
import type { AgentKind, LiveCall, LiveStatus } from './types';

/** Claude Code's auto-compact point: its window less the output it reserves for the summary, less its buffer. */
export const CLAUDE_CODE_OUTPUT_RESERVE = 20_000;
export const CLAUDE_CODE_AUTOCOMPACT_BUFFER = 13_000;
/** Codex compacts at 90% of the model's context window (codex-rs openai_models.rs, auto_compact_token_limit). */
export const CODEX_AUTO_COMPACT_PERCENT = 90;
/** Codex records the usable window: this percent of the model's (effective_context_window_percent, default 95). */
export const CODEX_EFFECTIVE_WINDOW_PERCENT = 95;
/** How many of the last calls' growth the rate is the median of. */
export const GROWTH_CALLS = 5;

const n = (x: number) => x.toLocaleString('en-US');

/** The agent that writes a format's files ('unknown' for formats no agent writes live). */
export function agentOf(format: SessionFormat): AgentKind | 'unknown' {
  switch (format) {
    case 'claude-code-jsonl':
      return 'claude-code';
    case 'codex-rollout-jsonl':
      return 'codex';
    case 'splitpoint-jsonl':
      return 'splitpoint';
    default:
      return 'unknown';
  }
}

/** The replay configuration that models an agent's compaction (replay-configs/), if any. */
export function agentConfigOf(agent: AgentKind | 'unknown'): string | null {
  return agent === 'claude-code' ? 'claude-code-like' : agent === 'codex' ? 'codex-like' : null;
}

export interface CompactPoint {
  compactAt: number | null;
  compactAtSource: string;
}

/**
 * The agent's own auto-compact point for a session window.
 * - Claude Code: window - 20,000 (the output it reserves) - 13,000 (its buffer), as replay-configs/
 *   claude-code-like.json models it; the real recordings compacted at 167,389 and 167,457 tokens on a
 *   200,000 window (point 167,000). CLAUDE_AUTOCOMPACT_PCT_OVERRIDE can lower it; it is not recorded.
 * - Codex: 90% of the model's context window (its default model_auto_compact_token_limit). The rollout
 *   records the usable window, 95% of the model's (258,400 of 272,000), so the point is
 *   recorded / 0.95 * 0.9 (244,800). The recordings compacted when the last call plus the tool output
 *   since reached it: calls of 227,112-238,692 tokens, and a call of 238,278 that did not. A configured
 *   model_auto_compact_token_limit can lower it; it is not recorded.
 * - Splitpoint: its own threshold is a setting, not in the session file: `splitpointCompactAt` when the
 *   caller knows it, else null.
 */
export function agentCompactPoint(agent: AgentKind | 'unknown', w: SessionWindow, splitpointCompactAt?: number): CompactPoint {
  if (agent === 'claude-code') {
    const at = w.window - CLAUDE_CODE_OUTPUT_RESERVE - CLAUDE_CODE_AUTOCOMPACT_BUFFER;
    return {
      compactAt: at > 0 ? at : null,
      compactAtSource:
        `Claude Code auto-compacts at its window (${n(w.window)}, ${w.source}) - ${n(CLAUDE_CODE_OUTPUT_RESERVE)} reserved ` +
        `for the summary - ${n(CLAUDE_CODE_AUTOCOMPACT_BUFFER)} buffer`,
    };
  }
  if (agent === 'codex') {
    if (w.source === 'recorded') {
      const model = Math.round((w.window * 100) / CODEX_EFFECTIVE_WINDOW_PERCENT);
      const at = Math.floor((model * CODEX_AUTO_COMPACT_PERCENT) / 100);
      return {
        compactAt: at,
        compactAtSource:
          `Codex auto-compacts at ${CODEX_AUTO_COMPACT_PERCENT}% of the model's window: the rollout records ` +
          `${n(w.window)} usable (${CODEX_EFFECTIVE_WINDOW_PERCENT}% of ${n(model)}); a model_auto_compact_token_limit ` +
          `in its config can lower it`,
      };
    }
    const at = Math.floor((w.window * CODEX_AUTO_COMPACT_PERCENT) / 100);
    return {
      compactAt: at,
      compactAtSource: `Codex auto-compacts at ${CODEX_AUTO_COMPACT_PERCENT}% of the model's window (${n(w.window)}, ${w.source}: the rollout records none)`,
    };
  }
  if (agent === 'splitpoint') {
    return splitpointCompactAt !== undefined
      ? { compactAt: splitpointCompactAt, compactAtSource: "Splitpoint's auto-compact threshold (its settings)" }
      : { compactAt: null, compactAtSource: "Splitpoint's auto-compact threshold is a setting, not recorded in the session" };
  }
  return { compactAt: null, compactAtSource: 'not an agent session: no auto-compact point' };
}

export interface LiveStatusOptions {
  /** Splitpoint's own auto-compact threshold in tokens, when the caller knows its settings. */
  splitpointCompactAt?: number;
}

export interface Call {
  messageId: string;
  usage: RecordedUsage;
  at: number | undefined;
  /** The context it belongs to: 0 before the first recorded compaction. */
  segment: number;
}

/**
 * The recorded calls in the order they happened, as recordedTimeline (replay/recording.ts) lists them:
 * per context, an assistant message with usage is a call unless its usage equals the previous one's (one
 * response recorded as several messages) or its input is 0 (recordedCalls' rules); a context's opening
 * messages (the summary or replacement history) and messages an earlier context had are not listed again.
 * Linear: recordedCalls copies each call's input prefix, which costs seconds on a 10,000-call session,
 * and this runs on every poll of a followed session.
 */
export function callsOf(result: Pick<ImportResult, 'messages' | 'compactions'>): Call[] {
  const contexts: Message[][] = [...result.compactions.map((c) => c.before), result.messages];
  const callIds = new Set<string>();
  for (const context of contexts) {
    let previous: RecordedUsage | undefined;
    for (const m of context) {
      const usage = m.role === 'assistant' ? m.usage : undefined;
      if (!usage) continue;
      if (previous && sameUsage(previous, usage)) continue;
      previous = usage;
      if (recordedInputTokens(usage) > 0) callIds.add(m.id);
    }
  }
  const seen = new Set<string>();
  const calls: Call[] = [];
  contexts.forEach((context, k) => {
    const opened = k === 0 ? 0 : result.compactions[k - 1].summary.length;
    for (let i = opened; i < context.length; i++) {
      const m = context[i];
      if (k > 0 && seen.has(m.id)) continue;
      seen.add(m.id);
      if (m.usage && callIds.has(m.id)) calls.push({ messageId: m.id, usage: m.usage, at: m.createdAt, segment: k });
    }
  });
  return calls;
}

/**
 * sessionWindow(result) from the calls already listed: the evidence it weighs is the recorded window, the
 * model, the largest call and the last call's model, so it is given those calls only (it would list every
 * call again, copying each one's input).
 */
export function windowOf(result: Pick<ImportResult, 'messages' | 'contextWindow' | 'model'>, calls: readonly Call[]): SessionWindow {
  let recorded = result.contextWindow !== undefined && result.contextWindow > 0 ? result.contextWindow : undefined;
  for (let i = result.messages.length - 1; recorded === undefined && i >= 0; i--) {
    const w = result.messages[i].usage?.contextWindow;
    if (w !== undefined && w > 0) recorded = w;
  }
  const last = calls.at(-1);
  const largest = calls.reduce<Call | undefined>(
    (max, c) => (!max || recordedInputTokens(c.usage) > recordedInputTokens(max.usage) ? c : max),
    undefined,
  );
  const evidence = [largest, last].filter((c, i, all): c is Call => c !== undefined && all.indexOf(c) === i);
  const messages: Message[] = evidence.map((c) => ({ id: c.messageId, role: 'assistant', content: '', usage: c.usage }));
  return sessionWindow({
    messages,
    compactions: [],
    ...(recorded !== undefined ? { contextWindow: recorded } : {}),
    ...(result.model !== undefined ? { model: result.model } : {}),
  });
}

/**
 * The median growth of the context per call over the last GROWTH_CALLS calls up to `k` of its segment
 * (the calls since the compaction before it); null when fewer than two calls or not growing.
 */
export function growthPerCall(contextTokens: readonly number[]): number | null {
  const recent = contextTokens.slice(-(GROWTH_CALLS + 1));
  if (recent.length < 2) return null;
  const deltas = recent
    .slice(1)
    .map((v, i) => v - recent[i])
    .sort((a, b) => a - b);
  const mid = Math.floor(deltas.length / 2);
  const median = deltas.length % 2 === 1 ? deltas[mid] : (deltas[mid - 1] + deltas[mid]) / 2;
  return median > 0 ? median : null;
}

/** Calls until `compactAt` at `growth` per call: 0 when already there; null when unknown or not growing. */
export function callsUntil(contextTokens: number, compactAt: number | null, growth: number | null): number | null {
  if (compactAt === null) return null;
  if (contextTokens >= compactAt) return 0;
  if (growth === null) return null;
  return Math.ceil((compactAt - contextTokens) / growth);
}

/**
 * A call's cost as billed, memoized by its usage object: a follower's later results share the messages
 * that did not change, so a poll prices only the new calls.
 */
const priced = new WeakMap<RecordedUsage, RecordedCallCost>();
function costOf(c: Call): RecordedCallCost {
  let p = priced.get(c.usage);
  if (!p) priced.set(c.usage, (p = recordedCallCostUSD(c.usage, {}, c.at)));
  return p;
}

const percentOf = (tokens: number, window: number) => Math.round((tokens / window) * 1000) / 10;

/** The figures right after each recorded call from `from` (0-based) on: one line of `inspect --follow` per call. */
export function liveCalls(result: ImportResult, from = 0, options: LiveStatusOptions = {}): LiveCall[] {
  const calls = callsOf(result);
  const w = windowOf(result, calls);
  const { compactAt } = agentCompactPoint(agentOf(result.format), w, options.splitpointCompactAt);
  const out: LiveCall[] = [];
  let cost = 0;
  const bySegment = new Map<number, number[]>();
  calls.forEach((c, k) => {
    cost += costOf(c).costUSD;
    const tokens = recordedInputTokens(c.usage);
    const series = bySegment.get(c.segment) ?? [];
    series.push(tokens);
    bySegment.set(c.segment, series);
    if (k < from) return;
    const growth = growthPerCall(series);
    out.push({
      call: k + 1,
      messageId: c.messageId,
      model: c.usage.model ?? result.model ?? null,
      at: c.at ?? null,
      contextTokens: tokens,
      contextWindow: w.window,
      percent: percentOf(tokens, w.window),
      compactAt,
      callsToCompaction: callsUntil(tokens, compactAt, growth),
      growthPerCall: growth,
      costSoFar: cost,
    });
  });
  return out;
}

/** The live status of an imported session (`file` names it in nothing but is accepted for symmetry with the callers). */
export function liveStatus(result: ImportResult, _file?: string, options: LiveStatusOptions = {}): LiveStatus {
  const agent = agentOf(result.format);
  const calls = callsOf(result);
  const w = windowOf(result, calls);
  const point = agentCompactPoint(agent, w, options.splitpointCompactAt);
  const last = calls.at(-1);
  // The agent compacted after its last call: what the model holds now is unknown until the next call.
  const current = last !== undefined && last.segment === result.compactions.length ? last : undefined;
  const series = current ? calls.filter((c) => c.segment === current.segment).map((c) => recordedInputTokens(c.usage)) : [];
  const contextTokens = current ? recordedInputTokens(current.usage) : null;
  const growth = current ? growthPerCall(series) : null;
  let cost = 0;
  let priceSource: string | null = null;
  let priceNote: string | undefined;
  for (const c of calls) {
    const p = costOf(c);
    cost += p.costUSD;
    if (p.priceSource === 'family-fallback') {
      priceSource = 'family-fallback';
      priceNote ??= fallbackPriceWarning(c.usage.model, priceLookup(c.usage.model));
    } else priceSource ??= p.priceSource;
  }
  const lc = result.compactions.at(-1);
  return {
    agent,
    model: last?.usage.model ?? result.model ?? w.model ?? null,
    contextTokens,
    contextWindow: w.window,
    windowSource: w.source,
    compactAt: point.compactAt,
    compactAtSource: point.compactAtSource,
    callsToCompaction: contextTokens === null ? null : callsUntil(contextTokens, point.compactAt, growth),
    growthPerCall: growth,
    costSoFar: calls.length > 0 ? cost : null,
    priceSource: calls.length > 0 ? priceSource : null,
    ...(priceNote !== undefined ? { priceNote } : {}),
    calls: calls.length,
    compactions: result.compactions.length,
    lastCompaction: lc
      ? {
          index: result.compactions.length,
          trigger: lc.trigger,
          preTokens: lc.preTokens,
          at: lc.at ?? null,
          archivedMessages: lc.before.length,
          archivedTokens: lc.preTokens,
        }
      : null,
    agentConfig: agentConfigOf(agent),
  };
}
