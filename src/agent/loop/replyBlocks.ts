// The model's reply as session content: plain-data blocks, what survives a cancelled stream, and
// tool_result blocks.
import type Anthropic from '@anthropic-ai/sdk';
import type { ContentBlock, ToolResultBlock } from '../../core';
import type { ToolResult } from '../tools';

export function toolResultBlock(toolUseId: string, r: ToolResult): ToolResultBlock {
  return {
    type: 'tool_result',
    tool_use_id: toolUseId,
    content: r.blocks && r.blocks.length > 0 ? r.blocks : r.content === '' ? '(no output)' : r.content,
    ...(r.isError ? { is_error: true } : {}),
  };
}

/**
 * The reply's blocks as plain data for the session: SDK objects (lazy tool inputs, null citations)
 * become JSON values; whitespace-only text blocks, which the API rejects in requests, are dropped.
 */
export function normalizeBlocks(blocks: readonly ContentBlock[]): ContentBlock[] {
  const out: ContentBlock[] = [];
  for (const b of blocks) {
    const n = normalizeBlock(b);
    if (n) out.push(n);
  }
  return out;
}

function normalizeBlock(b: ContentBlock): ContentBlock | null {
  const r = b as Record<string, unknown>;
  switch (b.type) {
    case 'text': {
      const text = String(r.text ?? '');
      if (text.trim() === '') return null;
      return Array.isArray(r.citations) && r.citations.length > 0
        ? { type: 'text', text, citations: plain(r.citations) }
        : { type: 'text', text };
    }
    case 'thinking':
      return { type: 'thinking', thinking: String(r.thinking ?? ''), signature: String(r.signature ?? '') };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: String(r.data ?? '') };
    case 'tool_use':
      return { type: 'tool_use', id: String(r.id), name: String(r.name), input: plain(r.input ?? {}) };
    default:
      return plain(b) as ContentBlock;
  }
}

/** What can be kept of a reply cut off by stop(): text so far and tool calls that finished streaming. */
export function partialBlocks(snapshot: Anthropic.Message | undefined, completed: ReadonlySet<number>): ContentBlock[] {
  if (!snapshot) return [];
  const kept: ContentBlock[] = [];
  let substantive = false;
  snapshot.content.forEach((raw, index) => {
    const b = raw as unknown as ContentBlock;
    if (b.type === 'text') {
      const n = normalizeBlock(b);
      if (n) {
        kept.push(n);
        substantive = true;
      }
    } else if (b.type === 'tool_use') {
      if (completed.has(index)) {
        kept.push(normalizeBlock(b)!);
        substantive = true;
      }
    } else if ((b.type === 'thinking' || b.type === 'redacted_thinking') && completed.has(index)) {
      kept.push(normalizeBlock(b)!);
    }
  });
  return substantive ? kept : [];
}

function plain(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value)) as unknown;
}
