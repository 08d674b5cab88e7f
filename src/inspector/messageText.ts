// A message as text for the inspector: the one-line row preview and the detail pane's full text (with
// the model's micro-compacted copy when it differs).
import {
  base64ImageInfo,
  blocksOf,
  imageTokensFor,
  MAX_IMAGE_TOKENS,
  kindOf,
  toolResultText,
  type ContentBlock,
  type Message,
  type ToolResultBlock,
  type ToolUseBlock,
} from '../core';
import type { MessageDetail } from '../protocol';

/** Longest row preview, in UTF-16 code units (the ellipsis included). */
export const PREVIEW_CHARS = 160;
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
