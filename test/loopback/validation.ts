/**
 * The loopback server's checks on a Messages (or count_tokens) body: the first problem the real API
 * would report, as its `error.message`, or undefined. Messages marked (verified) match errors quoted
 * from the real API in public issue threads.
 */
import type { MessagesRequestBody, WireBlock, WireMessage } from './wire';

export interface ValidationOptions {
  /** count_tokens does not take max_tokens. */
  requireMaxTokens: boolean;
  consecutiveRoles: 'merge' | 'reject';
  requireUserFirst: boolean;
}

/** A run of same-role messages, merged into one turn (the API's documented behaviour). */
interface Turn {
  role: 'user' | 'assistant';
  parts: Array<{ index: number; blocks: WireBlock[] }>;
}

export function validateMessagesBody(body: MessagesRequestBody, opts: ValidationOptions): string | undefined {
  const problem = validateFields(body, opts) ?? validateTools(body.tools) ?? validateMessageShapes(body.messages as WireMessage[]);
  if (problem) return problem;
  const turns = mergeTurns(body.messages as WireMessage[], opts);
  if (typeof turns === 'string') return turns;
  if (turns.length === 0) return 'messages: at least one message is required';
  // (verified) 'messages: first message must use the "user" role'.
  if (opts.requireUserFirst && turns[0]!.role !== 'user') return 'messages: first message must use the "user" role';
  return validateToolPairing(turns);
}

/** Required fields (pydantic-style wording; "max_tokens: Field required" verified). */
function validateFields(body: MessagesRequestBody, opts: ValidationOptions): string | undefined {
  if (body.model === undefined) return 'model: Field required';
  if (opts.requireMaxTokens && body.max_tokens === undefined) return 'max_tokens: Field required';
  if (body.messages === undefined) return 'messages: Field required';
  if (typeof body.model !== 'string' || body.model === '') return 'model: Input should be a valid string';
  if (opts.requireMaxTokens && (typeof body.max_tokens !== 'number' || !Number.isInteger(body.max_tokens) || body.max_tokens < 0)) {
    return 'max_tokens: Input should be a valid integer';
  }
  if (!Array.isArray(body.messages)) return 'messages: Input should be a valid list';
  if (body.messages.length === 0) return 'messages: at least one message is required';
  return undefined;
}

/** The API's checks on `tools`: a list of tools with unique names matching ^[a-zA-Z0-9_-]{1,64}$ and an object input_schema. */
function validateTools(tools: unknown): string | undefined {
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools)) return 'tools: Input should be a valid list';
  const seen = new Set<string>();
  for (let i = 0; i < tools.length; i++) {
    const t = tools[i] as Record<string, unknown> | undefined;
    if (!t || typeof t !== 'object') return `tools.${i}: Input should be a valid dictionary`;
    if (t.type !== undefined && t.type !== 'custom') continue; // server tools (web_search, …) have their own shapes
    if (typeof t.name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(t.name))
      return `tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`;
    if (seen.has(t.name)) return 'tools: Tool names must be unique.';
    seen.add(t.name);
    const schema = t.input_schema as Record<string, unknown> | undefined;
    if (!schema || typeof schema !== 'object') return `tools.${i}.custom.input_schema: Field required`;
    if (schema.type !== 'object') return `tools.${i}.custom.input_schema.type: Input should be 'object'`;
  }
  return undefined;
}

/** Each message: a known role, string or block-list content, non-empty (but a final assistant prefill). */
function validateMessageShapes(messages: WireMessage[]): string | undefined {
  const last = messages.length - 1;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as WireMessage | undefined;
    if (!m || typeof m !== 'object') return `messages.${i}: Input should be a valid dictionary`;
    if (m.role !== 'user' && m.role !== 'assistant' && m.role !== 'system')
      return `messages.${i}.role: Input should be 'user' or 'assistant'`;
    if (m.content === undefined) return `messages.${i}.content: Field required`;
    if (typeof m.content !== 'string' && !Array.isArray(m.content)) return `messages.${i}.content: Input should be a valid string or list`;
    const empty = typeof m.content === 'string' ? m.content === '' : m.content.length === 0;
    // (verified) the final assistant message may be empty (prefill); no other message may.
    if (empty && !(i === last && m.role === 'assistant')) {
      return `messages.${i}: all messages must have non-empty content except for the optional final assistant message`;
    }
    if (Array.isArray(m.content)) {
      for (let j = 0; j < m.content.length; j++) {
        const b = m.content[j];
        if (!b || typeof b !== 'object' || typeof b.type !== 'string')
          return `messages.${i}.content.${j}: Input should be a valid dictionary`;
        // (verified) whitespace-only text blocks are rejected.
        if (b.type === 'text' && String(b.text ?? '').trim() === '')
          return 'messages: text content blocks must contain non-whitespace text';
      }
    }
  }
  return undefined;
}

/** Roles: system-role messages are transparent; then merge (or reject) runs of the same role. */
function mergeTurns(messages: WireMessage[], opts: ValidationOptions): Turn[] | string {
  const turns: Turn[] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === 'system') continue;
    const role = m.role as 'user' | 'assistant';
    const blocks: WireBlock[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    const prev = turns[turns.length - 1];
    if (prev && prev.role === role) {
      if (opts.consecutiveRoles === 'reject') {
        return `messages: roles must alternate between "user" and "assistant", but found multiple "${role}" roles in a row`;
      }
      prev.parts.push({ index: i, blocks });
    } else {
      turns.push({ role, parts: [{ index: i, blocks }] });
    }
  }
  return turns;
}

/** tool_use ↔ tool_result pairing, turn by turn (verified wording for both errors). */
function validateToolPairing(turns: Turn[]): string | undefined {
  for (let t = 0; t < turns.length; t++) {
    const turn = turns[t]!;
    const problem = turn.role === 'assistant' ? unansweredToolUses(turn, turns[t + 1]) : unexpectedToolResults(turn, turns[t - 1]);
    if (problem) return problem;
  }
  return undefined;
}

function unansweredToolUses(turn: Turn, next: Turn | undefined): string | undefined {
  const answered = new Set<string>();
  if (next?.role === 'user') {
    for (const p of next.parts)
      for (const b of p.blocks) if (b.type === 'tool_result' && typeof b.tool_use_id === 'string') answered.add(b.tool_use_id);
  }
  for (const p of turn.parts) {
    const missing = p.blocks.filter((b) => b.type === 'tool_use' && !answered.has(String(b.id))).map((b) => String(b.id));
    if (missing.length > 0) {
      return (
        `messages.${p.index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. ` +
        'Each `tool_use` block must have a corresponding `tool_result` block in the next message.'
      );
    }
  }
  return undefined;
}

function unexpectedToolResults(turn: Turn, prev: Turn | undefined): string | undefined {
  const offered = new Set<string>();
  if (prev?.role === 'assistant') {
    for (const p of prev.parts) for (const b of p.blocks) if (b.type === 'tool_use') offered.add(String(b.id));
  }
  for (const p of turn.parts) {
    for (let j = 0; j < p.blocks.length; j++) {
      const b = p.blocks[j]!;
      if (b.type === 'tool_result' && !offered.has(String(b.tool_use_id))) {
        return (
          `messages.${p.index}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(b.tool_use_id)}. ` +
          'Each `tool_result` block must have a corresponding `tool_use` block in the previous message.'
        );
      }
    }
  }
  return undefined;
}
