/**
 * A scripted message reply made into the API's Message: blocks cut at the request's max_tokens, ids and
 * signatures filled in, usage (with the prompt cache's read and write) and the stop reason; and its
 * non-streaming JSON answer.
 */
import { randomBytes } from 'node:crypto';
import { sendJson, type Exchange } from './exchange';
import { newMessageId, newToolUseId } from './ids';
import type { ScriptBlock, ScriptedReply, StopReason } from './replies';
import { outputCostRaw, truncateTokens } from './tokens';
import type { ValidRequest } from './wire';

export type MessageScript = Extract<ScriptedReply, { kind: 'message' }>;

export interface BuiltBlock {
  wire: Record<string, unknown>;
  script: ScriptBlock & { id?: string; signature?: string };
}

export type ComposedMessage = ReturnType<typeof composeMessage>;

/** What a message reply needs of the server. */
export interface ReplyCounting {
  /** Multiplies every token count. */
  tokenScale: number;
  /** Output tokens the server reports for a reply's blocks. */
  countOutputTokens(blocks: readonly ScriptBlock[]): number;
}

/** Blocks after max_tokens truncation, with ids/signatures filled in, plus usage and stop reason. */
export function composeMessage(request: ValidRequest, script: MessageScript, counting: ReplyCounting) {
  const { blocks, cut } = fitToMaxTokens(script.content, request.body.max_tokens, counting.tokenScale);
  const scripts = blocks.map((b) => b.script);
  const hasToolUse = scripts.some((b) => b.type === 'tool_use');
  const stopReason: StopReason = script.stopReason ?? (cut ? 'max_tokens' : hasToolUse ? 'tool_use' : 'end_turn');
  const cache = request.cache;
  const usage = {
    input_tokens: script.usage?.input_tokens ?? cache?.inputTokens ?? request.inputTokens,
    cache_creation_input_tokens: script.usage?.cache_creation_input_tokens ?? cache?.cacheWriteTokens ?? 0,
    cache_read_input_tokens: script.usage?.cache_read_input_tokens ?? cache?.cacheReadTokens ?? 0,
    output_tokens: script.usage?.output_tokens ?? counting.countOutputTokens(scripts),
  };
  const cm = request.managed?.response ? { context_management: request.managed.response } : {};
  // The API's split of the cache write by TTL (consistent with an overridden total: all of it 5m).
  const write1h = script.usage?.cache_creation_input_tokens === undefined ? (cache?.cacheWrite1hTokens ?? 0) : 0;
  const cacheCreation = { ephemeral_5m_input_tokens: usage.cache_creation_input_tokens - write1h, ephemeral_1h_input_tokens: write1h };
  return { blocks, stopReason, usage, cacheCreation, model: script.model ?? request.body.model, id: newMessageId(), cm };
}

/** The blocks that fit in max_tokens: text/thinking truncated at the token boundary, a tool_use that does not fit whole dropped. */
function fitToMaxTokens(content: readonly ScriptBlock[], maxTokensField: unknown, scale: number): { blocks: BuiltBlock[]; cut: boolean } {
  const maxTokens = typeof maxTokensField === 'number' ? maxTokensField : Number.POSITIVE_INFINITY;
  let remaining = Math.floor(maxTokens / scale);
  const blocks: BuiltBlock[] = [];
  for (const original of content) {
    let block: ScriptBlock = original;
    const cost = outputCostRaw(block);
    if (cost > remaining) {
      if (block.type === 'text' && remaining > 0) block = { ...block, text: truncateTokens(block.text, remaining) };
      else if (block.type === 'thinking' && remaining > 0) block = { ...block, thinking: truncateTokens(block.thinking, remaining) };
      else return { blocks, cut: true };
      blocks.push(buildBlock(block));
      return { blocks, cut: true };
    }
    remaining -= cost;
    blocks.push(buildBlock(block));
  }
  return { blocks, cut: false };
}

function buildBlock(block: ScriptBlock): BuiltBlock {
  switch (block.type) {
    case 'text':
      return { script: block, wire: { type: 'text', text: block.text } };
    case 'thinking': {
      const signature = block.signature ?? randomBytes(48).toString('base64');
      return { script: { ...block, signature }, wire: { type: 'thinking', thinking: block.thinking, signature } };
    }
    case 'tool_use': {
      const id = block.id ?? newToolUseId();
      return { script: { ...block, id }, wire: { type: 'tool_use', id, name: block.name, input: block.input ?? {} } };
    }
    case 'compaction':
      return { script: block, wire: { type: 'compaction', content: block.content, encrypted_content: null } };
  }
}

/** The non-streaming answer: one JSON Message. */
export function playJson(ex: Exchange, m: ComposedMessage, script: MessageScript): void {
  const message = {
    id: m.id,
    type: 'message',
    role: 'assistant',
    model: m.model,
    content: m.blocks.map((b) => b.wire),
    stop_reason: m.stopReason,
    stop_sequence: null,
    ...(script.wireUsage === null
      ? {}
      : { usage: script.wireUsage ?? { ...m.usage, cache_creation: m.cacheCreation, service_tier: 'standard' } }),
    ...m.cm,
  };
  ex.record.status = 200;
  sendJson(ex.res, 200, message, { 'request-id': ex.record.requestId, ...(script.headers ?? {}) });
}
