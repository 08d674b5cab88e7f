// The message model: Anthropic MessageParam-compatible content blocks, plus the little metadata the
// engine needs (a stable id, synthetic marking, micro-compaction notes). Pure data, no `vscode`.

import type { ServerContextReport } from '../pipeline/serverContextTypes';
export type Role = 'user' | 'assistant';

export interface TextBlock {
  type: 'text';
  text: string;
  [extra: string]: unknown;
}

export interface ImageBlock {
  type: 'image';
  source: unknown;
  [extra: string]: unknown;
}

export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
  [extra: string]: unknown;
}

export type ToolResultContent = string | Array<TextBlock | ImageBlock | OpaqueBlock>;

export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content?: ToolResultContent;
  is_error?: boolean;
  [extra: string]: unknown;
}

export interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature?: string;
  [extra: string]: unknown;
}

export interface RedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
  [extra: string]: unknown;
}

/** Any block type the engine does not interpret (documents, server tools, …): kept as-is. */
export interface OpaqueBlock {
  type: string;
  [extra: string]: unknown;
}

export type ContentBlock = TextBlock | ImageBlock | ToolUseBlock | ToolResultBlock | ThinkingBlock | RedactedThinkingBlock | OpaqueBlock;

/** What kind of synthetic message this is; absent on everything a user or the model produced. */
export type SyntheticKind = 'summary' | 'placeholder';

/** A note left on a message whose tool results micro-compaction replaced. */
export interface TruncationNote {
  /** tool_use_id of each replaced result, with the size of what was replaced. */
  results: Array<{
    toolUseId: string;
    toolName: string;
    originalChars: number;
    /** Set when the result was replaced because a later call superseded it: what happened, e.g. "a.ts was read again in call 57". */
    superseded?: string;
  }>;
}

/**
 * A user-role message that a person did not type as a prompt: a tool or harness artefact recorded by
 * another agent. Shown in the inspector, never counted as a genuine prompt or a turn start.
 * - `command`: a slash-command stub (`<command-name>…`); its body, when recorded, is the prompt.
 * - `command-output`: `<local-command-stdout>` / `<local-command-stderr>`.
 * - `interruption`: `[Request interrupted by user…]`, Codex `<turn_aborted>`.
 * - `notification`: `<task-notification>`, system reminders and hook output injected as user text.
 * - `shell-input`: `<bash-input>` / `<bash-stdout>` (the user ran a shell command in the UI).
 * - `attachment`: content the harness attached (re-attached files after a compaction, IDE context).
 * - `meta`: other `isMeta` user lines (skill bodies, caveats) that are not a prompt's content.
 * - `instructions`: standing instructions the harness injected (Codex's AGENTS.md and user instructions,
 *   Claude Code's CLAUDE.md memory re-attached after a compaction): the project's rules, not a prompt.
 */
export type ArtefactKind =
  'command' | 'command-output' | 'interruption' | 'notification' | 'shell-input' | 'attachment' | 'meta' | 'instructions';

/** What the API recorded for the model call that produced an assistant message (ground truth). */
export interface RecordedUsage {
  /** Uncached input tokens (`usage.input_tokens`). */
  inputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
  /**
   * The part of cacheCreationTokens written with a 1-hour TTL (billed 2x input, the rest 1.25x), when
   * the recording says (Claude Code `usage.cache_creation.ephemeral_1h_input_tokens`); absent: unknown.
   */
  cacheWrite1hTokens?: number;
  outputTokens: number;
  /** Model id of the call, when recorded. */
  model?: string;
  /** The model's context window, when the recording says (Codex `token_count` events). */
  contextWindow?: number;
}

/** Everything the call read: input + cache read + cache creation. */
export function recordedInputTokens(u: RecordedUsage): number {
  return u.inputTokens + u.cacheReadTokens + u.cacheCreationTokens;
}

export interface Message {
  /** Stable id: survives compaction, transcripts and reloads. */
  id: string;
  role: Role;
  content: string | ContentBlock[];
  /** Set on messages the engine wrote (summaries, "[Earlier context compacted]" openers). */
  synthetic?: SyntheticKind;
  /** Set on a copy of a message whose tool results were replaced (same id as the original). */
  truncated?: TruncationNote;
  /** Epoch ms when the message entered the session, if known. */
  createdAt?: number;
  /** Set on user-role artefacts (see ArtefactKind): shown, never a genuine prompt or a turn start. */
  artefact?: ArtefactKind;
  /** On an assistant message: the usage the API reported for the call that produced it. */
  usage?: RecordedUsage;
  /** On an assistant message: what server-side context management did for the call that produced it. */
  serverContext?: ServerContextReport;
}

/** The wire form: exactly what the Messages API accepts. */
export interface ApiMessage {
  role: Role;
  content: string | ContentBlock[];
}

/** What a message is, for display and for the engine's rules. */
export type MessageKind =
  'user-prompt' | 'tool-result' | 'assistant-text' | 'tool-call' | 'thinking' | 'summary' | 'placeholder' | 'artefact' | 'instructions';

export function blocksOf(message: Pick<Message, 'content'>): ContentBlock[] {
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
}

export function isToolUse(block: ContentBlock): block is ToolUseBlock {
  return block.type === 'tool_use';
}

export function isToolResult(block: ContentBlock): block is ToolResultBlock {
  return block.type === 'tool_result';
}

export function toolUses(message: Message): ToolUseBlock[] {
  return typeof message.content === 'string' ? [] : message.content.filter(isToolUse);
}

export function toolResults(message: Message): ToolResultBlock[] {
  return typeof message.content === 'string' ? [] : message.content.filter(isToolResult);
}

export function hasToolResults(message: Message): boolean {
  return typeof message.content !== 'string' && message.content.some(isToolResult);
}

export function hasToolUses(message: Message): boolean {
  return typeof message.content !== 'string' && message.content.some(isToolUse);
}

/**
 * A turn starts at a genuine user prompt: a non-synthetic user message that carries no tool_result.
 * (In the Anthropic format tool results travel in user-role messages; those continue a turn.)
 */
export function isTurnStart(message: Message): boolean {
  return message.role === 'user' && !message.synthetic && !message.artefact && !hasToolResults(message);
}

export function kindOf(message: Message): MessageKind {
  if (message.synthetic === 'summary') return 'summary';
  if (message.synthetic === 'placeholder') return 'placeholder';
  if (message.role === 'user') {
    if (hasToolResults(message)) return 'tool-result';
    return message.artefact === 'instructions' ? 'instructions' : message.artefact ? 'artefact' : 'user-prompt';
  }
  if (hasToolUses(message)) return 'tool-call';
  const blocks = blocksOf(message);
  if (blocks.length > 0 && blocks.every((b) => b.type === 'thinking' || b.type === 'redacted_thinking')) return 'thinking';
  return 'assistant-text';
}

/** Plain text of a message for summarizer prompts and previews (tool inputs as JSON). */
export function textOf(message: Pick<Message, 'content'>): string {
  if (typeof message.content === 'string') return message.content;
  return message.content.map(blockText).join('\n');
}

export function blockText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return (block as TextBlock).text;
    case 'thinking':
      return (block as ThinkingBlock).thinking;
    case 'redacted_thinking':
      return '[redacted thinking]';
    case 'tool_use': {
      const b = block as ToolUseBlock;
      return `[tool_use ${b.name} ${safeJson(b.input)}]`;
    }
    case 'tool_result': {
      const b = block as ToolResultBlock;
      return toolResultText(b);
    }
    case 'image':
      return '[image]';
    default:
      return `[${block.type}]`;
  }
}

export function toolResultText(block: ToolResultBlock): string {
  const c = block.content;
  if (c === undefined) return '';
  if (typeof c === 'string') return c;
  return c.map((b) => (b.type === 'text' ? (b as TextBlock).text : `[${b.type}]`)).join('\n');
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return String(value);
  }
}

/** Map tool_use id -> tool name over a list of messages. */
export function toolNamesById(messages: readonly Message[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const m of messages) for (const u of toolUses(m)) names.set(u.id, u.name);
  return names;
}

let idCounter = 0;
/** A fresh message id: time-ordered, unique within a process, readable in transcripts. */
export function newMessageId(prefix = 'm'): string {
  idCounter = (idCounter + 1) % 0x100000;
  const rand = Math.floor(Math.random() * 0x10000)
    .toString(16)
    .padStart(4, '0');
  return `${prefix}_${Date.now().toString(36)}${idCounter.toString(36).padStart(4, '0')}${rand}`;
}

/**
 * Merge adjacent same-role messages into the alternating form the API requires. Tool results are
 * kept at the front of a merged user message (the API wants them first). Ids are dropped.
 */
export function toApiMessages(messages: readonly Message[]): ApiMessage[] {
  const out: ApiMessage[] = [];
  for (const m of messages) {
    const prev = out[out.length - 1];
    if (prev && prev.role === m.role) {
      const merged = [...blocksOf(prev), ...blocksOf(m)];
      if (m.role === 'user') {
        const results = merged.filter(isToolResult);
        const rest = merged.filter((b) => !isToolResult(b));
        prev.content = [...results, ...rest];
      } else {
        prev.content = merged;
      }
    } else {
      out.push({ role: m.role, content: m.content });
    }
  }
  return out;
}

/** Index of the first message of the turn that contains `index` (or 0 if it precedes any turn). */
export function turnStarts(messages: readonly Message[]): number[] {
  const starts: number[] = [];
  messages.forEach((m, i) => {
    if (isTurnStart(m)) starts.push(i);
  });
  return starts;
}

/** Group real messages into turns; `preamble` holds what precedes the first genuine user prompt. */
export function groupTurns(messages: readonly Message[]): { preamble: Message[]; turns: Message[][] } {
  const preamble: Message[] = [];
  const turns: Message[][] = [];
  for (const m of messages) {
    if (isTurnStart(m)) turns.push([m]);
    else if (turns.length === 0) preamble.push(m);
    else turns[turns.length - 1].push(m);
  }
  return { preamble, turns };
}
