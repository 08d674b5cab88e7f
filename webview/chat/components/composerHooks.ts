// The composer's attachments as hooks: the @-mention picker (what follows the `@` before the caret,
// the ranked files, the highlighted one, the picked files) and the pasted or dropped images.
import { useMemo, useState } from 'preact/hooks';
import type { ImageAttachment } from '../../../src/protocol';
import { rankPaths } from '../fuzzy';
import type { ChatSnapshot } from '../store';

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
const MAX_IMAGES = 10;
const MAX_MENTIONS = 20;
const PICKER_ROWS = 8;

/** The `@query` just before the caret (at a word start), or null. */
export function mentionAt(text: string, caret: number): { start: number; query: string } | null {
  const m = /(^|\s)@([^\s@]*)$/.exec(text.slice(0, caret));
  return m ? { start: caret - m[2]!.length - 1, query: m[2]! } : null;
}

function readImage(file: File): Promise<ImageAttachment> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      const url = String(reader.result);
      resolve({ mediaType: file.type as ImageAttachment['mediaType'], data: url.slice(url.indexOf(',') + 1) });
    };
    reader.onerror = () => reject(reader.error ?? new Error('unreadable'));
    reader.readAsDataURL(file);
  });
}

export function useMentions(files: ChatSnapshot['files'], listFiles: () => void, setHint: (h: string) => void) {
  const [mentions, setMentions] = useState<string[]>([]);
  const [picker, setPicker] = useState<{ start: number; query: string } | null>(null);
  const [active, setActive] = useState(0);
  const results = useMemo(() => (picker && files ? rankPaths(picker.query, files.list, PICKER_ROWS) : []), [picker, files]);
  return {
    mentions,
    picker,
    results,
    active,
    setActive,
    close: () => setPicker(null),
    clear: () => (setMentions([]), setPicker(null)),
    remove: (path: string) => setMentions(mentions.filter((m) => m !== path)),
    /** The text changed: open, follow or close the picker. */
    typed(text: string, caret: number) {
      const at = mentionAt(text, caret);
      if (at && !picker) listFiles();
      if (at?.query !== picker?.query) setActive(0);
      setPicker(at);
    },
    /** Arrow keys move, Enter / Tab pick, Escape closes; true when the key was the picker's. */
    key(key: string, pick: (path: string) => void): boolean {
      if (!picker) return false;
      const n = results.length;
      if (key === 'ArrowDown' || key === 'ArrowUp') {
        if (n > 0) setActive((active + (key === 'ArrowDown' ? 1 : n - 1)) % n);
        return true;
      }
      if ((key === 'Enter' || key === 'Tab') && results[active]) {
        pick(results[active]!.path);
        return true;
      }
      if (key === 'Escape') {
        setPicker(null);
        return true;
      }
      return false;
    },
    /** `path` was picked: the `@query` becomes `@path ` in `text`; returns the new text and caret. */
    picked(text: string, path: string): { text: string; caret: number } | null {
      if (!picker) return null;
      const inserted = `@${path} `;
      const next = text.slice(0, picker.start) + inserted + text.slice(picker.start + 1 + picker.query.length);
      setPicker(null);
      if (!mentions.includes(path)) {
        if (mentions.length >= MAX_MENTIONS) setHint(`At most ${MAX_MENTIONS} files can be attached to one prompt.`);
        else setMentions([...mentions, path]);
      }
      return { text: next, caret: picker.start + inserted.length };
    },
  };
}

export function useImages(setHint: (h: string) => void) {
  const [images, setImages] = useState<ImageAttachment[]>([]);
  return {
    images,
    clear: () => setImages([]),
    remove: (n: number) => setImages(images.filter((_, i) => i !== n)),
    async add(list: readonly File[]) {
      const added: ImageAttachment[] = [];
      for (const f of list) {
        if (!IMAGE_TYPES.includes(f.type)) setHint(`${f.name || 'That file'} is not a PNG, JPEG, GIF or WebP image.`);
        else if (f.size > MAX_IMAGE_BYTES) setHint(`${f.name || 'The image'} is over 5 MB, the API's limit for an image.`);
        else if (images.length + added.length >= MAX_IMAGES) setHint(`At most ${MAX_IMAGES} images can go with one prompt.`);
        else added.push(await readImage(f));
      }
      if (added.length) setImages((cur) => [...cur, ...added]);
    },
  };
}
