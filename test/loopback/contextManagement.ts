/**
 * Server-side context management for LoopbackAnthropic, as the Messages API documents it (the rules
 * and their sources are written down in src/core/pipeline/serverContext.ts; this file is an independent
 * implementation of the server side, so the agent's tests check the agent against the documented
 * behaviour rather than against its own code).
 *
 * - `context_management: { edits: [...] }` is accepted only with the beta flag of each edit
 *   (`anthropic-beta: context-management-2025-06-27` for clear_tool_uses_20250919,
 *   `compact-2026-01-12` for compact_20260112); a malformed value is a 400 naming the field, in the
 *   API's pydantic style.
 * - Compaction blocks in the request: everything before the last one with content is ignored; blocks
 *   with `content: null` are no-ops (dropped); an empty string is rejected; they belong in assistant
 *   messages.
 * - clear_tool_uses_20250919: when the request (after dropping what precedes a compaction block) is
 *   over `trigger` input tokens, the tool results of every tool use but the `keep` most recent are
 *   replaced by a placeholder (tools in `exclude_tools` never), with their inputs too when
 *   `clear_tool_inputs`; if that clears fewer than `clear_at_least` tokens, nothing is cleared. The
 *   request is counted after clearing; `context_management.applied_edits` reports
 *   `{ type, cleared_tool_uses, cleared_input_tokens }` for each edit that applied.
 * - compact_20260112: when the request is over `trigger` (default 150,000; at least 50,000), the reply
 *   opens with a `compaction` block whose content is the summary (from the script), and the model's
 *   input is the summary alone; with `pause_after_compaction` the reply is that block alone with
 *   stop_reason 'compaction'. A scripted null summary is a failed compaction: a block with null content,
 *   and the reply goes on over the uncompacted context.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { MessagesRequestBody, WireBlock, WireMessage } from './wire';

export const CONTEXT_MANAGEMENT_BETA = 'context-management-2025-06-27';
export const COMPACT_BETA = 'compact-2026-01-12';
export const CLEARED_PLACEHOLDER = '[Tool result cleared by server-side context management]';
export const MIN_COMPACT_TRIGGER = 50_000;

export interface AppliedEdit {
  type: 'clear_tool_uses_20250919';
  cleared_tool_uses: number;
  cleared_input_tokens: number;
}

export interface PendingCompaction {
  pause: boolean;
  instructions: string | null;
  /** The messages the summary condenses (what the model would have seen). */
  messages: WireMessage[];
  inputTokens: number;
}

export interface ManagedContext {
  /** A 400 `invalid_request_error` message, when the request is malformed. */
  error?: string;
  /** What the model sees after the edits (compaction excepted: see `compaction`). */
  body: MessagesRequestBody;
  /** Input tokens as sent, and as the model sees them after clearing. */
  originalInputTokens: number;
  inputTokens: number;
  /** The response's `context_management` (null when the request had none). */
  response: { applied_edits: AppliedEdit[] } | null;
  /** Set when a compact_20260112 edit fires on this request. */
  compaction?: PendingCompaction;
}

interface ClearEdit {
  trigger: { type: 'input_tokens' | 'tool_uses'; value: number };
  keep: number;
  clearAtLeast: number;
  excludeTools: Set<string>;
  clearInputs: boolean | Set<string>;
}

interface CompactEditSpec {
  trigger: number;
  instructions: string | null;
  pause: boolean;
}

type Edit = { kind: 'clear'; spec: ClearEdit } | { kind: 'compact'; spec: CompactEditSpec };

/** Apply the request's context management; `count` is the server's token count of a body. */
export function manageContext(
  body: MessagesRequestBody,
  headers: IncomingHttpHeaders,
  count: (body: MessagesRequestBody) => number,
): ManagedContext {
  const originalInputTokens = count(body);
  const fail = (error: string): ManagedContext => ({ error, body, originalInputTokens, inputTokens: originalInputTokens, response: null });
  const betas = betaFlags(headers);
  const parsed = parseEdits(body.context_management, betas);
  if (typeof parsed === 'string') return fail(parsed);
  const blockProblem = checkCompactionBlocks(body.messages ?? [], betas);
  if (blockProblem) return fail(blockProblem);

  let current: MessagesRequestBody = { ...body, messages: afterLastCompaction(body.messages ?? []) };
  delete current.context_management;
  const applied: AppliedEdit[] = [];
  let compaction: PendingCompaction | undefined;
  for (const edit of parsed ?? []) {
    const tokens = count(current);
    if (edit.kind === 'clear') {
      const r = clearToolUses(current, edit.spec, tokens, count);
      if (r) {
        current = r.body;
        applied.push({
          type: 'clear_tool_uses_20250919',
          cleared_tool_uses: r.cleared,
          cleared_input_tokens: Math.max(0, tokens - count(current)),
        });
      }
    } else if (tokens > edit.spec.trigger && !compaction) {
      compaction = { pause: edit.spec.pause, instructions: edit.spec.instructions, messages: current.messages ?? [], inputTokens: tokens };
    }
  }
  return {
    body: current,
    originalInputTokens,
    inputTokens: count(current),
    response: parsed === undefined ? null : { applied_edits: applied },
    ...(compaction ? { compaction } : {}),
  };
}

function betaFlags(headers: IncomingHttpHeaders): Set<string> {
  const raw = headers['anthropic-beta'];
  const text = Array.isArray(raw) ? raw.join(',') : (raw ?? '');
  return new Set(
    text
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
}

// ---------------------------------------------------------------------------------------------
// Validation (pydantic-style messages, like the API's)

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

function extra(path: string, v: Record<string, unknown>, allowed: readonly string[]): string | undefined {
  const key = Object.keys(v).find((k) => !allowed.includes(k));
  return key === undefined ? undefined : `${path}.${key}: Extra inputs are not permitted`;
}

function tokenSpec(path: string, v: unknown, types: readonly string[], min: number): { type: string; value: number } | string {
  if (!isObj(v)) return `${path}: Input should be a valid dictionary`;
  const bad = extra(path, v, ['type', 'value']);
  if (bad) return bad;
  if (typeof v.type !== 'string' || !types.includes(v.type))
    return `${path}.type: Input should be ${types.map((t) => `'${t}'`).join(' or ')}`;
  if (!isInt(v.value)) return `${path}.value: Input should be a valid integer`;
  if (v.value < min) return `${path}.value: Input should be greater than or equal to ${min}`;
  return { type: v.type, value: v.value };
}

/** The edits, undefined when the request has no context_management, or the 400 message. */
function parseEdits(cm: unknown, betas: ReadonlySet<string>): Edit[] | undefined | string {
  if (cm === undefined || cm === null) return undefined;
  if (!isObj(cm)) return 'context_management: Input should be a valid dictionary';
  const bad = extra('context_management', cm, ['edits']);
  if (bad) return bad;
  if (cm.edits === undefined) return [];
  if (!Array.isArray(cm.edits)) return 'context_management.edits: Input should be a valid list';
  const edits: Edit[] = [];
  for (let i = 0; i < cm.edits.length; i++) {
    const path = `context_management.edits.${i}`;
    const e: unknown = cm.edits[i];
    if (!isObj(e)) return `${path}: Input should be a valid dictionary`;
    if (e.type === 'clear_tool_uses_20250919') {
      if (!betas.has(CONTEXT_MANAGEMENT_BETA))
        return `${path}: clear_tool_uses_20250919 requires the "anthropic-beta: ${CONTEXT_MANAGEMENT_BETA}" header`;
      const spec = parseClear(path, e);
      if (typeof spec === 'string') return spec;
      edits.push({ kind: 'clear', spec });
    } else if (e.type === 'compact_20260112') {
      if (!betas.has(COMPACT_BETA)) return `${path}: compact_20260112 requires the "anthropic-beta: ${COMPACT_BETA}" header`;
      const spec = parseCompact(path, e);
      if (typeof spec === 'string') return spec;
      edits.push({ kind: 'compact', spec });
    } else {
      const tags = "'clear_tool_uses_20250919', 'clear_thinking_20251015', 'compact_20260112'";
      return `${path}: Input tag '${String(e.type)}' found using 'type' does not match any of the expected tags: ${tags}`;
    }
  }
  return edits;
}

function parseClear(path: string, e: Record<string, unknown>): ClearEdit | string {
  const bad = extra(path, e, ['type', 'trigger', 'keep', 'clear_at_least', 'exclude_tools', 'clear_tool_inputs']);
  if (bad) return bad;
  const trigger =
    e.trigger === undefined
      ? { type: 'input_tokens', value: 100_000 }
      : tokenSpec(`${path}.trigger`, e.trigger, ['input_tokens', 'tool_uses'], 1);
  if (typeof trigger === 'string') return trigger;
  const keep = e.keep === undefined ? { type: 'tool_uses', value: 3 } : tokenSpec(`${path}.keep`, e.keep, ['tool_uses'], 0);
  if (typeof keep === 'string') return keep;
  const atLeast =
    e.clear_at_least == null
      ? { type: 'input_tokens', value: 0 }
      : tokenSpec(`${path}.clear_at_least`, e.clear_at_least, ['input_tokens'], 0);
  if (typeof atLeast === 'string') return atLeast;
  const exclude = e.exclude_tools ?? [];
  if (!Array.isArray(exclude) || !exclude.every((t) => typeof t === 'string'))
    return `${path}.exclude_tools: Input should be a valid list of strings`;
  const inputs = e.clear_tool_inputs ?? false;
  if (typeof inputs !== 'boolean' && !(Array.isArray(inputs) && inputs.every((t) => typeof t === 'string')))
    return `${path}.clear_tool_inputs: Input should be a valid boolean or a list of strings`;
  return {
    trigger: trigger as ClearEdit['trigger'],
    keep: keep.value,
    clearAtLeast: atLeast.value,
    excludeTools: new Set(exclude as string[]),
    clearInputs: typeof inputs === 'boolean' ? inputs : new Set(inputs as string[]),
  };
}

function parseCompact(path: string, e: Record<string, unknown>): CompactEditSpec | string {
  const bad = extra(path, e, ['type', 'trigger', 'instructions', 'pause_after_compaction']);
  if (bad) return bad;
  const trigger =
    e.trigger == null
      ? { type: 'input_tokens', value: 150_000 }
      : tokenSpec(`${path}.trigger`, e.trigger, ['input_tokens'], MIN_COMPACT_TRIGGER);
  if (typeof trigger === 'string') return trigger;
  if (e.instructions != null && typeof e.instructions !== 'string') return `${path}.instructions: Input should be a valid string`;
  if (e.pause_after_compaction !== undefined && typeof e.pause_after_compaction !== 'boolean')
    return `${path}.pause_after_compaction: Input should be a valid boolean`;
  return {
    trigger: trigger.value,
    instructions: (e.instructions as string | null | undefined) ?? null,
    pause: e.pause_after_compaction === true,
  };
}

function checkCompactionBlocks(messages: readonly WireMessage[], betas: ReadonlySet<string>): string | undefined {
  for (let i = 0; i < messages.length; i++) {
    const content = messages[i]?.content;
    if (!Array.isArray(content)) continue;
    for (let j = 0; j < content.length; j++) {
      const b = content[j];
      if (b?.type !== 'compaction') continue;
      const path = `messages.${i}.content.${j}`;
      if (!betas.has(COMPACT_BETA)) return `${path}: compaction blocks require the "anthropic-beta: ${COMPACT_BETA}" header`;
      if (messages[i]!.role !== 'assistant') return `${path}: compaction blocks are only allowed in assistant messages`;
      if (b.content !== null && b.content !== undefined && typeof b.content !== 'string')
        return `${path}.content: Input should be a valid string`;
      if (b.content === '') return `${path}.content: compaction content must not be empty (use null for a failed compaction)`;
    }
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Compaction blocks in the request

/** Messages from the last compaction block with content on (that message keeps only the block and what follows); null-content blocks dropped. */
export function afterLastCompaction(messages: readonly WireMessage[]): WireMessage[] {
  let at = -1;
  let block = -1;
  messages.forEach((m, i) => {
    if (!Array.isArray(m.content)) return;
    m.content.forEach((b, j) => {
      if (b?.type === 'compaction' && typeof b.content === 'string') [at, block] = [i, j];
    });
  });
  const kept =
    at === -1
      ? [...messages]
      : [{ ...messages[at]!, content: (messages[at]!.content as WireBlock[]).slice(block) }, ...messages.slice(at + 1)];
  return kept
    .map((m) =>
      Array.isArray(m.content) ? { ...m, content: m.content.filter((b) => !(b?.type === 'compaction' && b.content == null)) } : m,
    )
    .filter((m) => typeof m.content === 'string' || m.content.length > 0);
}

// ---------------------------------------------------------------------------------------------
// clear_tool_uses_20250919

function clearToolUses(
  body: MessagesRequestBody,
  edit: ClearEdit,
  tokens: number,
  count: (body: MessagesRequestBody) => number,
): { body: MessagesRequestBody; cleared: number } | undefined {
  const messages = body.messages ?? [];
  const uses: Array<{ id: string; name: string }> = [];
  for (const m of messages) {
    if (m.role !== 'assistant' || !Array.isArray(m.content)) continue;
    for (const b of m.content) if (b?.type === 'tool_use') uses.push({ id: String(b.id), name: String(b.name) });
  }
  const over = edit.trigger.type === 'tool_uses' ? uses.length > edit.trigger.value : tokens > edit.trigger.value;
  if (!over) return undefined;
  const clear = uses.slice(0, Math.max(0, uses.length - edit.keep)).filter((u) => !edit.excludeTools.has(u.name));
  if (clear.length === 0) return undefined;
  const ids = new Map(clear.map((u) => [u.id, u.name]));
  const inputs = (name: string): boolean => (edit.clearInputs instanceof Set ? edit.clearInputs.has(name) : edit.clearInputs);
  const next: WireMessage[] = messages.map((m) => {
    if (!Array.isArray(m.content)) return m;
    return {
      ...m,
      content: m.content.map((b) => {
        if (b?.type === 'tool_result' && ids.has(String(b.tool_use_id))) return { ...b, content: CLEARED_PLACEHOLDER };
        if (b?.type === 'tool_use' && ids.has(String(b.id)) && inputs(String(b.name))) return { ...b, input: {} };
        return b;
      }),
    };
  });
  const out = { ...body, messages: next };
  if (edit.clearAtLeast > 0 && tokens - count(out) < edit.clearAtLeast) return undefined;
  return { body: out, cleared: clear.length };
}

// ---------------------------------------------------------------------------------------------
// compact_20260112: the summary and the reply

/** A default summary when the script gives none: what was condensed, by message count and last user text. */
export function defaultCompactionSummary(c: PendingCompaction): string {
  const last = [...c.messages].reverse().find((m) => m.role === 'user');
  const text = typeof last?.content === 'string' ? last.content : '';
  return `Summary of ${c.messages.length} earlier messages (${c.inputTokens} tokens).${text ? ` The last request was: ${text.slice(0, 200)}` : ''}`;
}

/** The body the model continues from after a successful compaction: the summary in place of the messages. */
export function compactedBody(body: MessagesRequestBody, summary: string): MessagesRequestBody {
  return { ...body, messages: [{ role: 'assistant', content: [{ type: 'compaction', content: summary }] }] };
}
