// MCP results as tool_result content: embedded resources from a real server (server-everything's
// get-resource-reference, text and blob), and the conversions and caps on the spec's other shapes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { McpManager, toolResultFromMcp } from '../../src/agent/mcp';
import { toolResultBlock } from '../../src/agent/loop/replyBlocks';

const EVERYTHING = resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

test('server-everything get-resource-reference: an embedded text resource becomes text; a blob resource is described', async () => {
  const m = new McpManager({ log: { info: () => {}, warn: () => {}, error: () => {} }, notice: () => {} });
  try {
    await m.start([
      {
        name: 'everything',
        source: { format: 'user', file: 'splitpoint.mcp.servers', workspace: false },
        type: 'stdio',
        command: process.execPath,
        args: [EVERYTHING],
        env: {},
      },
    ]);
    const tool = m.tools().find((t) => t.tool === 'get-resource-reference')!;
    assert.ok(
      tool,
      m
        .tools()
        .map((t) => t.tool)
        .join(', '),
    );
    const text = await m.call(tool.name, { resourceType: 'Text', resourceId: 2 }, new AbortController().signal);
    assert.equal(text.isError, false);
    assert.match(
      text.content,
      /^Returning resource reference for Resource 2:\n\[resource [^\]]+2[^\]]*\]\n.+\nYou can access this resource using the URI: /s,
    );
    const blob = await m.call(tool.name, { resourceType: 'Blob', resourceId: 1 }, new AbortController().signal);
    assert.match(blob.content, /\[resource \S+ \([^)]*\): binary, \d+ (bytes|KB), not shown to the model\]/);
  } finally {
    await m.stopAll();
  }
});

test('images become image blocks in the tool_result; isError becomes is_error; audio and links are described', () => {
  const r = toolResultFromMcp({
    isError: true,
    content: [
      { type: 'text', text: 'see' },
      { type: 'image', data: PNG, mimeType: 'image/png' },
      { type: 'image', data: PNG, mimeType: 'image/svg+xml' },
      { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
      { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt' },
    ],
  });
  const block = toolResultBlock('tu1', r);
  assert.equal(block.is_error, true);
  assert.deepEqual(block.content, [
    { type: 'text', text: 'see' },
    { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
    {
      type: 'text',
      text: '[image: image/svg+xml, 72 bytes, not an image type the model accepts]\n[audio: audio/wav, 3 bytes, not shown to the model]\n[resource link: file:///a.txt (a.txt)]',
    },
  ]);
  assert.match(r.content, /^see\n\[image: image\/png\]\n/);
});

test('text beyond the cap is cut with a note saying how much; text alone stays a plain string; empty is "(no output)"', () => {
  const r = toolResultFromMcp(
    { content: [{ type: 'text', text: 'x'.repeat(150) }] },
    { maxTextChars: 100, maxImages: 1, maxImageBase64Chars: 10 },
  );
  assert.equal(r.blocks, undefined);
  assert.equal(r.content, `${'x'.repeat(100)}\n[Output truncated: 50 more characters of 150 were not kept.]`);
  assert.deepEqual({ ...toolResultFromMcp({ content: [] }) }, { content: '(no output)', isError: false });
  assert.equal(toolResultFromMcp({ content: [], structuredContent: { sum: 3 } }).content, '{"sum":3}');
  const big = toolResultFromMcp(
    { content: [{ type: 'image', data: PNG, mimeType: 'image/png' }] },
    { maxTextChars: 100, maxImages: 1, maxImageBase64Chars: 10 },
  );
  assert.match(big.content, /too large for the model/);
});

test("an image's media type comes from its bytes, not the server's declaration; bytes of no image type and over 8,000 px per side are described", () => {
  const GIF = Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1').toString('base64');
  const wide = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]).copy(wide);
  wide.write('IHDR', 12, 'ascii');
  wide.writeUInt32BE(9_000, 16);
  wide.writeUInt32BE(10, 20);
  const r = toolResultFromMcp({
    content: [
      { type: 'image', data: PNG, mimeType: 'image/jpeg' },
      { type: 'resource', resource: { uri: 'mem://g', mimeType: 'image/png', blob: GIF } },
      { type: 'image', data: Buffer.from('not an image').toString('base64'), mimeType: 'image/png' },
      { type: 'image', data: wide.toString('base64'), mimeType: 'image/png' },
    ],
  });
  assert.deepEqual(r.blocks, [
    { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
    { type: 'image', source: { type: 'base64', media_type: 'image/gif', data: GIF } },
    {
      type: 'text',
      text:
        '[image: declared image/png, 12 bytes: not a PNG, JPEG, GIF or WebP image]\n' +
        '[image: image/png, 33 bytes: it is 9000 × 10 pixels; the API accepts at most 8000 pixels per side]',
    },
  ]);
});
