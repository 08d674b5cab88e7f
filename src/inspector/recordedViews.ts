// What the inspector shows of a recording: the calls' recorded usage, the compactions its agent recorded
// (archived segments, time-travel labels) and which agent wrote it.
import { previewOf } from './messageText';
import {
  recordedCallCostUSD,
  recordedInputTokens,
  type Message,
  type PlanContext,
  type RecordedCompaction,
  type RecordedUsage,
  type SessionFormat,
} from '../core';
import type { RecordedCallView, RecordedCompactionView, UsageBreakdown } from '../protocol';

/** A recorded call as the inspector shows it: its usage and its cost as billed (`at`: the call's time, for a premium since ended). */
export function recordedCallView(u: RecordedUsage, at?: number): RecordedCallView {
  const cost = recordedCallCostUSD(u, {}, at);
  const view: RecordedCallView = {
    input: recordedInputTokens(u),
    inputTokens: u.inputTokens,
    cacheReadTokens: u.cacheReadTokens,
    cacheCreationTokens: u.cacheCreationTokens,
    outputTokens: u.outputTokens,
    costUSD: cost.costUSD,
    priceSource: cost.priceSource,
  };
  if (u.cacheWrite1hTokens !== undefined) view.cacheWrite1hTokens = u.cacheWrite1hTokens;
  if (u.model) view.model = u.model;
  return view;
}

/** The last message with recorded usage: the last model call's real input (ground truth). */
export function lastRecordedCall(messages: readonly Message[]): UsageBreakdown['recorded'] | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const u = messages[i].usage;
    if (u) return { call: recordedCallView(u, messages[i].createdAt), messageId: messages[i].id };
  }
  return undefined;
}

/** Who recorded a session of this format, for people. */
export function agentOf(format: SessionFormat): string {
  switch (format) {
    case 'claude-code-jsonl':
      return 'Claude Code';
    case 'codex-rollout-jsonl':
      return 'Codex';
    case 'splitpoint-jsonl':
      return 'Splitpoint';
    case 'anthropic-json':
      return 'Anthropic JSON';
  }
}

/** "167K", "1.2M", "950": tokens for a label. */
export function shortTokens(n: number): string {
  if (n >= 999_500) return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, '')}M`;
  if (n >= 1_000) return `${Math.round(n / 1_000)}K`;
  return String(Math.round(n));
}

/** The recorded compactions, numbered from 1, each with the rows of the context it replaced. */
export function recordedCompactionView(
  c: RecordedCompaction,
  index: number,
  ctx: PlanContext,
  archivedTokens?: number,
): RecordedCompactionView {
  const summaryText = c.summary.find((m) => m.synthetic === 'summary') ?? c.summary[c.summary.length - 1];
  const view: RecordedCompactionView = {
    index,
    agent: agentOf(c.source),
    trigger: c.trigger,
    preTokens: c.preTokens,
    line: c.line,
    archivedCount: c.before.length,
    archivedTokens: archivedTokens ?? ctx.tokens.countMessages(c.before),
    summaryCount: c.summary.length,
    summaryTokens: ctx.tokens.countMessages(c.summary),
    summaryPreview: summaryText ? previewOf(summaryText) : '',
  };
  if (c.at !== undefined) view.at = c.at;
  return view;
}

/** A time-travel point's label: "before compaction 1 (Claude Code, auto, 167K)". */
export function timeTravelLabel(index: number, agent: string, trigger: string, tokens: number | null): string {
  const parts = [agent, trigger];
  if (tokens !== null) parts.push(shortTokens(tokens));
  return `before compaction ${index} (${parts.join(', ')})`;
}
