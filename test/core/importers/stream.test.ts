// The streamed import (src/core/importers/stream.ts) gives what the whole-text import gives, on every
// fixture and real session, whatever the chunk size; and its bound errors still name the file and line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ImportError, importSession, importSessionFile, readSessionFile } from '../../../src/core';
import { MAX_JSON_DEPTH } from '../../../src/core/importers';

const REAL = 'test/fixtures/real-sessions';
const files = [
  ...readdirSync('test/fixtures/sessions').map((f) => join('test/fixtures/sessions', f)),
  ...readdirSync('test/fixtures/malformed').map((f) => join('test/fixtures/malformed', f)),
  'examples/session.jsonl',
  ...(existsSync(REAL) ? readdirSync(REAL).filter((f) => f.endsWith('.jsonl')) : []).map((f) => join(REAL, f)),
];

/** The whole-text import's result, or the message of its error. */
function whole(path: string): unknown {
  try {
    return importSession(readSessionFile(path), path);
  } catch (e) {
    return { error: (e as Error).message, importError: e instanceof ImportError };
  }
}

async function streamed(path: string, chunkBytes?: number): Promise<unknown> {
  try {
    return await importSessionFile(path, { chunkBytes });
  } catch (e) {
    return { error: (e as Error).message, importError: e instanceof ImportError };
  }
}

test('every fixture and real session imports streamed exactly as the whole text imports', async () => {
  assert.ok(files.length > 25, `fixtures found: ${files.length}`);
  assert.ok(
    files.some((f) => f.startsWith(REAL)),
    'the real sessions are compared too',
  );
  for (const path of files) assert.deepEqual(await streamed(path), whole(path), path);
});

test('chunk boundaries anywhere (inside a line, inside a UTF-8 character, between \\r and \\n) change nothing', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'stream-import-'));
  try {
    const lines = [
      { id: 'm1', role: 'user', content: 'héllo 世界 🎉 — first' },
      { id: 'm2', role: 'assistant', content: [{ type: 'text', text: 'ça va? ' + 'ü'.repeat(50) }] },
      { id: 'm3', role: 'user', content: 'three\nlines\r\ninside' },
    ];
    const path = join(dir, 'crlf-bom.jsonl');
    writeFileSync(path, '\ufeff' + lines.map((l) => JSON.stringify(l)).join('\r\n') + '\r\n\r\n');
    const expected = whole(path);
    assert.equal((expected as { messages: unknown[] }).messages.length, 3);
    for (const chunk of [1, 2, 3, 5, 7, 64]) assert.deepEqual(await streamed(path, chunk), expected, `chunks of ${chunk} bytes`);
    for (const f of files.filter((p) => p.includes('claude-code-rewind') || p.includes('codex-compactions')))
      assert.deepEqual(await streamed(f, 13), whole(f), f);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('bound errors name the file and the line: invalid JSON, a line nested too deep, a file too large, not a file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'stream-import-'));
  try {
    const header = JSON.stringify({ type: 'splitpoint.header', version: 1 });
    const ok = JSON.stringify({ id: 'a', role: 'user', content: 'hi' });

    const broken = join(dir, 'broken.jsonl');
    writeFileSync(broken, [header, ok, '{"id": "b", "role": '].join('\n'));
    await assert.rejects(importSessionFile(broken), (e: unknown) => {
      assert.ok(e instanceof ImportError);
      assert.equal(e.file, broken);
      assert.equal(e.line, 3);
      assert.match(e.message, /broken\.jsonl:3: invalid JSON/);
      return true;
    });

    const deep = join(dir, 'deep.jsonl');
    const tooDeep = '{"a":'.repeat(MAX_JSON_DEPTH + 5) + '"x"' + '}'.repeat(MAX_JSON_DEPTH + 5);
    writeFileSync(deep, [header, ok, `{"id":"b","role":"user","content":"x","extra":${tooDeep}}`].join('\n'));
    await assert.rejects(importSessionFile(deep), (e: unknown) => {
      assert.ok(e instanceof ImportError);
      assert.equal(e.line, 3);
      assert.match(e.message, new RegExp(`deep\\.jsonl:3: extra(\\.a)+…?: nested deeper than ${MAX_JSON_DEPTH} levels`));
      return true;
    });
    assert.deepEqual(await streamed(deep), whole(deep));

    const large = join(dir, 'large.jsonl');
    writeFileSync(large, [header, ok, ok.replace('"a"', '"b"')].join('\n'));
    await assert.rejects(importSessionFile(large, { maxBytes: 50 }), /large\.jsonl: the file is \d+ bytes, larger than the 50 bytes limit/);

    await assert.rejects(importSessionFile(dir), /not a regular file \(a directory\)/);
    await assert.rejects(importSessionFile(join(dir, 'missing.jsonl')), /missing\.jsonl: file not found/);
    const fifo = join(dir, 'fifo.jsonl');
    execFileSync('mkfifo', [fifo]);
    await assert.rejects(importSessionFile(fifo), /fifo\.jsonl: not a regular file \(a FIFO \(named pipe\)\)/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('progress is reported per chunk up to the file size', async () => {
  const path = 'test/fixtures/sessions/claude-code-session.jsonl';
  const seen: Array<[number, number]> = [];
  await importSessionFile(path, { chunkBytes: 512, onProgress: (bytes, size) => seen.push([bytes, size]) });
  assert.ok(seen.length > 2);
  const [last, size] = seen.at(-1)!;
  assert.equal(last, size);
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i][0] > seen[i - 1][0]);
});
