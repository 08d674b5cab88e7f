// Session importers: read a conversation saved by Splitpoint, the Anthropic Messages API, Claude Code or
// the Codex CLI and turn it into Splitpoint's message model. Pure functions over text: no filesystem, no
// `vscode`. Malformed input throws an ImportError that names the file, the line and the field; what can be
// repaired (a tool call with no result, a result with no call, a rewound branch) is repaired and reported
// in `warnings`.
//
// Formats, and what the import keeps:
//  - splitpoint-jsonl: one Message per line, optionally after a header line. Exact round trip with
//    serializeSplitpointJsonl.
//  - anthropic-json: an array of MessageParam objects, or an object with a `messages` array (a saved request
//    body; `system`, `tools`, `model`… are ignored). Messages get the deterministic ids imp_0, imp_1, ….
//    Structural problems of the request (say, a tool_use with no tool_result) are reported as warnings.
//  - claude-code-jsonl (~/.claude/projects/<project>/<session>.jsonl): user/assistant lines of the main
//    chain, in file order. Assistant lines sharing `message.id` (Claude Code writes one content block per
//    line) are merged into one message; consecutive tool results into one user message. Sidechain
//    (sub-agent) lines — unless the whole file is one sub-agent's transcript —, meta and synthetic
//    API-error lines and every other line type (summary titles,
//    file-history-snapshot, system, progress, …) are skipped. When the parentUuid links are complete,
//    turns abandoned by a rewind or an edit are skipped (with a warning). A compaction summary
//    (`isCompactSummary`) becomes a synthetic 'summary' user message in its place; the history before it
//    is kept (the import is the full history, not only what the model saw last). Message id = `uuid`.
//  - codex-rollout-jsonl (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl, and the older un-enveloped
//    rollout lines): response_item messages, function/custom/local-shell calls and their outputs, mapped to
//    text, tool_use and tool_result blocks (tool_use id = call_id). Reasoning items are dropped: their
//    summaries carry no signature, and an unsigned thinking block would be rejected by the API. Developer
//    and system messages and the harness's context injections (<environment_context>, <user_instructions>,
//    AGENTS.md instructions) are skipped, as are event_msg, turn_context and session_meta lines. A
//    `compacted` line becomes a synthetic 'summary' user message. Message id = `codex_<line>`.
// For the last two, a tool call with no result or a result with no call is dropped with a warning naming
// its line, so the output satisfies requestViolations(toApiMessages(messages)) for any well-formed session.

import {
  isToolResult,
  isToolUse,
  toApiMessages,
  type ContentBlock,
  type Message,
  type Role,
  type SyntheticKind,
  type TextBlock,
  type ToolResultBlock,
  type ToolUseBlock,
  type TruncationNote,
} from './conversation';
import { requestViolations } from './invariants';

export type SessionFormat = 'splitpoint-jsonl' | 'anthropic-json' | 'claude-code-jsonl' | 'codex-rollout-jsonl';

/** Human-readable name of each supported format (for error messages and pickers). */
export const SESSION_FORMATS: Readonly<Record<SessionFormat, string>> = {
  'splitpoint-jsonl': 'Splitpoint JSONL',
  'anthropic-json': 'Anthropic Messages JSON (an array of messages, or an object with "messages")',
  'claude-code-jsonl': 'Claude Code session JSONL (~/.claude/projects)',
  'codex-rollout-jsonl': 'Codex CLI rollout JSONL (~/.codex/sessions)',
};

export const SPLITPOINT_HEADER_TYPE = 'splitpoint.header';
export const SPLITPOINT_FORMAT_VERSION = 1;

/** Optional fields of the Splitpoint JSONL header line; unknown extra fields survive a round trip. */
export interface SplitpointHeaderFields {
  sessionId?: string;
  /** Epoch ms. */
  createdAt?: number;
  [extra: string]: unknown;
}

/** The header line as written: `{"type":"splitpoint.header","version":1,...}`. */
export interface SplitpointHeader extends SplitpointHeaderFields {
  type: typeof SPLITPOINT_HEADER_TYPE;
  version: typeof SPLITPOINT_FORMAT_VERSION;
}

export interface ImportResult {
  format: SessionFormat;
  messages: Message[];
  /** Things repaired or skipped, as `FILE:LINE: what happened` sentences. */
  warnings: string[];
  /** The header line of a Splitpoint JSONL file, when it has one. */
  header?: SplitpointHeader;
}

/** A file that cannot be imported. `line` is 1-based (undefined for whole-file problems). */
export class ImportError extends Error {
  readonly file: string;
  readonly line: number | undefined;
  readonly field: string | undefined;
  /** What is wrong, without the location prefix. */
  readonly detail: string;

  constructor(file: string, line: number | undefined, field: string | undefined, detail: string) {
    super(`${file}${line !== undefined ? `:${line}` : ''}: ${field ? `${field}: ` : ''}${detail}`);
    this.name = 'ImportError';
    this.file = file;
    this.line = line;
    this.field = field;
    this.detail = detail;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Entry points

/** Which format `text` is in. Throws ImportError for an empty file or one in no supported format. */
export function detectFormat(text: string, fileName: string): SessionFormat {
  return sniff(stripBom(text), fileName).format;
}

/** Parse a session file in any supported format (detected from its content). */
export function importSession(text: string, fileName: string): ImportResult {
  const body = stripBom(text);
  const sniffed = sniff(body, fileName);
  switch (sniffed.format) {
    case 'anthropic-json':
      return importAnthropicJson(sniffed.json, fileName);
    case 'splitpoint-jsonl':
      return importSplitpointJsonl(parseJsonLines(body, fileName), fileName);
    case 'claude-code-jsonl':
      return importClaudeCode(parseJsonLines(body, fileName), fileName);
    case 'codex-rollout-jsonl':
      return importCodexRollout(parseJsonLines(body, fileName), fileName);
  }
}

/** Write messages (and an optional header) as Splitpoint JSONL; importSession reads it back unchanged. */
export function serializeSplitpointJsonl(
  messages: readonly Message[],
  header?: SplitpointHeaderFields | SplitpointHeader,
): string {
  const lines: string[] = [];
  if (header) {
    const { type: _type, version: _version, ...rest } = header;
    lines.push(JSON.stringify({ type: SPLITPOINT_HEADER_TYPE, version: SPLITPOINT_FORMAT_VERSION, ...rest }));
  }
  for (const m of messages) lines.push(JSON.stringify(canonicalMessage(m)));
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

function canonicalMessage(m: Message): Message {
  const out: Message = { id: m.id, role: m.role, content: m.content };
  if (m.synthetic !== undefined) out.synthetic = m.synthetic;
  if (m.truncated !== undefined) out.truncated = m.truncated;
  if (m.createdAt !== undefined) out.createdAt = m.createdAt;
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Detection

type Json = Record<string, unknown>;

interface JsonLine {
  line: number;
  value: Json;
}

interface Sniffed {
  format: SessionFormat;
  /** The parsed file, for whole-file JSON formats. */
  json?: unknown;
}

/** How many non-blank lines detection reads before giving up on an unrecognised JSONL file. */
const SNIFF_LINES = 50;

function sniff(text: string, file: string): Sniffed {
  if (text.trim() === '') throw new ImportError(file, undefined, undefined, 'the file is empty');
  let whole: unknown;
  let wholeError: Error | undefined;
  try {
    whole = JSON.parse(text);
  } catch (e) {
    wholeError = e instanceof Error ? e : new Error(String(e));
  }
  const lines = nonBlankLines(text);
  if (wholeError === undefined) {
    if (Array.isArray(whole) || (isObject(whole) && 'messages' in whole)) return { format: 'anthropic-json', json: whole };
    if (!isObject(whole) || lines.length > 1) throw unrecognised(file);
    // A single JSON object on one line: a one-line JSONL file.
  } else if (text.trimStart().startsWith('[') || (/\.json$/i.test(file) && !parsesAsObject(lines[0].raw))) {
    throw jsonSyntaxError(file, text, wholeError);
  }
  let examined = 0;
  for (const { line, raw } of lines) {
    const format = classifyLine(parseJsonLine(raw, line, file));
    if (format) return { format };
    if (++examined >= SNIFF_LINES) break;
  }
  throw unrecognised(file);
}

function unrecognised(file: string): ImportError {
  const names = Object.values(SESSION_FORMATS).join('; ');
  return new ImportError(file, undefined, undefined, `unrecognised session format; supported formats: ${names}`);
}

const CODEX_ENVELOPE_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);
const CODEX_ITEM_TYPES = new Set([
  'message',
  'reasoning',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'local_shell_call',
  'web_search_call',
]);
const CLAUDE_LINE_TYPES = new Set(['user', 'assistant', 'system', 'summary', 'file-history-snapshot', 'queue-operation', 'progress', 'attachment']);

/** The format one JSONL line belongs to, or undefined if the line alone does not tell. */
function classifyLine(o: Json): SessionFormat | undefined {
  const type = o.type;
  if (type === SPLITPOINT_HEADER_TYPE) return 'splitpoint-jsonl';
  if (typeof type === 'string' && CODEX_ENVELOPE_TYPES.has(type) && 'payload' in o) return 'codex-rollout-jsonl';
  if (o.record_type === 'state') return 'codex-rollout-jsonl';
  if (typeof type === 'string' && CODEX_ITEM_TYPES.has(type) && !('payload' in o) && !('uuid' in o)) return 'codex-rollout-jsonl';
  if (typeof o.id === 'string' && typeof o.timestamp === 'string' && 'instructions' in o && !('type' in o)) return 'codex-rollout-jsonl';
  if ('parentUuid' in o || 'isSidechain' in o) return 'claude-code-jsonl';
  if (typeof type === 'string' && CLAUDE_LINE_TYPES.has(type)) {
    if (isObject(o.message) || 'uuid' in o || 'sessionId' in o || 'leafUuid' in o || 'messageId' in o) return 'claude-code-jsonl';
  }
  if (typeof o.id === 'string' && 'role' in o && 'content' in o && !('type' in o)) return 'splitpoint-jsonl';
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------
// JSON plumbing

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function nonBlankLines(text: string): Array<{ line: number; raw: string }> {
  const out: Array<{ line: number; raw: string }> = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    if (raw.trim() !== '') out.push({ line: i + 1, raw });
  });
  return out;
}

function parseJsonLine(raw: string, line: number, file: string): Json {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (e) {
    throw new ImportError(file, line, undefined, `invalid JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!isObject(value)) throw new ImportError(file, line, undefined, `expected a JSON object, got ${describe(value)}`);
  return value;
}

function parseJsonLines(text: string, file: string): JsonLine[] {
  return nonBlankLines(text).map(({ line, raw }) => ({ line, value: parseJsonLine(raw, line, file) }));
}

function parsesAsObject(raw: string): boolean {
  try {
    return isObject(JSON.parse(raw));
  } catch {
    return false;
  }
}

function jsonSyntaxError(file: string, text: string, error: Error): ImportError {
  let line: number | undefined;
  const explicit = /\(line (\d+) column \d+\)/.exec(error.message);
  const position = /at position (\d+)/.exec(error.message);
  if (explicit) line = Number(explicit[1]);
  else if (position) line = text.slice(0, Number(position[1])).split('\n').length;
  return new ImportError(file, line, undefined, `invalid JSON: ${error.message}`);
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

function timestampMs(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
}

// ---------------------------------------------------------------------------------------------------------
// Content validation (shared by every format that stores Anthropic content blocks)

type Fail = (field: string, detail: string) => never;

function failAt(file: string, line: number | undefined): Fail {
  return (field, detail) => {
    throw new ImportError(file, line, field, detail);
  };
}

function checkRole(value: unknown, field: string, fail: Fail): Role {
  if (value !== 'user' && value !== 'assistant') fail(field, `expected "user" or "assistant", got ${describe(value)}`);
  return value;
}

function checkContent(value: unknown, field: string, fail: Fail): string | ContentBlock[] {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) return fail(field, `expected a string or an array of content blocks, got ${describe(value)}`);
  value.forEach((block, i) => checkBlock(block, `${field}[${i}]`, fail));
  return value as ContentBlock[];
}

function checkBlock(block: unknown, field: string, fail: Fail): void {
  if (!isObject(block)) return fail(field, `expected a content block object, got ${describe(block)}`);
  if (typeof block.type !== 'string' || block.type === '') return fail(`${field}.type`, `expected a block type, got ${describe(block.type)}`);
  switch (block.type) {
    case 'text':
      requireString(block, 'text', field, fail, 'a text block needs its text');
      break;
    case 'tool_use':
      requireString(block, 'id', field, fail, 'a tool_use block needs a non-empty id', true);
      requireString(block, 'name', field, fail, 'a tool_use block needs a non-empty name', true);
      if (!isObject(block.input)) fail(`${field}.input`, `expected an object, got ${describe(block.input)}`);
      break;
    case 'tool_result':
      requireString(block, 'tool_use_id', field, fail, 'a tool_result block needs the id of its tool_use', true);
      if (block.content !== undefined) {
        if (typeof block.content !== 'string' && !Array.isArray(block.content)) {
          fail(`${field}.content`, `expected a string or an array of content blocks, got ${describe(block.content)}`);
        }
        if (Array.isArray(block.content)) block.content.forEach((b, i) => checkBlock(b, `${field}.content[${i}]`, fail));
      }
      if (block.is_error !== undefined && block.is_error !== null && typeof block.is_error !== 'boolean') {
        fail(`${field}.is_error`, `expected true or false, got ${describe(block.is_error)}`);
      }
      break;
    case 'thinking':
      requireString(block, 'thinking', field, fail, 'a thinking block needs its text');
      if (block.signature !== undefined && typeof block.signature !== 'string') {
        fail(`${field}.signature`, `expected a string, got ${describe(block.signature)}`);
      }
      break;
    case 'redacted_thinking':
      requireString(block, 'data', field, fail, 'a redacted_thinking block needs its data');
      break;
    case 'image':
      if (!isObject(block.source)) fail(`${field}.source`, `expected an image source object, got ${describe(block.source)}`);
      break;
    default:
      break; // documents, server tools, …: kept as they are
  }
}

function requireString(block: Json, key: string, field: string, fail: Fail, missing: string, nonEmpty = false): void {
  const value = block[key];
  if (value === undefined) fail(`${field}.${key}`, `missing: ${missing}`);
  if (typeof value !== 'string') fail(`${field}.${key}`, `expected a string, got ${describe(value)}`);
  if (nonEmpty && value === '') fail(`${field}.${key}`, `expected a non-empty string, got ""`);
}

// ---------------------------------------------------------------------------------------------------------
// Splitpoint JSONL

function importSplitpointJsonl(lines: readonly JsonLine[], file: string): ImportResult {
  const warnings: string[] = [];
  const messages: Message[] = [];
  const idLines = new Map<string, number>();
  let header: SplitpointHeader | undefined;
  lines.forEach(({ line, value }, index) => {
    const fail = failAt(file, line);
    if (value.type === SPLITPOINT_HEADER_TYPE) {
      if (index !== 0) fail('type', 'the header must be the first line of the file');
      header = checkHeader(value, fail);
      return;
    }
    const message = checkMessage(value, fail);
    const first = idLines.get(message.id);
    if (first !== undefined) warnings.push(`${file}:${line}: duplicate message id ${message.id} (also on line ${first})`);
    else idLines.set(message.id, line);
    messages.push(message);
  });
  const result: ImportResult = { format: 'splitpoint-jsonl', messages, warnings };
  if (header) result.header = header;
  return result;
}

function checkHeader(value: Json, fail: Fail): SplitpointHeader {
  if (value.version !== SPLITPOINT_FORMAT_VERSION) {
    fail('version', `unsupported Splitpoint JSONL version ${describe(value.version)} (this build reads version ${SPLITPOINT_FORMAT_VERSION})`);
  }
  if (value.sessionId !== undefined && typeof value.sessionId !== 'string') fail('sessionId', `expected a string, got ${describe(value.sessionId)}`);
  if (value.createdAt !== undefined && !isFiniteNumber(value.createdAt)) fail('createdAt', `expected epoch milliseconds, got ${describe(value.createdAt)}`);
  return value as SplitpointHeader;
}

function checkMessage(value: Json, fail: Fail): Message {
  if (typeof value.id !== 'string' || value.id === '') fail('id', `expected a non-empty string, got ${describe(value.id)}`);
  const role = checkRole(value.role, 'role', fail);
  const content = checkContent(value.content, 'content', fail);
  const message: Message = { id: value.id as string, role, content };
  if (value.synthetic !== undefined) {
    if (value.synthetic !== 'summary' && value.synthetic !== 'placeholder') {
      fail('synthetic', `expected "summary" or "placeholder", got ${describe(value.synthetic)}`);
    }
    message.synthetic = value.synthetic as SyntheticKind;
  }
  if (value.truncated !== undefined) message.truncated = checkTruncation(value.truncated, fail);
  if (value.createdAt !== undefined) {
    if (!isFiniteNumber(value.createdAt)) fail('createdAt', `expected epoch milliseconds, got ${describe(value.createdAt)}`);
    message.createdAt = value.createdAt as number;
  }
  return message;
}

function checkTruncation(value: unknown, fail: Fail): TruncationNote {
  if (!isObject(value)) return fail('truncated', `expected an object, got ${describe(value)}`);
  if (typeof value.originalId !== 'string') fail('truncated.originalId', `expected a string, got ${describe(value.originalId)}`);
  if (!Array.isArray(value.results)) return fail('truncated.results', `expected an array, got ${describe(value.results)}`);
  value.results.forEach((r: unknown, i: number) => {
    const field = `truncated.results[${i}]`;
    if (!isObject(r)) return fail(field, `expected an object, got ${describe(r)}`);
    if (typeof r.toolUseId !== 'string') fail(`${field}.toolUseId`, `expected a string, got ${describe(r.toolUseId)}`);
    if (typeof r.toolName !== 'string') fail(`${field}.toolName`, `expected a string, got ${describe(r.toolName)}`);
    if (!isFiniteNumber(r.originalChars)) fail(`${field}.originalChars`, `expected a number, got ${describe(r.originalChars)}`);
  });
  return value as unknown as TruncationNote;
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

// ---------------------------------------------------------------------------------------------------------
// Anthropic Messages JSON

function importAnthropicJson(json: unknown, file: string): ImportResult {
  const fail = failAt(file, undefined);
  const list = Array.isArray(json) ? json : isObject(json) ? json.messages : undefined;
  if (!Array.isArray(list)) return fail('messages', `expected an array of messages, got ${describe(list)}`);
  const messages: Message[] = list.map((m: unknown, i: number) => {
    const field = `messages[${i}]`;
    if (!isObject(m)) return fail(field, `expected a message object, got ${describe(m)}`);
    const role = checkRole(m.role, `${field}.role`, fail);
    const content = checkContent(m.content, `${field}.content`, fail);
    return { id: `imp_${i}`, role, content };
  });
  const warnings = messages.length === 0
    ? [`${file}: the file holds no messages`]
    : requestViolations(toApiMessages(messages)).map((v) => `${file}: not a valid Messages API request: ${v}`);
  return { format: 'anthropic-json', messages, warnings };
}

// ---------------------------------------------------------------------------------------------------------
// Assembly of agent logs into API-valid messages (Claude Code and Codex)

interface Draft {
  id: string;
  role: Role;
  kind: 'prompt' | 'assistant' | 'results';
  blocks: ContentBlock[];
  /** A prompt that was a plain string keeps that form. */
  text?: string;
  synthetic?: SyntheticKind;
  createdAt?: number;
  /** Claude Code's `message.id`: lines of one API response share it. */
  mergeKey?: string;
}

interface OpenCall {
  draft: Draft;
  id: string;
  name: string;
  line: number;
}

/**
 * Builds messages from a log in order, keeping the Messages API's tool rules: every tool_use is answered
 * by a tool_result in the next user message, every tool_result answers a tool_use of the previous
 * assistant message. A call still unanswered when the conversation moves on (a new prompt, a new model
 * response after results, the end of the file) is dropped, as is a result for an unknown call.
 */
class Assembler {
  private readonly drafts: Draft[] = [];
  private readonly open = new Map<string, OpenCall>();
  private readonly answered = new Set<string>();
  private readonly seenCalls = new Set<string>();

  constructor(
    private readonly file: string,
    private readonly warnings: string[],
  ) {}

  /** Model output. `mergeKey` set: merge only into the draft with the same key (Claude Code message.id). */
  assistant(blocks: ContentBlock[], line: number, id: string, createdAt?: number, mergeKey?: string): void {
    const last = this.drafts.at(-1);
    let target: Draft | undefined;
    if (last?.kind === 'assistant' && (mergeKey === undefined || last.mergeKey === mergeKey)) {
      target = last;
    } else if (mergeKey !== undefined && last?.kind === 'results') {
      // One response's blocks interleaved with the results of its first calls: keep them in one message.
      const before = this.drafts.at(-2);
      if (before?.kind === 'assistant' && before.mergeKey === mergeKey) target = before;
    }
    if (!target) {
      if (last && last.kind !== 'assistant') this.closeOpen();
      target = { id, role: 'assistant', kind: 'assistant', blocks: [], createdAt, mergeKey };
      this.drafts.push(target);
    }
    for (const block of blocks) {
      if (isToolUse(block)) {
        if (this.seenCalls.has(block.id)) {
          const sameMessage = target.blocks.some((b) => isToolUse(b) && b.id === block.id);
          if (!sameMessage) this.warnings.push(`${this.file}:${line}: tool call ${block.id} appears twice; the repeat is dropped`);
          continue;
        }
        this.seenCalls.add(block.id);
        this.open.set(block.id, { draft: target, id: block.id, name: block.name, line });
      }
      target.blocks.push(block);
    }
  }

  /** Tool results (and whatever else the same user line carried, kept after the results). */
  results(results: ToolResultBlock[], others: ContentBlock[], line: number, id: string, createdAt?: number): void {
    const accepted: ToolResultBlock[] = [];
    for (const r of results) {
      if (this.open.has(r.tool_use_id)) {
        this.open.delete(r.tool_use_id);
        this.answered.add(r.tool_use_id);
        accepted.push(r);
      } else if (this.answered.has(r.tool_use_id)) {
        this.warnings.push(`${this.file}:${line}: a second result for tool call ${r.tool_use_id}; dropped`);
      } else {
        this.warnings.push(`${this.file}:${line}: tool result for ${r.tool_use_id} has no matching tool call before it; dropped`);
      }
    }
    let last = this.drafts.at(-1);
    if (accepted.length > 0 && last?.kind !== 'results') {
      last = { id, role: 'user', kind: 'results', blocks: [], createdAt };
      this.drafts.push(last);
    }
    if (last?.kind === 'results' && (accepted.length > 0 || others.length > 0)) {
      const blocks = last.blocks;
      last.blocks = [...blocks.filter(isToolResult), ...accepted, ...blocks.filter((b) => !isToolResult(b)), ...others];
    } else if (others.length > 0) {
      this.prompt(others, line, id, createdAt);
    }
  }

  /** A user turn (or a synthetic summary standing in for one). */
  prompt(content: string | ContentBlock[], line: number, id: string, createdAt?: number, synthetic?: SyntheticKind): void {
    this.closeOpen();
    const blocks: ContentBlock[] = typeof content === 'string' ? [{ type: 'text', text: content }] : content;
    if (blocks.length === 0) return;
    const draft: Draft = { id, role: 'user', kind: 'prompt', blocks, createdAt, synthetic };
    if (typeof content === 'string') draft.text = content;
    this.drafts.push(draft);
  }

  finish(): Message[] {
    this.closeOpen();
    return this.drafts
      .filter((d) => d.blocks.length > 0)
      .map((d) => {
        const message: Message = { id: d.id, role: d.role, content: d.text !== undefined ? d.text : d.blocks };
        if (d.synthetic) message.synthetic = d.synthetic;
        if (d.createdAt !== undefined) message.createdAt = d.createdAt;
        return message;
      });
  }

  private closeOpen(): void {
    for (const call of this.open.values()) {
      call.draft.blocks = call.draft.blocks.filter((b) => !(isToolUse(b) && b.id === call.id));
      this.warnings.push(`${this.file}:${call.line}: tool call ${call.id} (${call.name}) has no result; dropped`);
    }
    this.open.clear();
  }
}

/** Drop empty and whitespace-only text blocks (the API rejects them). */
function nonBlank(blocks: readonly ContentBlock[]): ContentBlock[] {
  return blocks.filter((b) => !(b.type === 'text' && typeof b.text === 'string' && b.text.trim() === ''));
}

// ---------------------------------------------------------------------------------------------------------
// Claude Code session JSONL

interface ClaudeEntry {
  line: number;
  id: string;
  type: 'user' | 'assistant';
  content: string | ContentBlock[];
  messageId?: string;
  compactSummary: boolean;
  createdAt?: number;
}

function importClaudeCode(lines: readonly JsonLine[], file: string): ImportResult {
  const warnings: string[] = [];
  // Every line with a uuid, first occurrence only (resumed sessions can repeat lines).
  const firstLine = new Map<string, number>();
  const entries: JsonLine[] = [];
  for (const l of lines) {
    const uuid = l.value.uuid;
    if (typeof uuid === 'string') {
      const first = firstLine.get(uuid);
      if (first !== undefined) {
        warnings.push(`${file}:${l.line}: repeats uuid ${uuid} of line ${first}; skipped`);
        continue;
      }
      firstLine.set(uuid, l.line);
    }
    entries.push(l);
  }

  const allMessageLines = entries.filter((l) => l.value.type === 'user' || l.value.type === 'assistant');
  // A sub-agent's own transcript (agent-*.jsonl) is all sidechain: then the sidechain is the conversation.
  const sidechain = allMessageLines.length > 0 && allMessageLines.every((l) => l.value.isSidechain === true);
  const messageLines = allMessageLines.filter((l) => (l.value.isSidechain === true) === sidechain);
  const active = activeBranch(entries, messageLines, sidechain);
  const assembler = new Assembler(file, warnings);
  const abandoned: number[] = [];
  for (const l of messageLines) {
    if (l.value.isMeta === true || l.value.isApiErrorMessage === true) continue;
    const entry = parseClaudeEntry(l, file);
    if (active && !active.has(entry.id)) {
      abandoned.push(l.line);
      continue;
    }
    if (entry.type === 'assistant') {
      const blocks = nonBlank(typeof entry.content === 'string' ? [{ type: 'text', text: entry.content }] : entry.content);
      if (blocks.length > 0) assembler.assistant(blocks, entry.line, entry.id, entry.createdAt, entry.messageId);
    } else if (entry.compactSummary) {
      assembler.prompt(entry.content, entry.line, entry.id, entry.createdAt, 'summary');
    } else if (typeof entry.content === 'string') {
      if (entry.content.trim() !== '') assembler.prompt(entry.content, entry.line, entry.id, entry.createdAt);
    } else {
      const blocks = nonBlank(entry.content);
      const results = blocks.filter(isToolResult).map(normalizeResult);
      const others = blocks.filter((b) => !isToolResult(b));
      if (results.length > 0) assembler.results(results, others, entry.line, entry.id, entry.createdAt);
      else assembler.prompt(others, entry.line, entry.id, entry.createdAt);
    }
  }
  if (abandoned.length > 0) {
    const shown = abandoned.slice(0, 10).join(', ') + (abandoned.length > 10 ? ', …' : '');
    warnings.unshift(`${file}: skipped ${abandoned.length} message line(s) on branches abandoned by a rewind or an edit (lines ${shown})`);
  }
  const messages = assembler.finish();
  if (messages.length === 0) warnings.push(`${file}: no conversation messages found`);
  return { format: 'claude-code-jsonl', messages, warnings };
}

function parseClaudeEntry(l: JsonLine, file: string): ClaudeEntry {
  const fail = failAt(file, l.line);
  const v = l.value;
  const type = v.type as 'user' | 'assistant';
  if (!isObject(v.message)) return fail('message', `expected the ${type} message object, got ${describe(v.message)}`);
  const message = v.message;
  if (message.role !== undefined && message.role !== type) {
    fail('message.role', `expected "${type}" (the line's type), got ${describe(message.role)}`);
  }
  const content = checkContent(message.content, 'message.content', fail);
  return {
    line: l.line,
    id: typeof v.uuid === 'string' && v.uuid !== '' ? v.uuid : `claude_${l.line}`,
    type,
    content,
    messageId: typeof message.id === 'string' ? message.id : undefined,
    compactSummary: v.isCompactSummary === true,
    createdAt: timestampMs(v.timestamp),
  };
}

function normalizeResult(block: ToolResultBlock): ToolResultBlock {
  if (block.is_error !== null) return block;
  const { is_error: _null, ...rest } = block;
  return rest as ToolResultBlock;
}

/**
 * The uuids of the message lines on the conversation's current branch, or undefined when every line is
 * to be kept (no parentUuid links, a dangling link, a cycle: the file is then read as one linear chain).
 * The branch is the ancestry of the last main-chain message line, through compact boundaries
 * (logicalParentUuid), plus the lines that ancestry cannot reach but that belong to it: the other lines of
 * its assistant responses (same message.id) and the results of its tool calls (parallel calls hang their
 * results off different lines, so the chain is a tree there).
 */
function activeBranch(entries: readonly JsonLine[], messageLines: readonly JsonLine[], sidechain: boolean): Set<string> | undefined {
  if (messageLines.length === 0 || messageLines.some((l) => typeof l.value.uuid !== 'string')) return undefined;
  const byUuid = new Map<string, JsonLine>();
  for (const l of entries) {
    if (typeof l.value.uuid === 'string' && (l.value.isSidechain === true) === sidechain) byUuid.set(l.value.uuid, l);
  }
  const kept = new Set<string>();
  let current: JsonLine | undefined = messageLines[messageLines.length - 1];
  while (current) {
    const uuid = current.value.uuid as string;
    if (kept.has(uuid)) return undefined;
    kept.add(uuid);
    let parent = current.value.parentUuid;
    if (parent === null && typeof current.value.logicalParentUuid === 'string') parent = current.value.logicalParentUuid;
    if (parent === null) {
      // A root. A compaction summary with no boundary line above it would hide the history before it.
      if (current.value.isCompactSummary === true || current.value.subtype === 'compact_boundary') return undefined;
      break;
    }
    if (typeof parent !== 'string') return undefined;
    current = byUuid.get(parent);
    if (!current) return undefined;
  }

  const responseIds = new Set<string>();
  for (const l of messageLines) {
    const id = assistantMessageId(l);
    if (id !== undefined && kept.has(l.value.uuid as string)) responseIds.add(id);
  }
  for (const l of messageLines) {
    const id = assistantMessageId(l);
    if (id !== undefined && responseIds.has(id)) kept.add(l.value.uuid as string);
  }
  const callIds = new Set<string>();
  for (const l of messageLines) {
    if (l.value.type === 'assistant' && kept.has(l.value.uuid as string)) {
      for (const b of rawBlocks(l)) if (b.type === 'tool_use' && typeof b.id === 'string') callIds.add(b.id);
    }
  }
  for (const l of messageLines) {
    if (l.value.type !== 'user') continue;
    if (rawBlocks(l).some((b) => b.type === 'tool_result' && typeof b.tool_use_id === 'string' && callIds.has(b.tool_use_id))) {
      kept.add(l.value.uuid as string);
    }
  }
  return kept;
}

function assistantMessageId(l: JsonLine): string | undefined {
  if (l.value.type !== 'assistant' || !isObject(l.value.message)) return undefined;
  return typeof l.value.message.id === 'string' ? l.value.message.id : undefined;
}

function rawBlocks(l: JsonLine): Json[] {
  const content = isObject(l.value.message) ? l.value.message.content : undefined;
  return Array.isArray(content) ? content.filter(isObject) : [];
}

// ---------------------------------------------------------------------------------------------------------
// Codex CLI rollout JSONL

/** User-role text the Codex harness injects (instructions, environment): not part of the conversation. */
const CODEX_INJECTION_PREFIXES = [
  '<environment_context>',
  '<user_instructions>',
  '# AGENTS.md instructions for',
  '<INSTRUCTIONS>',
  '<recommended_plugins>',
];

/** Response items that carry nothing to import: skipped without a warning. */
const CODEX_SILENT_ITEMS = new Set(['reasoning', 'web_search_call', 'ghost_snapshot', 'compaction', 'compaction_summary']);

function importCodexRollout(lines: readonly JsonLine[], file: string): ImportResult {
  const warnings: string[] = [];
  const assembler = new Assembler(file, warnings);
  const unknown = new Map<string, { count: number; line: number }>();
  const noteUnknown = (what: string, line: number): void => {
    const seen = unknown.get(what);
    if (seen) seen.count++;
    else unknown.set(what, { count: 1, line });
  };

  for (const { line, value } of lines) {
    const fail = failAt(file, line);
    const createdAt = timestampMs(value.timestamp);
    if (value.record_type !== undefined) continue; // legacy state marker
    const type = value.type;
    if (typeof type === 'string' && CODEX_ENVELOPE_TYPES.has(type)) {
      if (type === 'session_meta' || type === 'event_msg' || type === 'turn_context') continue;
      if (!isObject(value.payload)) fail('payload', `expected an object, got ${describe(value.payload)}`);
      const payload = value.payload as Json;
      if (type === 'compacted') {
        if (typeof payload.message !== 'string') fail('payload.message', `expected the summary text, got ${describe(payload.message)}`);
        const summary = payload.message as string;
        if (summary.trim() !== '') assembler.prompt(summary, line, `codex_${line}`, createdAt, 'summary');
        continue;
      }
      codexItem(payload, 'payload', line, createdAt, assembler, fail, noteUnknown, warnings, file);
    } else if (typeof type === 'string' && !('payload' in value)) {
      codexItem(value, '', line, createdAt, assembler, fail, noteUnknown, warnings, file); // legacy bare item
    } else if (type === undefined && typeof value.id === 'string' && typeof value.timestamp === 'string') {
      continue; // legacy session meta line
    } else {
      noteUnknown(`line type ${describe(type)}`, line);
    }
  }
  for (const [what, { count, line }] of unknown) {
    warnings.push(`${file}:${line}: skipped ${count} line(s) of unknown ${what}`);
  }
  const messages = assembler.finish();
  if (messages.length === 0) warnings.push(`${file}: no conversation messages found`);
  return { format: 'codex-rollout-jsonl', messages, warnings };
}

function codexItem(
  item: Json,
  prefix: string,
  line: number,
  createdAt: number | undefined,
  assembler: Assembler,
  fail: Fail,
  noteUnknown: (what: string, line: number) => void,
  warnings: string[],
  file: string,
): void {
  const at = (key: string): string => (prefix ? `${prefix}.${key}` : key);
  const id = `codex_${line}`;
  const type = item.type;
  if (typeof type !== 'string') return fail(at('type'), `expected an item type, got ${describe(type)}`);
  switch (type) {
    case 'message': {
      const role = item.role;
      if (typeof role !== 'string') return fail(at('role'), `expected a role, got ${describe(role)}`);
      if (!Array.isArray(item.content)) return fail(at('content'), `expected an array of content items, got ${describe(item.content)}`);
      if (role === 'developer' || role === 'system') return;
      if (role !== 'user' && role !== 'assistant') {
        noteUnknown(`message role ${describe(role)}`, line);
        return;
      }
      const blocks: ContentBlock[] = [];
      item.content.forEach((c: unknown, i: number) => {
        const field = at(`content[${i}]`);
        if (!isObject(c)) return fail(field, `expected a content item object, got ${describe(c)}`);
        if (c.type === 'input_text' || c.type === 'output_text') {
          if (typeof c.text !== 'string') return fail(`${field}.text`, `expected a string, got ${describe(c.text)}`);
          if (role === 'user' && isCodexInjection(c.text)) return;
          if (c.text.trim() !== '') blocks.push({ type: 'text', text: c.text });
        } else if (c.type === 'input_image') {
          if (typeof c.image_url !== 'string') return fail(`${field}.image_url`, `expected a string, got ${describe(c.image_url)}`);
          blocks.push(imageBlock(c.image_url));
        } else {
          noteUnknown(`content item type ${describe(c.type)}`, line);
        }
      });
      if (blocks.length === 0) return;
      if (role === 'assistant') assembler.assistant(blocks, line, id, createdAt);
      else assembler.prompt(blocks.length === 1 && blocks[0].type === 'text' ? (blocks[0] as TextBlock).text : blocks, line, id, createdAt);
      return;
    }
    case 'function_call': {
      const callId = requireCodexString(item, 'call_id', at, fail);
      const name = requireCodexString(item, 'name', at, fail);
      const input = codexArguments(item.arguments, at('arguments'), fail, (why) =>
        warnings.push(`${file}:${line}: arguments of tool call ${callId} (${name}) ${why}; kept as {"raw": …}`),
      );
      assembler.assistant([toolUse(callId, name, input)], line, id, createdAt);
      return;
    }
    case 'custom_tool_call': {
      const callId = requireCodexString(item, 'call_id', at, fail);
      const name = requireCodexString(item, 'name', at, fail);
      if (typeof item.input !== 'string') return fail(at('input'), `expected a string, got ${describe(item.input)}`);
      assembler.assistant([toolUse(callId, name, { input: item.input })], line, id, createdAt);
      return;
    }
    case 'local_shell_call': {
      const callId = typeof item.call_id === 'string' && item.call_id !== '' ? item.call_id : item.id;
      if (typeof callId !== 'string' || callId === '') return fail(at('call_id'), `expected a non-empty string, got ${describe(item.call_id)}`);
      const action = isObject(item.action) ? item.action : {};
      assembler.assistant([toolUse(callId, 'local_shell', action)], line, id, createdAt);
      return;
    }
    case 'function_call_output':
    case 'custom_tool_call_output': {
      const callId = requireCodexString(item, 'call_id', at, fail);
      assembler.results([codexResult(callId, item.output, at('output'), fail)], [], line, id, createdAt);
      return;
    }
    default:
      if (!CODEX_SILENT_ITEMS.has(type)) noteUnknown(`response item type ${describe(type)}`, line);
  }
}

function isCodexInjection(text: string): boolean {
  const start = text.trimStart();
  return CODEX_INJECTION_PREFIXES.some((p) => start.startsWith(p));
}

function requireCodexString(item: Json, key: string, at: (key: string) => string, fail: Fail): string {
  const value = item[key];
  if (typeof value !== 'string' || value === '') {
    const missing = `missing: a ${String(item.type)} item needs its ${key}`;
    return fail(at(key), value === undefined ? missing : `expected a non-empty string, got ${describe(value)}`);
  }
  return value;
}

function toolUse(id: string, name: string, input: unknown): ToolUseBlock {
  return { type: 'tool_use', id, name, input };
}

/** Codex sends arguments as a JSON string; the Messages API wants an object. */
function codexArguments(value: unknown, field: string, fail: Fail, warn: (why: string) => void): Json {
  if (isObject(value)) return value;
  if (typeof value !== 'string') return fail(field, `expected a JSON string, got ${describe(value)}`);
  if (value.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    warn('are not valid JSON');
    return { raw: value };
  }
  if (isObject(parsed)) return parsed;
  warn('are not a JSON object');
  return { raw: value };
}

/**
 * A function_call_output's `output`: a string (the usual form), an array of input_text/input_image items
 * (tools returning structured content), or, in older rollouts, `{content, success}`.
 */
function codexResult(callId: string, output: unknown, field: string, fail: Fail): ToolResultBlock {
  const result: ToolResultBlock = { type: 'tool_result', tool_use_id: callId };
  if (typeof output === 'string') {
    if (output !== '') result.content = output;
  } else if (Array.isArray(output)) {
    const blocks: Array<TextBlock | ContentBlock> = [];
    output.forEach((c: unknown, i: number) => {
      if (!isObject(c)) return fail(`${field}[${i}]`, `expected a content item object, got ${describe(c)}`);
      if ((c.type === 'input_text' || c.type === 'output_text') && typeof c.text === 'string') blocks.push({ type: 'text', text: c.text });
      else if (c.type === 'input_image' && typeof c.image_url === 'string') blocks.push(imageBlock(c.image_url));
      else return fail(`${field}[${i}]`, `expected an input_text or input_image item, got type ${describe(c.type)}`);
    });
    if (blocks.length > 0) result.content = blocks as ToolResultBlock['content'];
  } else if (isObject(output) && typeof output.content === 'string') {
    if (output.content !== '') result.content = output.content;
    if (output.success === false) result.is_error = true;
  } else {
    return fail(field, `expected a string or an array of content items, got ${describe(output)}`);
  }
  return result;
}

function imageBlock(url: string): ContentBlock {
  const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (data) return { type: 'image', source: { type: 'base64', media_type: data[1], data: data[2] } };
  return { type: 'image', source: { type: 'url', url } };
}
