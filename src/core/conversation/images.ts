// Image blocks: their pixel size read from the file header (PNG, JPEG, GIF, WebP), and what the API
// bills for them. Anthropic's vision docs: an image costs about (width × height) / 750 tokens; an
// image whose long edge exceeds 1568 px is first scaled down (aspect kept), so one image costs at most
// about 1,600 tokens. Pure: bytes in, numbers out.

/** The media types the Messages API accepts in an image block. */
export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];

/** The API's size limit for one base64 image (5 MB, decoded). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** The API's limit on an image's width and on its height, in pixels (a larger image fails the whole request). */
export const MAX_IMAGE_SIDE_PX = 8_000;
/** Tokens of an image whose size is unknown (a URL source, an unreadable header): the cap, to err high. */
export const MAX_IMAGE_TOKENS = 1600;
const MAX_LONG_EDGE = 1568;

export interface ImageInfo {
  mediaType: ImageMediaType;
  width: number;
  height: number;
}

/** Pixel size and type from the first bytes of a PNG, JPEG, GIF or WebP file; undefined if not one of them. */
export function imageInfo(bytes: Uint8Array): ImageInfo | undefined {
  const b = bytes;
  const u16be = (i: number) => (b[i]! << 8) | b[i + 1]!;
  const u16le = (i: number) => b[i]! | (b[i + 1]! << 8);
  const u24le = (i: number) => b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16);
  const u32be = (i: number) => ((b[i]! << 24) >>> 0) + (b[i + 1]! << 16) + (b[i + 2]! << 8) + b[i + 3]!;
  const ascii = (i: number, n: number) => String.fromCharCode(...b.subarray(i, i + n));
  const ok = (info: ImageInfo): ImageInfo | undefined => (info.width > 0 && info.height > 0 ? info : undefined);
  if (b.length >= 24 && b[0] === 0x89 && ascii(1, 3) === 'PNG' && ascii(12, 4) === 'IHDR') {
    return ok({ mediaType: 'image/png', width: u32be(16), height: u32be(20) });
  }
  if (b.length >= 10 && (ascii(0, 6) === 'GIF87a' || ascii(0, 6) === 'GIF89a')) {
    return ok({ mediaType: 'image/gif', width: u16le(6), height: u16le(8) });
  }
  if (b.length >= 30 && ascii(0, 4) === 'RIFF' && ascii(8, 4) === 'WEBP') {
    const chunk = ascii(12, 4);
    if (chunk === 'VP8X') return ok({ mediaType: 'image/webp', width: u24le(24) + 1, height: u24le(27) + 1 });
    if (chunk === 'VP8L' && b[20] === 0x2f) {
      const bits = b[21]! | (b[22]! << 8) | (b[23]! << 16) | (b[24]! << 24);
      return ok({ mediaType: 'image/webp', width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 });
    }
    if (chunk === 'VP8 ') return ok({ mediaType: 'image/webp', width: u16le(26) & 0x3fff, height: u16le(28) & 0x3fff });
    return undefined;
  }
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) return jpegInfo(b, u16be);
  return undefined;
}

/** Why the API would refuse an image of this pixel size (`it is W × H pixels; …`), or undefined if it accepts it. */
export function imageSizeProblem(size: { width: number; height: number }): string | undefined {
  if (size.width <= MAX_IMAGE_SIDE_PX && size.height <= MAX_IMAGE_SIDE_PX) return undefined;
  return `it is ${size.width} × ${size.height} pixels; the API accepts at most ${MAX_IMAGE_SIDE_PX} pixels per side`;
}

/** Walks the JPEG markers to the first start-of-frame (SOF0–SOF15 except DHT, JPG, DAC). */
function jpegInfo(b: Uint8Array, u16be: (i: number) => number): ImageInfo | undefined {
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return undefined;
    const marker = b[i + 1]!;
    if (marker === 0xff) {
      i++;
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2;
      continue;
    }
    const len = u16be(i + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      const height = u16be(i + 5);
      const width = u16be(i + 7);
      return width > 0 && height > 0 ? { mediaType: 'image/jpeg', width, height } : undefined;
    }
    if (len < 2) return undefined;
    i += 2 + len;
  }
  return undefined;
}

/** Tokens the API bills for an image of this size: scaled to a 1568 px long edge, then w×h/750, at most 1,600. */
export function imageTokensFor(width: number, height: number): number {
  if (!(width > 0 && height > 0)) return MAX_IMAGE_TOKENS;
  const scale = Math.min(1, MAX_LONG_EDGE / Math.max(width, height));
  const w = Math.round(width * scale);
  const h = Math.round(height * scale);
  return Math.max(1, Math.min(MAX_IMAGE_TOKENS, Math.ceil((w * h) / 750)));
}

/** Bytes of the header to decode: enough for PNG/GIF/WebP at once; JPEG frames can follow large EXIF/ICC segments. */
const HEADER_BASE64_CHARS = 4 * 1024;

/** Pixel size of a base64 image (the whole data is decoded only when a JPEG's frame header is far in). */
export function base64ImageInfo(data: string): ImageInfo | undefined {
  if (typeof data !== 'string' || data.length === 0) return undefined;
  const head = imageInfo(Buffer.from(data.slice(0, HEADER_BASE64_CHARS), 'base64'));
  if (head || data.length <= HEADER_BASE64_CHARS) return head;
  return imageInfo(Buffer.from(data, 'base64'));
}

/**
 * Tokens of an image block (`{type: 'image', source}`): from the pixel size in a base64 source's
 * header; the cap when the size cannot be known (URL or file sources, unreadable data).
 */
export function imageBlockTokens(block: { source?: unknown }): number {
  const s = block.source as { type?: unknown; data?: unknown } | undefined;
  if (!s || s.type !== 'base64' || typeof s.data !== 'string') return MAX_IMAGE_TOKENS;
  const info = base64ImageInfo(s.data);
  return info ? imageTokensFor(info.width, info.height) : MAX_IMAGE_TOKENS;
}
