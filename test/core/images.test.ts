// Image blocks: pixel size from PNG, JPEG, GIF and WebP headers, and the API's token cost
// (w×h/750 after scaling to a 1568 px long edge, at most 1,600) in the engine's message counts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { base64ImageInfo, imageTokensFor, MemoizedMessageCounter, CharEstimateTokenizer } from '../../src/core/index';
import { imageBlockTokens, imageInfo, imageSizeProblem, MAX_IMAGE_SIDE_PX } from '../../src/core/conversation/images';

const require = createRequire(import.meta.url);
const pkgFile = (pkg: string, rel: string) => readFileSync(join(dirname(require.resolve(`${pkg}/package.json`)), rel));

/** A JPEG: SOI, an APP1 (EXIF-like) segment of `app1` bytes, a DQT, then SOF2 (progressive) with the size. */
function jpeg(width: number, height: number, app1 = 100): Buffer {
  const seg = (marker: number, body: Buffer) =>
    Buffer.concat([Buffer.from([0xff, marker, (body.length + 2) >> 8, (body.length + 2) & 0xff]), body]);
  const sof = Buffer.from([8, height >> 8, height & 0xff, width >> 8, width & 0xff, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    seg(0xe1, Buffer.alloc(app1, 0x45)),
    seg(0xdb, Buffer.alloc(65, 1)),
    seg(0xc2, sof),
    Buffer.from([0xff, 0xd9]),
  ]);
}

function webp(chunk: 'VP8X' | 'VP8L' | 'VP8 ', width: number, height: number): Buffer {
  const b = Buffer.alloc(40);
  b.write('RIFF', 0, 'ascii');
  b.writeUInt32LE(32, 4);
  b.write('WEBP', 8, 'ascii');
  b.write(chunk, 12, 'ascii');
  if (chunk === 'VP8X') {
    b.writeUIntLE(width - 1, 24, 3);
    b.writeUIntLE(height - 1, 27, 3);
  } else if (chunk === 'VP8L') {
    b[20] = 0x2f;
    b.writeUInt32LE(((width - 1) & 0x3fff) | (((height - 1) & 0x3fff) << 14), 21);
  } else {
    b.set([0x9d, 0x01, 0x2a], 23);
    b.writeUInt16LE(width, 26);
    b.writeUInt16LE(height, 28);
  }
  return b;
}

test('images: the pixel size of real PNG and GIF files (from installed packages; `file` agrees)', () => {
  assert.deepEqual(imageInfo(pkgFile('playwright-core', 'lib/server/chromium/appIcon.png')), {
    mediaType: 'image/png',
    width: 400,
    height: 400,
  });
  assert.deepEqual(imageInfo(pkgFile('retry', 'equation.gif')), { mediaType: 'image/gif', width: 175, height: 49 });
});

test('images: JPEG (frame header after a large APP1 segment), the three WebP chunk kinds; anything else is unknown', () => {
  assert.deepEqual(imageInfo(jpeg(1920, 1080)), { mediaType: 'image/jpeg', width: 1920, height: 1080 });
  assert.deepEqual(imageInfo(webp('VP8X', 3000, 2000)), { mediaType: 'image/webp', width: 3000, height: 2000 });
  assert.deepEqual(imageInfo(webp('VP8L', 640, 480)), { mediaType: 'image/webp', width: 640, height: 480 });
  assert.deepEqual(imageInfo(webp('VP8 ', 800, 600)), { mediaType: 'image/webp', width: 800, height: 600 });
  assert.equal(imageInfo(Buffer.from('not an image at all, just text')), undefined);
  assert.equal(imageInfo(Buffer.from([0xff, 0xd8, 0xff])), undefined, 'a truncated JPEG');
  assert.equal(imageInfo(Buffer.alloc(0)), undefined);
  // The frame header 60 KB in: found by decoding the whole base64 data.
  const far = jpeg(1024, 768, 60_000).toString('base64');
  assert.deepEqual(base64ImageInfo(far), { mediaType: 'image/jpeg', width: 1024, height: 768 });
});

test('images: tokens are w*h/750 after scaling the long edge to 1568 px, at most 1,600', () => {
  assert.equal(imageTokensFor(200, 200), 54); // 40,000 / 750 = 53.3
  assert.equal(imageTokensFor(1000, 1000), 1334);
  assert.equal(imageTokensFor(1092, 1092), 1590); // Anthropic's table: ~1,590 for 1092x1092
  assert.equal(imageTokensFor(1920, 1080), 1600, '1568x882 would be 1,844: capped');
  assert.equal(imageTokensFor(175, 49), 12);
  assert.equal(imageTokensFor(0, 10), 1600, 'unknown size: the cap');
});

test('images: message counts use the image header; URL sources and unreadable data count as the cap', () => {
  const png = pkgFile('playwright-core', 'lib/server/chromium/appIcon.png').toString('base64');
  const block = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } };
  assert.equal(imageBlockTokens(block), 214); // 400*400/750 = 213.3
  assert.equal(imageBlockTokens({ source: { type: 'url', url: 'https://example.com/a.png' } }), 1600);
  assert.equal(imageBlockTokens({ source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }), 1600);
  const counter = new MemoizedMessageCounter(new CharEstimateTokenizer());
  const text = { type: 'text', text: 'abcd' };
  const withImage = counter.countMessage({ id: 'u1', role: 'user', content: [text, block] });
  const without = counter.countMessage({ id: 'u2', role: 'user', content: [text] });
  assert.equal(withImage - without, 3 + 214, 'block framing + the image');
  const inResult = counter.countMessage({ id: 'u3', role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: [block] }] });
  const emptyResult = counter.countMessage({ id: 'u4', role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: [] }] });
  assert.equal(inResult - emptyResult, 3 + 214, 'an image in a tool result too');
});

test('images: the API accepts at most 8,000 pixels per side; a larger size (2^31 px from a PNG header) is a problem that names it', () => {
  const png = (width: number, height: number) => {
    const b = Buffer.alloc(33);
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]).copy(b);
    b.write('IHDR', 12, 'ascii');
    b.writeUInt32BE(width, 16);
    b.writeUInt32BE(height, 20);
    return b;
  };
  const huge = imageInfo(png(2 ** 31, 1))!;
  assert.deepEqual(huge, { mediaType: 'image/png', width: 2 ** 31, height: 1 });
  assert.equal(MAX_IMAGE_SIDE_PX, 8_000);
  assert.equal(imageSizeProblem(huge), 'it is 2147483648 × 1 pixels; the API accepts at most 8000 pixels per side');
  assert.equal(imageSizeProblem({ width: 8_000, height: 8_000 }), undefined, 'at the limit');
  assert.equal(imageSizeProblem({ width: 1, height: 8_001 }), 'it is 1 × 8001 pixels; the API accepts at most 8000 pixels per side');
  assert.equal(
    imageSizeProblem(imageInfo(webp('VP8X', 16_384, 2))!),
    'it is 16384 × 2 pixels; the API accepts at most 8000 pixels per side',
  );
});
