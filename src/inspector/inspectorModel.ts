// The inspector's session view, built from the engine's data: one row per message (kind, tokens,
// truncation, tools), the usage breakdown against the window, the archived contexts of recorded
// compactions, past compactions and the strategies. Pure (no `vscode` import): the host calls it, the
// webview only renders the result. Message text is messageText.ts; plans planViews.ts; recordings recordedViews.ts.
import { cacheBoundaryOf } from './cacheBoundary';
import { lastRecordedCall, recordedCallView, recordedCompactionView } from './recordedViews';
import { previewOf } from './messageText';
import { compactionView, strategyViews, type StrategyParamOverrides } from './planViews';
import { outsideCompaction } from './standingView';
import { autoCompactView } from './autoCompactView';
import {
  isTurnStart,
  kindOf,
  type AutoCompactDecision,
  parseMcpToolName,
  toolNamesById,
  type CompactionRecord,
  type Message,
  type PlanContext,
  type RecordedCompaction,
  type ToolResultBlock,
  type ToolUseBlock,
} from '../core';
import type {
  StandingView,
  ArchivedSegment,
  InspectorSession,
  MessageRow,
  ProbeScoreView,
  TimeTravelPoint,
  UsageBreakdown,
} from '../protocol';

export interface InspectorSessionInput {
  /** "Current session" or the path of an inspected file. */
  source: string;
  readOnly: boolean;
  sessionId: string;
  title: string;
  /** The history as the session holds it (original tool outputs). */
  messages: readonly Message[];
  /**
   * The micro-compacted view of `messages` (what the model sees): same length, same ids. A copy that
   * differs from its original is shown as truncated. Pass `messages` itself when micro-compaction is off.
   */
  effective: readonly Message[];
  compactions: readonly CompactionRecord[];
  ctx: PlanContext;
  /** Tokens outside the messages: the system prompt and the tool definitions. */
  overhead: { system: number; tools: number };
  /** The live session's standing context (instructions, task list) with its tokens: outside every compaction. */
  standing?: StandingView;
  /** Auto-compact threshold in tokens, or null when auto-compact is off. */
  autoCompactThreshold: number | null;
  /** The live session's last auto-compaction decision (absent: none yet, or not the live session). */
  autoCompactDecision?: AutoCompactDecision | null;
  /** Parameter values per strategy (the user's settings); missing or out-of-range values fall back to the defaults. */
  strategyParams?: StrategyParamOverrides;
  canUndo: boolean;
  /** Where the current history's tail starts (the last compaction's tail-start pointer), if known. */
  tailStartId: string | null;
  /** Where `overhead` comes from (default 'agent'); 'unknown' shows it as unknown (pass zeros). */
  overheadSource?: UsageBreakdown['overheadSource'];
  /** Where the window (`ctx.contextWindow`) comes from (default 'settings'). */
  windowSource?: UsageBreakdown['windowSource'];
  /** Why the window is not the table's (see UsageBreakdown.windowNote). */
  windowNote?: string;
  /** Recorded compactions whose archived contexts are shown above the rows, oldest first (numbered from 1). */
  archived?: readonly RecordedCompaction[];
  /** The probes of each recorded compaction (index k: compaction k + 1), shown on its marker; absent: not scored. */
  archivedProbes?: readonly ProbeScoreView[];
  /** The past compaction points to preview at, and the one shown (null: the current context). */
  timeTravel?: { at: number | null; points: TimeTravelPoint[] };
}

/**
 * The inspector's view of a session. Token figures are of what the model sees (the micro-compacted
 * copy); a truncated row also carries its original size.
 *
 * UsageBreakdown: `messages` is every message token (what the model sees); `toolResults` and
 * `summaries` (summaries and placeholders) are the parts of it carried by those kinds, so the
 * conversation's own share is `messages - toolResults - summaries`. `free` is what is left of the
 * window after system + tools + messages (0 when over).
 */
export function buildInspectorSession(a: InspectorSessionInput): InspectorSession {
  const { ctx } = a;
  const { rows, total, toolResults, summaries } = buildRows(a.messages, a.effective, ctx);
  const window = ctx.contextWindow;
  const system = Math.max(0, a.overhead.system);
  const tools = Math.max(0, a.overhead.tools);
  const usage: UsageBreakdown = {
    window,
    system,
    tools,
    messages: total,
    toolResults,
    summaries,
    free: Math.max(0, window - system - tools - total),
    threshold: a.autoCompactThreshold,
  };
  if (a.standing) {
    usage.standing = a.standing;
    usage.free = Math.max(0, usage.free - a.standing.instructionTokens - a.standing.todo.tokens);
    const pinned = rows.reduce((n, r) => n + (r.pinned ? r.tokens : 0), 0);
    usage.outside = outsideCompaction({ system, tools }, a.standing, pinned);
  }
  if (a.overheadSource && a.overheadSource !== 'agent') usage.overheadSource = a.overheadSource;
  if (a.windowSource && a.windowSource !== 'settings') usage.windowSource = a.windowSource;
  if (a.windowNote) usage.windowNote = a.windowNote;
  const recorded = lastRecordedCall(a.messages);
  if (recorded) usage.recorded = recorded;
  const boundary = cacheBoundaryOf(a.messages, rows, system + tools);
  if (boundary) usage.cacheBoundary = boundary;
  if (a.autoCompactDecision) usage.autoCompact = autoCompactView(a.autoCompactDecision);
  const session: InspectorSession = {
    source: a.source,
    readOnly: a.readOnly,
    sessionId: a.sessionId,
    title: a.title,
    rows,
    usage,
    tailStartId: a.tailStartId,
    compactions: a.compactions.map(compactionView),
    strategies: strategyViews(a.strategyParams),
    canUndo: a.canUndo && !a.readOnly,
  };
  if (a.archived && a.archived.length > 0) session.archived = archivedSegments(a.archived, ctx, a.archivedProbes);
  if (a.timeTravel && a.timeTravel.points.length > 0) session.timeTravel = a.timeTravel;
  return session;
}

interface BuiltRows {
  rows: MessageRow[];
  total: number;
  toolResults: number;
  summaries: number;
}

/** One row per message (tokens of what the model sees), with the totals the usage bar splits. */
function buildRows(messages: readonly Message[], effectiveIn: readonly Message[], ctx: PlanContext): BuiltRows {
  const effective = alignEffective(messages, effectiveIn);
  const names = toolNamesById(messages);
  const rows: MessageRow[] = new Array(messages.length);
  let turn = -1;
  let total = 0;
  let toolResults = 0;
  let summaries = 0;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    const e = effective[i];
    if (isTurnStart(m)) turn++;
    const kind = kindOf(m);
    const tokens = ctx.tokens.countMessage(e);
    const row: MessageRow = { id: m.id, index: i, role: m.role, kind, tokens, turn, preview: previewOf(m) };
    const tools = toolsOf(m, names);
    if (tools.length > 0) row.tools = tools;
    const mcp = tools.flatMap((t) => parseMcpToolName(t) ?? []);
    if (mcp.length > 0) row.mcp = mcp;
    const truncated = truncationOf(m, e, tokens, ctx);
    if (truncated) row.truncated = truncated;
    if (m.usage) row.usage = recordedCallView(m.usage, m.createdAt);
    if (ctx.pinnedIds?.has(m.id)) row.pinned = true;
    if (m.serverContext) row.server = { ...m.serverContext };
    rows[i] = row;
    total += tokens;
    if (kind === 'tool-result') toolResults += tokens;
    else if (kind === 'summary' || kind === 'placeholder') summaries += tokens;
  }
  return { rows, total, toolResults, summaries };
}

function archivedSegments(
  compactions: readonly RecordedCompaction[],
  ctx: PlanContext,
  probes: readonly ProbeScoreView[] = [],
): ArchivedSegment[] {
  return compactions.map((c, k) => {
    const built = buildRows(c.before, c.before, ctx);
    const compaction = recordedCompactionView(c, k + 1, ctx, built.total);
    if (probes[k]) compaction.probes = probes[k];
    return { compaction, rows: built.rows };
  });
}

/** `effective` index-aligned with `messages`; matched by id (falling back to the original) when it is not. */
function alignEffective(messages: readonly Message[], effective: readonly Message[]): readonly Message[] {
  if (effective.length === messages.length && effective.every((e, i) => e.id === messages[i].id)) return effective;
  const byId = new Map<string, Message>();
  for (const e of effective) byId.set(e.id, e);
  return messages.map((m) => byId.get(m.id) ?? m);
}

function truncationOf(original: Message, effective: Message, tokens: number, ctx: PlanContext): MessageRow['truncated'] | undefined {
  if (effective === original || !effective.truncated) return undefined;
  const already = new Set((original.truncated?.results ?? []).map((r) => r.toolUseId));
  const replaced = effective.truncated.results.filter((r) => !already.has(r.toolUseId));
  if (replaced.length === 0) return undefined;
  const superseded = replaced.flatMap((r) => (r.superseded ? [r.superseded] : []));
  return {
    originalTokens: ctx.tokens.countMessage(original),
    tokens,
    originalChars: replaced.reduce((n, r) => n + r.originalChars, 0),
    ...(superseded.length > 0 ? { superseded } : {}),
  };
}

/** Tool names a message calls (tool_use) or answers (tool_result), in order, without repeats. */
function toolsOf(m: Message, names: ReadonlyMap<string, string>): string[] {
  if (typeof m.content === 'string') return [];
  const out: string[] = [];
  for (const b of m.content) {
    const name =
      b.type === 'tool_use'
        ? (b as ToolUseBlock).name
        : b.type === 'tool_result'
          ? names.get((b as ToolResultBlock).tool_use_id)
          : undefined;
    if (name !== undefined && !out.includes(name)) out.push(name);
  }
  return out;
}
