// What goes with a prompt besides its text: the content of @-mentioned workspace files (each a text
// block headed by its path, cut at a size cap with a note saying so) and pasted or dropped images
// (image blocks). Files are read like the file tools read them: confined to the workspace
// (resolveWorkspacePath, then a confined open against symlink races), so `@../secret` is refused; only
// the first bytes up to the cap are read, whatever the file's size. The path in `<file path="…">` is
// attribute-escaped, so a crafted file name cannot close the tag or add structure. Images must be one
// of the API's types (from the header, whatever was declared), at most 5 MB and 8,000 px per side.
// What cannot be attached is said in `problems` (the chat shows them); the rest still goes.
import { base64ImageInfo, errorMessage, imageSizeProblem, MAX_IMAGE_BYTES, type ContentBlock } from '../../core';
import { readFileHeadConfined } from '../tools/confinedFs';
import { resolveWorkspacePath } from '../tools/workspacePath';
import { shippedDefault } from '../../settings/schema';

export interface ImageInput {
  mediaType: string;
  /** base64 */
  data: string;
}

export interface PromptAttachments {
  /** Blocks to append after the prompt's text, in the order given (files, then images). */
  blocks: ContentBlock[];
  /** Workspace-relative paths of the files attached. */
  files: string[];
  problems: string[];
}

export async function promptAttachments(
  root: string | undefined,
  mentions: readonly string[],
  images: readonly ImageInput[],
  maxFileBytes = shippedDefault('mentions.maxFileKB') * 1024,
): Promise<PromptAttachments> {
  const out: PromptAttachments = { blocks: [], files: [], problems: [] };
  for (const mention of [...new Set(mentions)]) {
    try {
      if (!root) throw new Error('no workspace folder is open');
      const target = resolveWorkspacePath(root, mention);
      if (!target.exists) throw new Error('no such file');
      if (out.files.includes(target.rel)) continue;
      const { head, size } = await readFileHeadConfined(root, target, Math.max(maxFileBytes, BINARY_SNIFF_BYTES));
      out.blocks.push({ type: 'text', text: fileBlockText(target.rel, head, maxFileBytes, size) });
      out.files.push(target.rel);
    } catch (e) {
      out.problems.push(`@${mention} was not attached: ${errorMessage(e)}`);
    }
  }
  images.forEach((img, i) => {
    const info = base64ImageInfo(img.data);
    const bytes = Math.floor((img.data.length * 3) / 4);
    const sizeProblem = info && imageSizeProblem(info);
    if (!info) out.problems.push(`Image ${i + 1} was not attached: it is not a PNG, JPEG, GIF or WebP image.`);
    else if (sizeProblem) out.problems.push(`Image ${i + 1} was not attached: ${sizeProblem}.`);
    else if (bytes > MAX_IMAGE_BYTES) out.problems.push(`Image ${i + 1} was not attached: it is over 5 MB (the API's limit).`);
    // The header decides the media type: the API rejects a block whose declared type is not the data's.
    else out.blocks.push({ type: 'image', source: { type: 'base64', media_type: info.mediaType, data: img.data } });
  });
  return out;
}

/** A file with a NUL byte in its first 8,000 bytes is binary (and not attached). */
const BINARY_SNIFF_BYTES = 8_000;

/**
 * `<file path="…">` + the content (cut at `max` bytes on a character boundary, with a note) + `</file>`.
 * `bytes` is the file's start (at least `max` bytes and the binary sniff when the file has them), `size`
 * its whole size.
 */
export function fileBlockText(rel: string, bytes: Buffer, max: number, size = bytes.length): string {
  const open = `<file path="${escapeAttribute(rel)}">`;
  if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return `${open}\n[binary file, ${size} bytes: not attached]\n</file>`;
  let text = bytes.subarray(0, max).toString('utf8');
  let note = '';
  if (size > max) {
    text = text.replace(/\uFFFD+$/, ''); // a character cut in half at the cap
    note = `\n[truncated: the first ${kb(max)} of ${kb(size)} (${size} bytes) are shown; read_file reads the rest]`;
  }
  return `${open}\n${text}${text.endsWith('\n') ? '' : '\n'}${note ? `${note.slice(1)}\n` : ''}</file>`;
}

const kb = (n: number): string => `${Math.round(n / 1024)} KB`;

const ATTRIBUTE_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

/** A value for a double-quoted attribute: & < > " as entities; control characters and line separators as &#xHH;. */
function escapeAttribute(value: string): string {
  let out = '';
  for (const c of value) {
    const code = c.codePointAt(0)!;
    const control = code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029;
    out += ATTRIBUTE_ESCAPES[c] ?? (control ? `&#x${code.toString(16).toUpperCase()};` : c);
  }
  return out;
}

/** The user message's content: the text alone, or a text block (if any) followed by the attachments. */
export function promptContent(prompt: string, blocks: readonly ContentBlock[] = []): string | ContentBlock[] {
  if (blocks.length === 0) return prompt;
  return [...(prompt ? [{ type: 'text', text: prompt }] : []), ...blocks];
}

const DATA_URL_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/** data: URLs of a message's base64 image blocks (what the chat shows as thumbnails). */
export function imageDataUrls(blocks: readonly ContentBlock[]): string[] {
  const urls: string[] = [];
  for (const b of blocks) {
    const s = b.type === 'image' ? (b.source as { type?: unknown; media_type?: unknown; data?: unknown }) : undefined;
    if (s?.type === 'base64' && DATA_URL_TYPES.has(s.media_type as string) && typeof s.data === 'string')
      urls.push(`data:${s.media_type as string};base64,${s.data}`);
  }
  return urls;
}
