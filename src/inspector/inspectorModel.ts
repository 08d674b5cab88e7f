// What the context inspector shows, built from the engine's data: one row per message, the usage
// breakdown against the window, past compactions, the strategies with their parameters, plans and
// message details. Pure (no `vscode` import): the host calls it, the webview only renders the result.
import { cacheBoundaryOf } from './cacheBoundary';
import {
  base64ImageInfo,
  blocksOf,
  callCostUSD,
  imageTokensFor,
  MAX_IMAGE_TOKENS,
  isTurnStart,
  kindOf,
  parseMcpToolName,
  priceFor,
  recordedInputTokens,
  STRATEGIES,
  toolNamesById,
  toolResultText,
  type ArtifactLedger,
  type CompactionPlan,
  type CompactionRecord,
  type ContentBlock,
  type Message,
  type PlanContext,
  type RecordedCompaction,
  type RecordedUsage,
  type SessionFormat,
  type StrategyDefinition,
  type ToolResultBlock,
  type ToolUseBlock,
} from '../core';
import type {
  ArchivedSegment,
  CompactionView,
  InspectorSession,
  LedgerView,
  MessageDetail,
  MessageRow,
  PlanView,
  RecordedCallView,
  RecordedCompactionView,
  StrategyView,
  TimeTravelPoint,
  UsageBreakdown,
} from '../protocol';

/** Longest row preview, in UTF-16 code units (the ellipsis included). */
export const PREVIEW_CHARS = 160;

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
  /** Auto-compact threshold in tokens, or null when auto-compact is off. */
  autoCompactThreshold: number | null;
  /** Parameter values per strategy (the user's settings); missing or out-of-range values fall back to the defaults. */
  strategyParams?: Readonly<Record<string, Readonly<Record<string, number>> | undefined>>;
  canUndo: boolean;
  /** Where the current history's tail starts (the last compaction's tail-start pointer), if known. */
  tailStartId: string | null;
  /** Where `overhead` comes from (default 'agent'); 'unknown' shows it as unknown (pass zeros). */
  overheadSource?: UsageBreakdown['overheadSource'];
  /** Where the window (`ctx.contextWindow`) comes from (default 'settings'). */
  windowSource?: UsageBreakdown['windowSource'];
  /** Recorded compactions whose archived contexts are shown above the rows, oldest first (numbered from 1). */
  archived?: readonly RecordedCompaction[];
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
  if (a.overheadSource && a.overheadSource !== 'agent') usage.overheadSource = a.overheadSource;
  if (a.windowSource && a.windowSource !== 'settings') usage.windowSource = a.windowSource;
  const recorded = lastRecordedCall(a.messages);
  if (recorded) usage.recorded = recorded;
  const boundary = cacheBoundaryOf(a.messages, rows, system + tools);
  if (boundary) usage.cacheBoundary = boundary;
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
  if (a.archived && a.archived.length > 0) session.archived = archivedSegments(a.archived, ctx);
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
    if (m.usage) row.usage = recordedCallView(m.usage);
    if (ctx.pinnedIds?.has(m.id)) row.pinned = true;
    if (m.serverContext) row.server = { ...m.serverContext };
    rows[i] = row;
    total += tokens;
    if (kind === 'tool-result') toolResults += tokens;
    else if (kind === 'summary' || kind === 'placeholder') summaries += tokens;
  }
  return { rows, total, toolResults, summaries };
}

export function recordedCallView(u: RecordedUsage): RecordedCallView {
  const view: RecordedCallView = {
    input: recordedInputTokens(u),
    inputTokens: u.inputTokens,
    cacheReadTokens: u.cacheReadTokens,
    cacheCreationTokens: u.cacheCreationTokens,
    outputTokens: u.outputTokens,
    costUSD: callCostUSD(
      {
        inputTokens: u.inputTokens,
        cacheReadTokens: u.cacheReadTokens,
        cacheWriteTokens: u.cacheCreationTokens,
        outputTokens: u.outputTokens,
      },
      priceFor(u.model),
    ),
  };
  if (u.model) view.model = u.model;
  return view;
}

/** The last message with recorded usage: the last model call's real input (ground truth). */
function lastRecordedCall(messages: readonly Message[]): UsageBreakdown['recorded'] | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const u = messages[i].usage;
    if (u) return { call: recordedCallView(u), messageId: messages[i].id };
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
function archivedSegments(compactions: readonly RecordedCompaction[], ctx: PlanContext): ArchivedSegment[] {
  return compactions.map((c, k) => {
    const built = buildRows(c.before, c.before, ctx);
    return { compaction: recordedCompactionView(c, k + 1, ctx, built.total), rows: built.rows };
  });
}

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
  return {
    originalTokens: ctx.tokens.countMessage(original),
    tokens,
    originalChars: replaced.reduce((n, r) => n + r.originalChars, 0),
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

/** The first PREVIEW_CHARS characters of a message on one line (whitespace collapsed). */
export function previewOf(m: Pick<Message, 'content'>): string {
  const parts: string[] = [];
  let length = 0;
  for (const b of blocksOf(m)) {
    // Only the head of each block matters: never collapse a 40 KB file to show 160 characters.
    const piece = collapse(previewPiece(b).slice(0, PREVIEW_CHARS * 4));
    if (piece === '') continue;
    parts.push(piece);
    length += piece.length + 3;
    if (length > PREVIEW_CHARS) break;
  }
  return clip(parts.join(' · '), PREVIEW_CHARS);
}

function previewPiece(b: ContentBlock): string {
  switch (b.type) {
    case 'text':
      return String(b.text ?? '');
    case 'thinking':
      return String(b.thinking ?? '');
    case 'redacted_thinking':
      return '[redacted thinking]';
    case 'tool_use': {
      const u = b as ToolUseBlock;
      return `${u.name} ${compactJson(u.input)}`;
    }
    case 'tool_result': {
      const r = b as ToolResultBlock;
      return `${r.is_error ? 'error: ' : ''}${toolResultText(r)}`;
    }
    case 'image':
      return imageLabel(b);
    case 'compaction': {
      const c = (b as { content?: unknown }).content;
      return typeof c === 'string' ? `[server compaction] ${c}` : '[server compaction failed]';
    }
    default:
      return `[${b.type}]`;
  }
}

function collapse(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** At most `max` code units, ending with an ellipsis when cut, never splitting a surrogate pair. */
function clip(s: string, max: number): string {
  if (s.length <= max) return s;
  let end = max - 1;
  const code = s.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${s.slice(0, end)}…`;
}

function compactJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? 'null';
  } catch {
    return String(v);
  }
}

export function compactionView(r: CompactionRecord): CompactionView {
  return {
    id: r.id,
    at: r.at,
    strategy: r.strategy,
    trigger: r.trigger,
    tokensBefore: r.tokensBefore,
    tokensAfter: r.tokensAfter,
    archivedCount: r.archivedCount,
    transcriptPath: r.transcriptPath,
    ...(r.focus ? { focus: r.focus } : {}),
    ...(r.draft !== undefined ? { draft: r.draft } : {}),
    ...(r.finalText !== undefined ? { finalText: r.finalText } : {}),
    // The ledger it carried, and the summary row that shows it.
    ...(r.ledger ? { ledger: ledgerView(r.ledger), ...(r.syntheticId ? { syntheticId: r.syntheticId } : {}) } : {}),
  };
}

/** Every registered strategy with its parameters, valued from `overrides` where they are valid. */
export function strategyViews(overrides: InspectorSessionInput['strategyParams'] = {}): StrategyView[] {
  return STRATEGIES.map((def) => strategyView(def, overrides[def.name] ?? {}));
}

function strategyView(def: StrategyDefinition, values: Readonly<Record<string, number>>): StrategyView {
  return {
    name: def.name,
    title: def.title,
    description: def.description,
    usesSummarizer: def.usesSummarizer,
    params: def.params.map((p) => {
      const v = values[p.name];
      const ok = typeof v === 'number' && Number.isFinite(v) && v >= p.min && v <= p.max && (!p.integer || Number.isInteger(v));
      return { name: p.name, description: p.description, value: ok ? v : p.default, min: p.min, max: p.max, integer: p.integer };
    }),
  };
}

/** The webview's picture of a plan: ids instead of messages, and the figures its summary shows. */
export function planToView(plan: CompactionPlan, requestId: number, computeMs: number): PlanView {
  const s = plan.summarizerInput;
  return {
    requestId,
    strategy: plan.strategy,
    params: { ...plan.params },
    noop: plan.noop,
    notes: [...plan.notes],
    splitIndex: plan.splitIndex,
    tailStartId: plan.tailStartId,
    archivedIds: plan.archived.map((e) => e.id),
    keptIds: plan.kept.map((e) => e.id),
    truncated: plan.truncated.map((t) => ({ id: t.id, tokens: t.tokens, originalTokens: t.originalTokens })),
    tokensBefore: plan.tokensBefore,
    tokensAfter: plan.tokensAfter,
    needsSummary: plan.needsSummary,
    summarizerInputTokens: s?.tokens ?? 0,
    summarizerInputMessages: s ? s.priorSummaries.length + s.toSummarize.length + s.overlap.length : 0,
    computeMs: Math.round(Math.max(0, computeMs) * 10) / 10,
    ...(plan.pinned ? { pinned: [...plan.pinned], pinnedTokens: plan.pinnedTokens ?? 0 } : {}),
    ...(plan.ledger !== undefined ? { ledger: plan.ledger && ledgerView(plan.ledger) } : {}),
    ...(plan.lost !== undefined
      ? { lost: plan.lost && { ...ledgerView(plan.lost), images: plan.lost.images, thinkingBlocks: plan.lost.thinkingBlocks } }
      : {}),
    ...(plan.cost ? { cost: { ...plan.cost, nextRequestUSD: { ...plan.cost.nextRequestUSD } } } : {}),
    ...(plan.microCompaction
      ? { microCompaction: { ...plan.microCompaction, cache: plan.microCompaction.cache && { ...plan.microCompaction.cache } } }
      : {}),
  };
}

/** A copy of the engine's ledger for the webview (plain data, no shared references). */
function ledgerView(l: ArtifactLedger): LedgerView {
  const view: LedgerView = {
    files: l.files.map((f) => ({ path: f.path, read: f.read, edited: f.edited, created: f.created, lastAction: f.lastAction })),
    commands: l.commands.map((c) => ({ command: c.command, exitCode: c.exitCode })),
    errors: l.errors.map((e) => ({ text: e.text, resolved: e.resolved })),
    instructions: [...l.instructions],
  };
  if (l.folded) view.folded = { ...l.folded };
  return view;
}

/**
 * The detail pane's content for one message: the full text the session holds and, when the model
 * sees a different (micro-compacted) copy, that text too. `tokens` is what the model sees.
 */
export function messageDetail(original: Message, effective: Message | undefined, tokens: number): MessageDetail {
  const text = detailText(original);
  const detail: MessageDetail = { id: original.id, kind: kindOf(original), tokens, text };
  if (effective && effective !== original) {
    const effectiveText = detailText(effective);
    if (effectiveText !== text) detail.effectiveText = effectiveText;
  }
  return detail;
}

/** Full, readable text of a message: every block, tool inputs as indented JSON. */
export function detailText(m: Pick<Message, 'content'>): string {
  if (typeof m.content === 'string') return m.content;
  return m.content.map(detailBlock).join('\n\n');
}

function detailBlock(b: ContentBlock): string {
  switch (b.type) {
    case 'text':
      return String(b.text ?? '');
    case 'thinking':
      return `[thinking]\n${String(b.thinking ?? '')}`;
    case 'redacted_thinking':
      return '[redacted thinking]';
    case 'tool_use': {
      const u = b as ToolUseBlock;
      let input: string;
      try {
        input = JSON.stringify(u.input, null, 2) ?? 'null';
      } catch {
        input = String(u.input);
      }
      return `[tool_use ${u.name} · ${u.id}]\n${input}`;
    }
    case 'tool_result': {
      const r = b as ToolResultBlock;
      return `[tool_result ${r.tool_use_id}${r.is_error ? ' · error' : ''}]\n${toolResultText(r)}`;
    }
    case 'image':
      return imageLabel(b);
    case 'compaction': {
      const c = (b as { content?: unknown }).content;
      return typeof c === 'string' ? `[server compaction] ${c}` : '[server compaction failed]';
    }
    default:
      return `[${b.type}]`;
  }
}

/** An image block as the inspector names it: its size and what it costs (size unknown: the cap). */
function imageLabel(b: ContentBlock): string {
  const s = b.source as { type?: unknown; data?: unknown } | undefined;
  const info = s?.type === 'base64' && typeof s.data === 'string' ? base64ImageInfo(s.data) : undefined;
  if (!info) return `[image · ${MAX_IMAGE_TOKENS.toLocaleString('en-US')} tokens, size unknown]`;
  return `[image ${info.width}×${info.height} · ${imageTokensFor(info.width, info.height).toLocaleString('en-US')} tokens]`;
}
