// What goes with a prompt besides its text: the content of @-mentioned workspace files (each a text
// block headed by its path, cut at a size cap with a note saying so) and pasted or dropped images
// (image blocks). Files are read like the file tools read them: confined to the workspace
// (resolveWorkspacePath, then readFileConfined against symlink races), so `@../secret` is refused.
// What cannot be attached is said in `problems` (the chat shows them); the rest still goes.
import { base64ImageInfo, errorMessage, MAX_IMAGE_BYTES, type ContentBlock } from '../../core';
import { readFileConfined } from '../tools/confinedFs';
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
      const bytes = await readFileConfined(root, target);
      out.blocks.push({ type: 'text', text: fileBlockText(target.rel, bytes, maxFileBytes) });
      out.files.push(target.rel);
    } catch (e) {
      out.problems.push(`@${mention} was not attached: ${errorMessage(e)}`);
    }
  }
  images.forEach((img, i) => {
    const info = base64ImageInfo(img.data);
    const bytes = Math.floor((img.data.length * 3) / 4);
    if (!info) out.problems.push(`Image ${i + 1} was not attached: it is not a PNG, JPEG, GIF or WebP image.`);
    else if (bytes > MAX_IMAGE_BYTES) out.problems.push(`Image ${i + 1} was not attached: it is over 5 MB (the API's limit).`);
    // The header decides the media type: the API rejects a block whose declared type is not the data's.
    else out.blocks.push({ type: 'image', source: { type: 'base64', media_type: info.mediaType, data: img.data } });
  });
  return out;
}

/** `<file path="…">` + the content (cut at `max` bytes on a character boundary, with a note) + `</file>`. */
export function fileBlockText(rel: string, bytes: Buffer, max: number): string {
  if (bytes.subarray(0, 8_000).includes(0)) return `<file path="${rel}">\n[binary file, ${bytes.length} bytes: not attached]\n</file>`;
  let text = bytes.subarray(0, max).toString('utf8');
  let note = '';
  if (bytes.length > max) {
    text = text.replace(/\uFFFD+$/, ''); // a character cut in half at the cap
    note = `\n[truncated: the first ${kb(max)} of ${kb(bytes.length)} (${bytes.length} bytes) are shown; read_file reads the rest]`;
  }
  return `<file path="${rel}">\n${text}${text.endsWith('\n') ? '' : '\n'}${note ? `${note.slice(1)}\n` : ''}</file>`;
}

const kb = (n: number): string => `${Math.round(n / 1024)} KB`;

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
