// An MCP tool's result as a tool_result: text stays text, images become image blocks, embedded
// resources become text (or an image), links and audio a line that says what they were; `isError`
// becomes is_error. Text is capped like read_file's output (the note says what was cut), images by
// count, size and pixel size (8,000 per side), and an image's media type is the one its header says
// (a server's declared type can be wrong, and the API refuses a block whose type is not its data's);
// micro-compaction later treats the result like any tool's.
import { base64ImageInfo, imageSizeProblem } from '../../core';
import type { ToolResult } from '../tools';

/** The content blocks of an MCP CallToolResult (the spec's shapes; anything else is described). */
export interface McpCallResult {
  content?: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
}

export interface McpResultLimits {
  /** Most characters of text in one result. */
  maxTextChars: number;
  maxImages: number;
  /** Most base64 characters of one image (the API refuses images over about 5 MB). */
  maxImageBase64Chars: number;
}

export const DEFAULT_MCP_RESULT_LIMITS: McpResultLimits = { maxTextChars: 100 * 1024, maxImages: 8, maxImageBase64Chars: 5 * 1024 * 1024 };

const API_IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

type Block = NonNullable<ToolResult['blocks']>[number];

export function toolResultFromMcp(result: McpCallResult, limits: McpResultLimits = DEFAULT_MCP_RESULT_LIMITS): ToolResult {
  const blocks: Block[] = [];
  let images = 0;
  const text = (t: string) => {
    const last = blocks[blocks.length - 1];
    if (last && last.type === 'text') last.text = `${String(last.text)}\n${t}`;
    else blocks.push({ type: 'text', text: t });
  };
  const image = (data: string, mimeType: string, what: string) => {
    if (!API_IMAGE_TYPES.has(mimeType)) return text(`[${what}: ${mimeType}, ${approxBytes(data)}, not an image type the model accepts]`);
    if (images >= limits.maxImages) return text(`[${what}: ${mimeType} left out: at most ${limits.maxImages} images per result]`);
    if (data.length > limits.maxImageBase64Chars) return text(`[${what}: ${mimeType}, ${approxBytes(data)}: too large for the model]`);
    const info = base64ImageInfo(data);
    if (!info) return text(`[${what}: declared ${mimeType}, ${approxBytes(data)}: not a PNG, JPEG, GIF or WebP image]`);
    const sizeProblem = imageSizeProblem(info);
    if (sizeProblem) return text(`[${what}: ${info.mediaType}, ${approxBytes(data)}: ${sizeProblem}]`);
    images++;
    blocks.push({ type: 'image', source: { type: 'base64', media_type: info.mediaType, data } });
  };
  for (const raw of result.content ?? []) {
    const c = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
    switch (c.type) {
      case 'text':
        text(String(c.text ?? ''));
        break;
      case 'image':
        image(String(c.data ?? ''), String(c.mimeType ?? ''), 'image');
        break;
      case 'audio':
        text(`[audio: ${String(c.mimeType ?? 'unknown type')}, ${approxBytes(String(c.data ?? ''))}, not shown to the model]`);
        break;
      case 'resource_link':
        text(
          `[resource link: ${String(c.uri ?? '')}${c.name ? ` (${String(c.name)})` : ''}${c.description ? `: ${String(c.description)}` : ''}]`,
        );
        break;
      case 'resource': {
        const r = (typeof c.resource === 'object' && c.resource !== null ? c.resource : {}) as Record<string, unknown>;
        const uri = String(r.uri ?? '');
        const mime = typeof r.mimeType === 'string' ? r.mimeType : '';
        if (typeof r.text === 'string') text(`[resource ${uri}${mime ? ` (${mime})` : ''}]\n${r.text}`);
        else if (typeof r.blob === 'string' && mime.startsWith('image/')) image(r.blob, mime, `resource ${uri}`);
        else text(`[resource ${uri}${mime ? ` (${mime})` : ''}: binary, ${approxBytes(String(r.blob ?? ''))}, not shown to the model]`);
        break;
      }
      default:
        text(`[content of type ${JSON.stringify(c.type)}: ${safeJson(c).slice(0, 500)}]`);
    }
  }
  if (blocks.length === 0 && result.structuredContent !== undefined) text(safeJson(result.structuredContent));
  capText(blocks, limits.maxTextChars);
  const isError = result.isError === true;
  const summary = blocks
    .map((b) => (b.type === 'text' ? String(b.text) : `[image: ${String((b.source as { media_type?: string }).media_type)}]`))
    .join('\n');
  if (blocks.length === 0) return { content: '(no output)', isError };
  // Text alone travels as a plain string, like every other tool's result.
  if (images === 0) return { content: summary, isError };
  return { content: summary, isError, blocks };
}

function capText(blocks: Block[], max: number): void {
  let used = 0;
  let cut = 0;
  for (const b of blocks) {
    if (b.type !== 'text') continue;
    const t = String(b.text);
    const room = Math.max(0, max - used);
    if (t.length > room) {
      cut += t.length - room;
      b.text = t.slice(0, room);
    }
    used += Math.min(t.length, room);
  }
  if (cut > 0) {
    const last = [...blocks].reverse().find((b) => b.type === 'text');
    if (last) last.text = `${String(last.text)}\n[Output truncated: ${cut} more characters of ${used + cut} were not kept.]`;
  }
  for (let i = blocks.length - 1; i >= 0; i--) if (blocks[i]!.type === 'text' && String(blocks[i]!.text) === '') blocks.splice(i, 1);
}

function approxBytes(base64: string): string {
  const bytes = Math.floor((base64.length * 3) / 4);
  return bytes >= 1024 ? `${Math.round(bytes / 1024)} KB` : `${bytes} bytes`;
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}
