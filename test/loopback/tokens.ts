/**
 * The loopback server's token counting (the rule in anthropic-server.ts's header): o200k_base from
 * gpt-tokenizer, special-token text counted as ordinary text.
 */
import { countTokens as o200kCount, decode as o200kDecode, encode as o200kEncode } from 'gpt-tokenizer/encoding/o200k_base';
import { imageBlockTokens } from '../../src/core/conversation/images';
import type { ScriptBlock } from './replies';
import type { MessagesRequestBody, WireBlock, WireTool } from './wire';

const NO_SPECIALS = { disallowedSpecial: new Set<string>() };

/** o200k_base token count of `text`; special-token strings count as plain text. */
export function countTextTokens(text: string): number {
  return text ? o200kCount(text, NO_SPECIALS) : 0;
}

export function countBlockRaw(block: WireBlock): number {
  switch (block.type) {
    case 'text':
      return countTextTokens(String(block.text ?? ''));
    case 'thinking':
      return countTextTokens(String(block.thinking ?? ''));
    case 'redacted_thinking':
      return countTextTokens(String(block.data ?? ''));
    case 'tool_use':
      return countTextTokens(String(block.name ?? '')) + countTextTokens(JSON.stringify(block.input ?? {}));
    case 'tool_result': {
      const c = block.content;
      if (c === undefined || c === null) return 0;
      if (typeof c === 'string') return countTextTokens(c);
      return Array.isArray(c) ? c.reduce((n, b) => n + countBlockRaw(b), 0) : 0;
    }
    case 'image':
      return imageBlockTokens(block as { source?: unknown });
    default:
      return countTextTokens(JSON.stringify(block));
  }
}

function countContentRaw(content: unknown): number {
  if (typeof content === 'string') return countTextTokens(content);
  if (Array.isArray(content))
    return content.reduce((n: number, b: WireBlock) => n + (b && typeof b === 'object' ? countBlockRaw(b) : 0), 0);
  return 0;
}

/** Unscaled token count of system + tools + messages, by the rule in the file header. */
export function countRawRequestTokens(body: MessagesRequestBody): number {
  let n = countContentRaw(body.system);
  for (const tool of Array.isArray(body.tools) ? body.tools : []) n += countToolRaw(tool);
  for (const m of Array.isArray(body.messages) ? body.messages : []) n += countContentRaw(m?.content);
  return n;
}

/** Unscaled tokens of one tool definition (a tool without input_schema, e.g. a server tool: its JSON). */
export function countToolRaw(tool: WireTool): number {
  if (!tool || typeof tool !== 'object') return 0;
  if (tool.input_schema === undefined) return countTextTokens(JSON.stringify(tool));
  return (
    countTextTokens(String(tool.name ?? '')) +
    countTextTokens(String(tool.description ?? '')) +
    countTextTokens(JSON.stringify(tool.input_schema))
  );
}

/** Input tokens as this server reports them: round(tokenScale × (raw + overhead)). */
export function countRequestTokens(
  body: MessagesRequestBody,
  opts: { tokenScale?: number; tokenOverhead?: { perRequest?: number; perMessage?: number } } = {},
): number {
  const messages = Array.isArray(body.messages) ? body.messages.length : 0;
  const overhead = (opts.tokenOverhead?.perRequest ?? 0) + (opts.tokenOverhead?.perMessage ?? 0) * messages;
  return Math.round((opts.tokenScale ?? 1) * (countRawRequestTokens(body) + overhead));
}

/** Text of the last user message (its text blocks and tool_result texts, joined by newlines). */
export function lastUserText(body: MessagesRequestBody): string {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role !== 'user') continue;
    return textOf(m.content);
  }
  return '';
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const b of content as WireBlock[]) {
    if (b?.type === 'text') parts.push(String(b.text ?? ''));
    else if (b?.type === 'tool_result') parts.push(textOf(b.content));
  }
  return parts.join('\n');
}

/** Unscaled output tokens of a scripted reply block. */
export function outputCostRaw(block: ScriptBlock): number {
  switch (block.type) {
    case 'text':
      return countTextTokens(block.text);
    case 'thinking':
      return countTextTokens(block.thinking);
    case 'tool_use':
      return countTextTokens(block.name) + countTextTokens(JSON.stringify(block.input ?? {}));
    case 'compaction':
      return 0; // the compaction iteration's tokens are not in the top-level usage (the API's rule)
  }
}

/** The first `n` o200k tokens of `text`, without a dangling partial character. */
export function truncateTokens(text: string, n: number): string {
  return o200kDecode(o200kEncode(text, NO_SPECIALS).slice(0, n)).replace(/\uFFFD+$/, '');
}
