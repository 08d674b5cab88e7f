import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  loadTranscript,
  restoreTranscript,
  TranscriptCorruptError,
  TranscriptStore,
  TranscriptWriteError,
  transcriptFileName,
} from '../../src/core/transcripts/transcripts';
import { assistant, call, results, summary, user } from '../helpers/build';
import type { Message } from '../../src/core/conversation/conversation';

const tmp = () => mkdtempSync(join(tmpdir(), 'sp-tr-'));
const history = (): Message[] => [
  summary('s0', 'earlier: "quotes", \\ backslashes, 日本語, emoji 🙂\nand newlines'),
  user('u1'),
  { ...call('c1', ['t1', 'read_file']), createdAt: 1 },
  {
    ...results('r1', ['t1', 'line1\nline2\u2028sep']),
    truncated: { results: [{ toolUseId: 't1', toolName: 'read_file', originalChars: 99 }] },
  },
  {
    id: 'th',
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'hmm', signature: 'abc' },
      { type: 'text', text: 'ok' },
    ],
  },
  {
    id: 'img',
    role: 'user',
    content: [
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
      { type: 'text', text: 'see' },
    ],
  },
  assistant('a1'),
];

test('a transcript is named transcript_<epoch-ms>_<session>.jsonl and round-trips to the identical message list', () => {
  const dir = tmp();
  const store = new TranscriptStore({ dir, now: () => 1700000000123 });
  const path = store.save('sess-1', history(), 'compaction: test');
  assert.equal(path, join(dir, 'transcript_1700000000123_sess-1.jsonl'));
  assert.deepEqual(restoreTranscript(path), history());
  const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
  assert.equal(lines.length, history().length + 1, 'a header line then one message per line');
  assert.equal(JSON.parse(lines[0]).messageCount, history().length);
});

test('two transcripts in the same millisecond do not overwrite each other', () => {
  const dir = tmp();
  const store = new TranscriptStore({ dir, now: () => 42 });
  const a = store.save('s', [user('u1')], 'x');
  const b = store.save('s', [user('u2')], 'x');
  assert.notEqual(a, b);
  assert.deepEqual(restoreTranscript(a), [user('u1')]);
  assert.deepEqual(restoreTranscript(b), [user('u2')]);
  assert.deepEqual(store.list('s'), [b, a]);
});

test('a failed transcript write raises TranscriptWriteError and leaves no partial file', () => {
  const dir = tmp();
  const store = new TranscriptStore({
    dir,
    write: () => {
      throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    },
  });
  assert.throws(
    () => store.save('s', history(), 'x'),
    (e: unknown) => e instanceof TranscriptWriteError && /no space left.*history is unchanged/s.test((e as Error).message),
  );
  assert.deepEqual(readdirSync(dir), []);
});

test('the default atomic write leaves no temp files behind', () => {
  const dir = tmp();
  new TranscriptStore({ dir }).save('s', history(), 'x');
  assert.deepEqual(
    readdirSync(dir).filter((n) => n.endsWith('.tmp')),
    [],
  );
});

test('corrupt transcript lines are reported with file and line; the other lines are still read', () => {
  const dir = tmp();
  const path = join(dir, transcriptFileName('s', 5));
  const good = history();
  const lines = [
    JSON.stringify({ type: 'splitpoint.transcript', version: 1, sessionId: 's', createdAt: 5, reason: 'x', messageCount: 4 }),
    JSON.stringify(good[1]),
    '{"id": "broken", "role": "user", "content": "unterminated',
    JSON.stringify({ id: 'bad-role', role: 'system', content: 'x' }),
    JSON.stringify({ id: 'bad-tr', role: 'user', content: [{ type: 'tool_result' }] }),
    '',
    JSON.stringify(good[6]),
  ];
  writeFileSync(path, lines.join('\n'));
  const t = loadTranscript(path);
  assert.deepEqual(
    t.messages.map((m) => m.id),
    ['u1', 'a1'],
  );
  assert.deepEqual(
    t.errors.map((e) => [e.file, e.line]),
    [
      [path, 3],
      [path, 4],
      [path, 5],
    ],
  );
  assert.match(t.errors[0].message, /invalid JSON/);
  assert.match(t.errors[1].message, /field "role": expected "user" or "assistant", got "system"/);
  assert.match(t.errors[2].message, /content\[0\]\.tool_use_id/);
  assert.throws(
    () => restoreTranscript(path),
    (e: unknown) => e instanceof TranscriptCorruptError && (e as Error).message.includes(`${path}:3: invalid JSON`),
  );
});

test('restore refuses a transcript whose header count does not match (truncated file)', () => {
  const dir = tmp();
  const store = new TranscriptStore({ dir });
  const path = store.save('s', history(), 'x');
  const text = readFileSync(path, 'utf8').trimEnd().split('\n');
  writeFileSync(path, text.slice(0, -2).join('\n') + '\n');
  assert.throws(() => restoreTranscript(path), /header says 7 messages, file holds 5/);
});
