// What goes with a prompt: @-mentioned files (confined to the workspace like the file tools, capped
// with a truncation note, binary files refused), images (type from the header, 5 MB cap), the
// fuzzy ranking of the picker, the host's validation of 'send', and a prompt with attachments sent
// through the controller to the loopback server (the request carries the file and the image).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileBlockText, promptAttachments } from '../../src/agent/service/promptAttachments';
import { listWorkspaceFiles } from '../../src/agent/service/workspaceFiles';
import { findRipgrep } from '../../src/agent/tools';
import { parseChatToHost } from '../../src/protocol/validation';
import { rankPaths } from '../../webview/chat/fuzzy';
import { LoopbackAnthropic } from '../loopback/anthropic-server';
import { loopbackController } from '../helpers/loopbackController';

// A 2x1 PNG (IHDR says 2 x 1).
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAYAAAD0In+KAAAAEUlEQVR42mP8z8DwnwEIGBkBAAAA//8DAAb/Af8AAAAASUVORK5CYII=';

function workspace(): { root: string; outside: string } {
  const base = mkdtempSync(join(tmpdir(), 'sp-mention-'));
  const root = join(base, 'ws');
  mkdirSync(join(root, 'src'), { recursive: true });
  writeFileSync(join(root, 'src', 'a.ts'), 'export const a = 1;\n');
  writeFileSync(join(root, 'big.txt'), 'é'.repeat(40_000)); // 80,000 bytes, two per character
  writeFileSync(join(root, 'blob.bin'), Buffer.from([1, 2, 0, 3]));
  writeFileSync(join(base, 'secret'), 'TOP SECRET');
  symlinkSync(join(base, 'secret'), join(root, 'link'));
  return { root, outside: base };
}

test('mentions: files attached as <file> blocks; ../secret, a symlink out, a missing file and no workspace are refused, saying why', async () => {
  const { root } = workspace();
  const a = await promptAttachments(root, ['src/a.ts', '../secret', 'link', 'nope.ts', 'src/a.ts', './src/a.ts'], []);
  assert.deepEqual(a.files, ['src/a.ts']);
  assert.deepEqual(a.blocks, [{ type: 'text', text: '<file path="src/a.ts">\nexport const a = 1;\n</file>' }]);
  assert.equal(a.problems.length, 3);
  assert.match(a.problems[0]!, /^@\.\.\/secret was not attached: path escapes the workspace/);
  assert.match(a.problems[1]!, /^@link was not attached: path escapes the workspace/);
  assert.match(a.problems[2]!, /^@nope\.ts was not attached: no such file/);
  assert.ok(!JSON.stringify(a.blocks).includes('TOP SECRET'));
  const none = await promptAttachments(undefined, ['src/a.ts'], []);
  assert.deepEqual(none.problems, ['@src/a.ts was not attached: no workspace folder is open']);
});

test('mentions: a file over the cap is cut on a character boundary with a note; binary files are not attached', async () => {
  const { root } = workspace();
  const a = await promptAttachments(root, ['big.txt', 'blob.bin'], [], 50 * 1024);
  const text = (a.blocks[0] as { text: string }).text;
  assert.ok(text.startsWith('<file path="big.txt">\néé'));
  assert.ok(!text.includes('\uFFFD'), 'no half character');
  assert.equal([...text.matchAll(/é/g)].length, 25_600, '51,200 bytes of two-byte characters');
  assert.match(text, /\[truncated: the first 50 KB of 78 KB \(80000 bytes\) are shown; read_file reads the rest\]\n<\/file>$/);
  assert.equal((a.blocks[1] as { text: string }).text, '<file path="blob.bin">\n[binary file, 4 bytes: not attached]\n</file>');
  assert.equal(fileBlockText('x', Buffer.from('no newline'), 100), '<file path="x">\nno newline\n</file>');
});

test('images: the media type comes from the header; not an image or over 5 MB is refused', async () => {
  const a = await promptAttachments(
    undefined,
    [],
    [
      { mediaType: 'image/jpeg', data: PNG },
      { mediaType: 'image/png', data: Buffer.from('hello world!').toString('base64') },
      { mediaType: 'image/png', data: PNG + 'A'.repeat(7_000_000) },
    ],
  );
  assert.deepEqual(a.blocks, [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }]);
  assert.deepEqual(a.problems, [
    'Image 2 was not attached: it is not a PNG, JPEG, GIF or WebP image.',
    "Image 3 was not attached: it is over 5 MB (the API's limit).",
  ]);
});

test('fuzzy ranking: in-order characters, word starts and file names first; no match, no entry', () => {
  const files = [
    'src/agent/agent.ts',
    'test/agent/agent.test.ts',
    'src/agent/controller.ts',
    'README.md',
    'src/core/tokens.ts',
    'webview/chat/App.tsx',
  ];
  assert.deepEqual(
    rankPaths('agts', files)
      .slice(0, 2)
      .map((r) => r.path),
    ['src/agent/agent.ts', 'test/agent/agent.test.ts'],
  );
  assert.equal(rankPaths('ctrl', files)[0]!.path, 'src/agent/controller.ts');
  assert.equal(rankPaths('readme', files)[0]!.path, 'README.md', 'case-insensitive');
  assert.equal(rankPaths('app', files)[0]!.path, 'webview/chat/App.tsx');
  assert.deepEqual(rankPaths('zzz', files), []);
  assert.deepEqual(rankPaths('tokens', files)[0]!.positions, [9, 10, 11, 12, 13, 14]);
  assert.equal(rankPaths('', files).length, files.length, 'an empty query lists everything');
  assert.equal(rankPaths('', files, 2).length, 2, 'capped');
  const many = Array.from({ length: 10_000 }, (_, i) => `pkg${i % 50}/src/module${i}/index${i}.ts`);
  const t0 = performance.now();
  rankPaths('mod99idx', many);
  assert.ok(performance.now() - t0 < 500, 'ten thousand paths rank quickly');
});

test("send validation: mentions and images within the protocol's caps, else the message is dropped", () => {
  const ok = { type: 'send', text: 'hi', mentions: ['src/a.ts'], images: [{ mediaType: 'image/png', data: PNG }] };
  assert.deepEqual(parseChatToHost(ok), ok);
  assert.deepEqual(parseChatToHost({ type: 'send', text: '', images: [{ mediaType: 'image/png', data: PNG }] }), {
    type: 'send',
    text: '',
    images: [{ mediaType: 'image/png', data: PNG }],
  });
  assert.equal(parseChatToHost({ type: 'send', text: '' }), null, 'empty without images');
  assert.equal(parseChatToHost({ ...ok, images: [{ mediaType: 'image/svg+xml', data: PNG }] }), null);
  assert.equal(parseChatToHost({ ...ok, images: [{ mediaType: 'image/png', data: 'not base64!' }] }), null);
  assert.equal(parseChatToHost({ ...ok, images: [{ mediaType: 'image/png', data: PNG, url: 'x' }] }), null);
  assert.equal(parseChatToHost({ ...ok, mentions: Array(21).fill('a') }), null);
  assert.equal(parseChatToHost({ ...ok, mentions: [''] }), null);
  assert.equal(parseChatToHost({ ...ok, mentions: 'src/a.ts' }), null);
  assert.equal(parseChatToHost({ ...ok, images: [{ mediaType: 'image/png', data: 'A'.repeat(7_100_000) }] }), null, 'over 5 MB');
  assert.deepEqual(parseChatToHost({ type: 'listFiles' }), { type: 'listFiles' });
});

test('the file list: rg --files honours .gitignore, sorted, capped', { skip: !findRipgrep() && 'no rg' }, async () => {
  const { root } = workspace();
  writeFileSync(join(root, '.gitignore'), 'big.txt\n');
  assert.deepEqual(
    await listWorkspaceFiles(findRipgrep()!, root),
    { files: ['blob.bin', 'src/a.ts'], truncated: false },
    'not a git repository',
  );
  mkdirSync(join(root, '.git'));
  writeFileSync(join(root, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  const all = await listWorkspaceFiles(findRipgrep()!, root);
  assert.deepEqual(all, { files: ['blob.bin', 'src/a.ts'], truncated: false });
  assert.deepEqual(await listWorkspaceFiles(findRipgrep()!, root, 1), { files: ['blob.bin'], truncated: true });
});

test('a prompt with a mentioned file and an image reaches the API as text, file and image blocks; the chat shows both', async () => {
  const { root } = workspace();
  const server = new LoopbackAnthropic({ whenEmpty: 'echo' });
  const { baseURL } = await server.start();
  const c = loopbackController({ workspace: root, storage: mkdtempSync(join(tmpdir(), 'sp-mention-store-')), baseURL });
  try {
    const extra = await promptAttachments(root, ['src/a.ts'], [{ mediaType: 'image/png', data: PNG }]);
    await c.send('What is in @src/a.ts?', extra);
    const req = server.requests.find((r) => r.path === '/v1/messages' && r.status === 200)!;
    const first = (req.body.messages as Array<{ role: string; content: unknown }>)[0]!;
    // (cache_control breakpoints, the prompt cache's, are not what this test is about)
    const blocks = (first.content as Array<Record<string, unknown>>).map(({ cache_control: _, ...b }) => b);
    assert.deepEqual(blocks, [
      { type: 'text', text: 'What is in @src/a.ts?' },
      { type: 'text', text: '<file path="src/a.ts">\nexport const a = 1;\n</file>' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
    ]);
    const item = c.chatState(true).items[0]!;
    assert.deepEqual(item, {
      ...item,
      kind: 'user',
      text: 'What is in @src/a.ts?',
      files: ['src/a.ts'],
      images: [`data:image/png;base64,${PNG}`],
    });
  } finally {
    c.dispose();
    await server.close();
  }
});
