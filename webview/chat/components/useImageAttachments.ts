// The composer's images as a hook: images pasted into the box or dropped on it (PNG, JPEG, GIF or
// WebP, at most 5 MB each, at most 10 per prompt; anything else is refused with a hint), read as
// base64 for the prompt's image blocks.
import { useState } from 'preact/hooks';
import type { ImageAttachment } from '../../../src/protocol';

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
const MAX_IMAGES = 10;

export interface ImageAttachments {
  readonly images: ImageAttachment[];
  clear(): void;
  remove(index: number): void;
  /** The box's paste: pasted image files are added (other pastes are left to the box). */
  onPaste(e: ClipboardEvent): void;
  /** The composer's drag and drop: dragged files may be dropped; dropped files are added. */
  onDragOver(e: DragEvent): void;
  onDrop(e: DragEvent): void;
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

export function useImageAttachments(setHint: (h: string) => void): ImageAttachments {
  const [images, setImages] = useState<ImageAttachment[]>([]);

  const add = async (list: readonly File[]) => {
    const added: ImageAttachment[] = [];
    for (const f of list) {
      if (!IMAGE_TYPES.includes(f.type)) setHint(`${f.name || 'That file'} is not a PNG, JPEG, GIF or WebP image.`);
      else if (f.size > MAX_IMAGE_BYTES) setHint(`${f.name || 'The image'} is over 5 MB, the API's limit for an image.`);
      else if (images.length + added.length >= MAX_IMAGES) setHint(`At most ${MAX_IMAGES} images can go with one prompt.`);
      else added.push(await readImage(f));
    }
    if (added.length) setImages((cur) => [...cur, ...added]);
  };

  return {
    images,
    clear: () => setImages([]),
    remove: (n: number) => setImages(images.filter((_, i) => i !== n)),
    onPaste(e) {
      const pasted = [...(e.clipboardData?.files ?? [])].filter((f) => f.type.startsWith('image/'));
      if (pasted.length === 0) return;
      e.preventDefault();
      void add(pasted);
    },
    onDragOver(e) {
      if (e.dataTransfer?.types.includes('Files')) e.preventDefault();
    },
    onDrop(e) {
      const dropped = [...(e.dataTransfer?.files ?? [])];
      if (dropped.length === 0) return;
      e.preventDefault();
      void add(dropped);
    },
  };
}
