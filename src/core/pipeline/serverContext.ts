// Server-side context management (issue 14, section 4): the Messages API's own context editing and
// compaction, as two strategies. What the documentation says, and where (read 2026-11-23):
//
// Context editing — https://platform.claude.com/docs/en/build-with-claude/context-editing (beta header
// `context-management-2025-06-27`); SDK types BetaClearToolUses20250919Edit / …EditResponse in
// @anthropic-ai/sdk resources/beta/messages/messages.d.ts:
// - the request carries `context_management: { edits: [{ type: 'clear_tool_uses_20250919', … }] }`;
// - `trigger` {type: 'input_tokens' (or 'tool_uses'), value}, default 100,000 input tokens: the edit
//   runs only when the request is over it;
// - "the API automatically clears the oldest tool results in chronological order, replacing them with
//   placeholder text"; `keep` {type: 'tool_uses', value} (default 3) most recent tool uses survive;
//   `exclude_tools` names tools whose uses are never cleared; `clear_tool_inputs` (bool, or a list of
//   tool names) clears the tool_use inputs too (default: only results);
// - `clear_at_least` {type: 'input_tokens', value}: "context will only be modified if at least this
//   many tokens can be removed" (so one cache invalidation buys enough);
// - editing is applied server-side before the prompt reaches the model; the client keeps and sends its
//   full, unmodified history; usage.input_tokens is what the model saw (after clearing);
// - the response reports `context_management.applied_edits`: [{type, cleared_tool_uses,
//   cleared_input_tokens}].
//
// Compaction — https://platform.claude.com/docs/en/build-with-claude/compaction (beta header
// `compact-2026-01-12`); SDK types BetaCompact20260112Edit, BetaCompactionBlock(Param):
// - edit `{ type: 'compact_20260112', trigger?: {type: 'input_tokens', value} (default 150,000, at
//   least 50,000), instructions? (replace the summarization prompt), pause_after_compaction? }`;
// - over the trigger, the server summarizes the conversation and the reply opens with a `compaction`
//   content block `{ type: 'compaction', content: summary }`, then continues from that summary;
// - the client sends the block back in the assistant message; the API ignores everything before the
//   last compaction block (the client may drop those messages itself);
// - `pause_after_compaction`: the reply is the compaction block alone, with stop_reason
//   'compaction'; the client appends it and sends the request again to continue;
// - a compaction block with `content: null` is a failed compaction: clients may round-trip it and the
//   server treats it as a no-op (nothing was compacted).
//
// The strategies' plans EMULATE these rules on the local history (inspector preview); the agent sends
// the edit and records what the server reported; the server's answer is the truth.
import {
  blocksOf,
  toolNamesById,
  type ContentBlock,
  type Message,
  type ToolResultBlock,
  type ToolUseBlock,
} from '../conversation/conversation';
import type { PlanContext } from './plan';
import type { ReplacementCache } from './replacementCache';
import type { ServerContextOptions, ServerContextReport, ServerStrategyName } from './serverContextTypes';

export type { ServerContextOptions, ServerContextReport, ServerStrategyName } from './serverContextTypes';

export const CONTEXT_MANAGEMENT_BETA = 'context-management-2025-06-27';
export const COMPACT_BETA = 'compact-2026-01-12';
/** The documented floor of compact_20260112's trigger. */
export const MIN_COMPACT_TRIGGER = 50_000;
/** What this emulation (and the loopback server) puts in place of a cleared tool result; the docs do not quote the API's text. */
export const CLEARED_TOOL_RESULT_TEXT = '[Tool result cleared by server-side context management]';

export const SERVER_STRATEGIES: readonly ServerStrategyName[] = ['server-clear-tool-uses', 'server-compact'];

export function isServerStrategy(name: string): name is ServerStrategyName {
  return (SERVER_STRATEGIES as readonly string[]).includes(name);
}

export interface ClearToolUsesEdit {
  type: 'clear_tool_uses_20250919';
  trigger: { type: 'input_tokens'; value: number };
  keep: { type: 'tool_uses'; value: number };
  clear_at_least?: { type: 'input_tokens'; value: number };
  exclude_tools?: string[];
  clear_tool_inputs?: boolean;
}

export interface CompactEdit {
  type: 'compact_20260112';
  trigger: { type: 'input_tokens'; value: number };
  instructions?: string;
  pause_after_compaction?: boolean;
}

export type ServerContextEdit = ClearToolUsesEdit | CompactEdit;

/** What a request adds for a server strategy: the beta flag and the `context_management` body field. */
export interface ServerContextRequest {
  betas: string[];
  context_management: { edits: ServerContextEdit[] };
}

export function clearToolUsesEdit(params: Record<string, number>, options: ServerContextOptions = {}): ClearToolUsesEdit {
  const exclude = (options.excludeTools ?? []).filter((t) => t.trim() !== '');
  return {
    type: 'clear_tool_uses_20250919',
    trigger: { type: 'input_tokens', value: params.triggerTokens },
    keep: { type: 'tool_uses', value: params.keepToolUses },
    ...(params.clearAtLeast > 0 ? { clear_at_least: { type: 'input_tokens' as const, value: params.clearAtLeast } } : {}),
    ...(exclude.length > 0 ? { exclude_tools: [...exclude] } : {}),
    ...(params.clearToolInputs === 1 ? { clear_tool_inputs: true } : {}),
  };
}

export function compactEdit(params: Record<string, number>, options: ServerContextOptions = {}): CompactEdit {
  const instructions = options.instructions?.trim();
  return {
    type: 'compact_20260112',
    trigger: { type: 'input_tokens', value: params.triggerTokens },
    ...(instructions ? { instructions } : {}),
    ...(params.pauseAfterCompaction === 1 ? { pause_after_compaction: true } : {}),
  };
}

/** The request extras for a server strategy; null for every other strategy (nothing is sent). */
export function serverContextRequest(
  strategy: string,
  params: Record<string, number>,
  options: ServerContextOptions = {},
): ServerContextRequest | null {
  if (strategy === 'server-clear-tool-uses')
    return { betas: [CONTEXT_MANAGEMENT_BETA], context_management: { edits: [clearToolUsesEdit(params, options)] } };
  if (strategy === 'server-compact') return { betas: [COMPACT_BETA], context_management: { edits: [compactEdit(params, options)] } };
  return null;
}

// ---------------------------------------------------------------------------------------------
// What the server did, as recorded on the assistant message of the call

interface ReplyLike {
  content: readonly unknown[];
  context_management?: {
    applied_edits?: ReadonlyArray<{ type?: unknown; cleared_tool_uses?: unknown; cleared_input_tokens?: unknown }>;
  } | null;
}

/** The report for a reply to a request that carried `strategy`'s edit (null when the strategy is not a server one). */
export function serverContextReport(strategy: string, reply: ReplyLike): ServerContextReport | null {
  if (!isServerStrategy(strategy)) return null;
  const report: ServerContextReport = { strategy };
  if (strategy === 'server-clear-tool-uses') {
    let uses = 0;
    let tokens = 0;
    for (const e of reply.context_management?.applied_edits ?? []) {
      if (e.type !== 'clear_tool_uses_20250919') continue;
      uses += typeof e.cleared_tool_uses === 'number' ? e.cleared_tool_uses : 0;
      tokens += typeof e.cleared_input_tokens === 'number' ? e.cleared_input_tokens : 0;
    }
    report.clearedToolUses = uses;
    report.clearedInputTokens = tokens;
  }
  const block = reply.content.find((b): b is { type: 'compaction'; content?: unknown } => isCompactionBlock(b));
  if (block) report.compaction = typeof block.content === 'string' && block.content !== '' ? 'applied' : 'failed';
  return report;
}

function isCompactionBlock(b: unknown): boolean {
  return typeof b === 'object' && b !== null && (b as { type?: unknown }).type === 'compaction';
}

/** The summary of the message's compaction block (a successful one), if it has one. */
export function compactionSummaryOf(m: Pick<Message, 'content'>): string | undefined {
  if (typeof m.content === 'string') return undefined;
  for (const b of m.content) {
    const c = (b as { content?: unknown }).content;
    if (b.type === 'compaction' && typeof c === 'string' && c !== '') return c;
  }
  return undefined;
}

/** The blocks without failed (null-content) compaction blocks: no-ops the session need not keep. */
export function withoutFailedCompactions(blocks: readonly ContentBlock[]): ContentBlock[] {
  return blocks.filter((b) => !(b.type === 'compaction' && typeof (b as { content?: unknown }).content !== 'string'));
}

// ---------------------------------------------------------------------------------------------
// Emulation of clear_tool_uses_20250919 on a local history

export interface ClearToolUsesEmulation {
  /** The request's estimated input tokens (messages + overhead) and the trigger it was compared with. */
  inputTokens: number;
  trigger: number;
  fired: boolean;
  /** Tool uses that would be cleared, oldest first. */
  cleared: Array<{ toolUseId: string; name: string }>;
  clearedTokens: number;
  /** Fired, but fewer than clear_at_least tokens could be cleared: the server leaves the context alone. */
  belowClearAtLeast: boolean;
  /** The history as the model would see it (the input itself when nothing is cleared). */
  output: readonly Message[];
}

/** What the server would clear from `messages` under `edit` (tokens estimated with the plan context's counter). */
export function emulateClearToolUses(messages: readonly Message[], edit: ClearToolUsesEdit, ctx: PlanContext): ClearToolUsesEmulation {
  const inputTokens = (ctx.overheadTokens ?? 0) + ctx.tokens.countMessages(messages);
  const none = { inputTokens, trigger: edit.trigger.value, cleared: [], clearedTokens: 0, belowClearAtLeast: false, output: messages };
  if (inputTokens <= edit.trigger.value) return { ...none, fired: false };
  const uses: Array<{ toolUseId: string; name: string }> = [];
  for (const m of messages) if (m.role === 'assistant') for (const b of blocksOf(m)) if (b.type === 'tool_use') uses.push(toolUse(b));
  const excluded = new Set(edit.exclude_tools ?? []);
  const candidates = uses.slice(0, Math.max(0, uses.length - edit.keep.value)).filter((u) => !excluded.has(u.name));
  if (candidates.length === 0) return { ...none, fired: true };
  const ids = new Set(candidates.map((c) => c.toolUseId));
  const names = toolNamesById(messages);
  let clearedTokens = 0;
  const output = messages.map((m) => {
    const cleared = cachedClearedCopy(m, ids, names, edit.clear_tool_inputs === true, ctx.copies);
    if (cleared !== m) clearedTokens += ctx.tokens.countMessage(m) - ctx.tokens.countMessage(cleared);
    return cleared;
  });
  const atLeast = edit.clear_at_least?.value ?? 0;
  // clear_at_least, when set: the edit applies only if it removes at least that many tokens.
  if (atLeast > 0 && clearedTokens < atLeast) return { ...none, fired: true, belowClearAtLeast: true, clearedTokens };
  return { inputTokens, trigger: edit.trigger.value, fired: true, cleared: candidates, clearedTokens, belowClearAtLeast: false, output };
}

function toolUse(b: ContentBlock): { toolUseId: string; name: string } {
  const u = b as ToolUseBlock;
  return { toolUseId: u.id, name: u.name };
}

/**
 * clearedCopy through the session's ReplacementCache, so planning again over the same history returns the
 * same copy objects and the token memo already knows them (a preview at 1M tokens re-plans thousands).
 */
function cachedClearedCopy(
  m: Message,
  ids: ReadonlySet<string>,
  names: ReadonlyMap<string, string>,
  inputs: boolean,
  cache: ReplacementCache | undefined,
): Message {
  if (!cache || typeof m.content === 'string') return clearedCopy(m, ids, names, inputs);
  let key = '';
  for (const b of m.content) {
    if (b.type === 'tool_result' && ids.has((b as ToolResultBlock).tool_use_id)) key += `r:${(b as ToolResultBlock).tool_use_id}\u0000`;
    else if (inputs && b.type === 'tool_use' && ids.has((b as ToolUseBlock).id)) key += `u:${(b as ToolUseBlock).id}\u0000`;
  }
  return key === '' ? m : cache.get(m, `server-clear:${key}`, () => clearedCopy(m, ids, names, inputs));
}

/** A copy with the given tool uses' results (and, with `inputs`, their inputs) cleared; the message itself when none is in it. */
function clearedCopy(m: Message, ids: ReadonlySet<string>, names: ReadonlyMap<string, string>, inputs: boolean): Message {
  if (typeof m.content === 'string') return m;
  let changed = false;
  const results: Array<{ toolUseId: string; toolName: string; originalChars: number }> = [...(m.truncated?.results ?? [])];
  const content = m.content.map((b) => {
    if (b.type === 'tool_result' && ids.has((b as ToolResultBlock).tool_use_id)) {
      const r = b as ToolResultBlock;
      changed = true;
      const chars = typeof r.content === 'string' ? r.content.length : JSON.stringify(r.content ?? '').length;
      results.push({ toolUseId: r.tool_use_id, toolName: names.get(r.tool_use_id) ?? 'unknown tool', originalChars: chars });
      return { ...r, content: CLEARED_TOOL_RESULT_TEXT };
    }
    if (inputs && b.type === 'tool_use' && ids.has((b as ToolUseBlock).id)) {
      changed = true;
      return { ...(b as ToolUseBlock), input: {} };
    }
    return b;
  });
  if (!changed) return m;
  return results.length > (m.truncated?.results.length ?? 0) ? { ...m, content, truncated: { results } } : { ...m, content };
}
