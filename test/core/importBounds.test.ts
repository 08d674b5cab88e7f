// Hostile input at the engine level (issue 12, item 13): JSON nested deeper than the engine reads, files
// that are not regular files or are too large, and one-letter runs of megabytes. Each must give an
// ImportError naming the file, the line and the field (what the CLI prints and the extension's "Inspect
// Session File…" shows), or be counted; never a RangeError, a hang, or an allocation of gigabytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ImportError, importSession, readSessionFile } from '../../src/core';
import { MAX_JSON_DEPTH, MAX_SESSION_FILE_BYTES } from '../../src/core/importers';
import { countInSegments, findLongRuns, GptTokenizerTokenizer } from '../../src/core/counting/tokenizers';

/** `{"a":{"a":…"x"…}}`, `depth` objects deep, written as text (JSON.stringify itself overflows on it). */
function deepObject(depth: number): string {
  return '{"a":'.repeat(depth) + '"x"' + '}'.repeat(depth);
}

/** `[[[…"x"…]]]`, `depth` arrays deep. */
function deepArray(depth: number): string {
  return '['.repeat(depth) + '"x"' + ']'.repeat(depth);
}

function anthropicWithInput(input: string): string {
  return (
    '[{"role":"user","content":"hi"},' +
    `{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"read_file","input":${input}}]},` +
    '{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}]'
  );
}

function importError(text: string, file: string): ImportError {
  try {
    importSession(text, file);
  } catch (e) {
    assert.ok(e instanceof ImportError, `expected an ImportError, got ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
    return e;
  }
  assert.fail(`${file} was imported`);
}

function assertTooDeep(e: ImportError, line: number | undefined, fieldStart: string): void {
  assert.equal(e.line, line, e.message);
  assert.ok(e.field?.startsWith(fieldStart), `field ${e.field} should start with ${fieldStart}`);
  assert.match(e.detail, new RegExp(`nested deeper than ${MAX_JSON_DEPTH} levels`));
  assert.ok(e.message.length < 400, `a readable message, not the whole path: ${e.message.length} chars`);
}

test('a 20,000-deep tool input in Anthropic JSON is an ImportError naming the file, the line and the field', () => {
  const e = importError(anthropicWithInput(deepObject(20_000)), 'deep.json');
  assertTooDeep(e, 1, '[1].content[0].input.a.a');
  assert.match(e.message, /^deep\.json:1: \[1\]\.content\[0\]\.input\.a\.a/);
});

test('a 20,000-deep array in a tool input on line 2 of Anthropic JSON ({messages}) is an ImportError there', () => {
  const text =
    '{"model":"m","messages":[{"role":"user","content":"hi"},\n' +
    `{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"x","input":{"list":${deepArray(20_000)}}}]},` +
    '{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}]}';
  assertTooDeep(importError(text, 'deep-list.json'), 2, 'messages[1].content[0].input.list[0][0]');
});

test('a 20,000-deep tool input on line 2 of a Claude Code session names line 2', () => {
  const base = '"parentUuid":null,"isSidechain":false,"sessionId":"s","timestamp":"2026-01-01T00:00:00Z"';
  const lines = [
    `{"type":"user",${base},"uuid":"u1","message":{"role":"user","content":"hi"}}`,
    `{"type":"assistant",${base},"uuid":"u2","message":{"role":"assistant",` +
      `"content":[{"type":"tool_use","id":"t1","name":"Read","input":${deepObject(20_000)}}]}}`,
    `{"type":"user",${base},"uuid":"u3","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}`,
  ];
  assertTooDeep(importError(lines.join('\n') + '\n', 'cc.jsonl'), 2, 'message.content[0].input.a.a');
});

test('a 20,000-deep tool input in Splitpoint JSONL names its line (it threw RangeError)', () => {
  const text =
    '{"id":"m1","role":"user","content":"hi"}\n' +
    `{"id":"m2","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"x","input":${deepObject(20_000)}}]}\n`;
  assertTooDeep(importError(text, 'sp.jsonl'), 2, 'content[0].input.a.a');
});

test('Codex function_call arguments that parse to 20,000 levels are an ImportError on their line', () => {
  const lines = [
    { type: 'session_meta', payload: { id: 'c1', timestamp: '2026-01-01T00:00:00Z', cwd: '/w' } },
    { type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] } },
    { type: 'response_item', payload: { type: 'function_call', name: 'shell', call_id: 'c1', arguments: deepObject(20_000) } },
    { type: 'response_item', payload: { type: 'function_call_output', call_id: 'c1', output: 'ok' } },
  ];
  const text = lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
  assertTooDeep(importError(text, 'rollout.jsonl'), 3, 'payload.arguments');
});

test('brackets inside strings do not count as depth; exactly the maximum depth imports', () => {
  const brackets = JSON.stringify('[{'.repeat(20_000) + '\\"]}');
  const atLimit = deepObject(MAX_JSON_DEPTH - 5); // the message and the block take 5 levels: [ { content [ { input
  const r = importSession(anthropicWithInput(`{"s":${brackets},"deep":${atLimit}}`), 'ok.json');
  assert.equal(r.messages.length, 3);
  const over = importError(anthropicWithInput(`{"deep":${deepObject(MAX_JSON_DEPTH)}}`), 'over.json');
  assertTooDeep(over, 1, '[1].content[0].input.deep.a');
});

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'splitpoint-bounds-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function readError(path: string, maxBytes?: number): ImportError {
  try {
    readSessionFile(path, maxBytes);
  } catch (e) {
    assert.ok(e instanceof ImportError, `expected an ImportError, got ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
    assert.equal(e.file, path);
    return e;
  }
  assert.fail(`${path} was read`);
}

test('readSessionFile refuses /dev/zero, a directory, a FIFO and a symlink to a device at once, without reading them', () => {
  const dir = scratch();
  const fifo = join(dir, 'session.fifo');
  execFileSync('mkfifo', [fifo]);
  const link = join(dir, 'zero.jsonl');
  symlinkSync('/dev/zero', link);
  mkdirSync(join(dir, 'folder.jsonl'));
  const started = Date.now();
  for (const path of ['/dev/zero', '/dev/urandom', join(dir, 'folder.jsonl'), fifo, link]) {
    assert.match(readError(path).detail, /not a regular file/, path);
  }
  assert.ok(Date.now() - started < 2000, `refused in ${Date.now() - started} ms`);
  assert.match(readError(join(dir, 'missing.jsonl')).detail, /file not found/);
});

test('readSessionFile refuses a file over the size limit before reading it, and reads one at the limit', () => {
  const dir = scratch();
  const huge = join(dir, 'huge.jsonl');
  writeFileSync(huge, '');
  truncateSync(huge, MAX_SESSION_FILE_BYTES + 1); // sparse: no disk used
  const e = readError(huge);
  assert.match(e.detail, /larger than/);
  assert.match(e.detail, new RegExp(`${MAX_SESSION_FILE_BYTES / 1024 / 1024} MiB`));
  const small = join(dir, 'small.jsonl');
  const text = '{"id":"m1","role":"user","content":"hé"}\n'; // 42 bytes
  writeFileSync(small, text);
  assert.equal(readSessionFile(small, 42), text);
  assert.match(readError(small, 41).detail, /larger than the 41 bytes limit/);
});

test('a 10 MB run of one letter, one punctuation mark, one CJK character or one combining letter is counted', () => {
  const tokenizer = new GptTokenizerTokenizer();
  for (const [name, unit] of [
    ['letter', 'a'],
    ['punctuation', '!'],
    ['CJK', '字'],
    ['combining', 'e\u0301'],
  ] as const) {
    const text = unit.repeat(Math.floor(10_000_000 / unit.length));
    const started = Date.now();
    const runs = findLongRuns(text);
    assert.deepEqual(runs, [[0, text.length]], name);
    const n = tokenizer.countText(text);
    assert.ok(n > 0 && n <= text.length, `${name}: ${n} tokens`);
    assert.ok(Date.now() - started < 60_000, `${name}: ${Date.now() - started} ms`);
  }
  // Chunked counting sees every character: a chars-per-chunk counter adds up to the length.
  const mixed = 'x '.repeat(1000) + 'b'.repeat(3_000_000) + ' tail';
  assert.equal(
    countInSegments(mixed, (s) => s.length),
    mixed.length,
  );
});
