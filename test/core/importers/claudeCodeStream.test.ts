// The one-pass read of a Claude Code file (src/core/importers/claudeCodeStream.ts): each line is read into the
// importer as it arrives, and a line-by-line check says whether the file is one linear main chain in reading
// order. The one pass is taken for such files (parallel tool results, progress lines off the chain, compactions
// included) and then gives exactly the whole-text import; every other file (a rewind, a result
// written before its call, an attachment after the last message, a sub-agent's own file, a preserved segment, a
// repeated line) is
// given up, and the streamed import reads it again with every line kept (same result as the whole text).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importSession, importSessionFile, type ImportResult } from '../../../src/core';
import { ClaudeCodeStream } from '../../../src/core/importers/claudeCodeStream';
import { parseJsonLines } from '../../../src/core/importers/json';
import { runSteps } from '../../../src/core/importers/steps';

const SESSIONS = 'test/fixtures/sessions';
const REAL = 'test/fixtures/real-sessions';

/** The one-pass import of `text`, or undefined when it was given up. */
function onePass(text: string, file = 'f.jsonl'): ImportResult | undefined {
  const stream = new ClaudeCodeStream(file);
  for (const l of parseJsonLines(text, file)) stream.line(l);
  return runSteps(stream.result());
}

const read = (path: string): string => readFileSync(path, 'utf8');
const records = (text: string): Array<Record<string, unknown>> =>
  text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const jsonl = (rows: ReadonlyArray<Record<string, unknown>>): string => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

test('one pass for the linear files, the same import as the whole text; the others are given up', () => {
  const linear = [
    'claude-code-session.jsonl',
    'claude-code-two-compactions.jsonl',
    'claude-code-artefacts.jsonl',
    'claude-code-queued.jsonl',
    'claude-code-redacted-summary.jsonl',
  ].map((f) => join(SESSIONS, f));
  // Parallel tool calls whose results hang off different lines, progress lines off the chain.
  if (existsSync(REAL)) linear.push(join(REAL, 'claude-code-cipher-box-a.jsonl'), join(REAL, 'claude-code-cipher-box-b.jsonl'));
  for (const path of linear) {
    const result = onePass(read(path), path);
    assert.ok(result, `${path}: one pass`);
    assert.deepEqual(result, importSession(read(path), path), path);
  }
  for (const f of ['claude-code-rewind-compact.jsonl', 'claude-code-out-of-order.jsonl']) {
    assert.equal(onePass(read(join(SESSIONS, f))), undefined, f);
  }
});

test('each way a file leaves the linear chain is caught, and the streamed import still equals the whole text', async () => {
  const base = records(read(join(SESSIONS, 'claude-code-session.jsonl')));
  const at = (uuid: string): number => base.findIndex((r) => r.uuid === uuid);
  const result = at('r1000000-0000-4000-8000-000000000006');
  const call = at('a3000000-0000-4000-8000-000000000005');
  const last = base[base.length - 1];
  const variants: Record<string, Array<Record<string, unknown>>> = {
    // A tool result written before its call (and its parent).
    'result before its call': [...base.slice(0, call), base[result], ...base.slice(call, result), ...base.slice(result + 1)],
    // A prompt re-sent from an earlier line (a rewind): the lines after that line are an abandoned branch.
    rewind: [
      ...base,
      { ...base[at('u1b2c3d4-0000-4000-8000-000000000002')], uuid: 'rw-1', parentUuid: 'm0a1b2c3-0000-4000-8000-000000000001' },
    ],
    // A tool result whose parent is in order but whose call comes later.
    'a call after its result': [
      ...base,
      {
        type: 'user',
        uuid: 'late-r',
        parentUuid: last.uuid,
        isSidechain: false,
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_late', content: 'ok' }] },
      },
      {
        type: 'assistant',
        uuid: 'late-a',
        parentUuid: 'late-r',
        isSidechain: false,
        message: { id: 'msg_late', role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_late', name: 'read_file', input: {} }] },
      },
    ],
    // A tool result whose call is in order but whose parent comes later.
    'a parent after its result': [
      ...base,
      {
        type: 'assistant',
        uuid: 'p-a',
        parentUuid: last.uuid,
        isSidechain: false,
        message: { id: 'msg_p', role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_p', name: 'read_file', input: {} }] },
      },
      {
        type: 'user',
        uuid: 'p-r',
        parentUuid: 'p-x',
        isSidechain: false,
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_p', content: 'ok' }] },
      },
      {
        type: 'assistant',
        uuid: 'p-x',
        parentUuid: 'p-a',
        isSidechain: false,
        message: { id: 'msg_p', role: 'assistant', content: [{ type: 'text', text: 'reading' }] },
      },
    ],
    // A prompt abandoned in the middle (the next line hangs off the line before it).
    'an abandoned prompt in the middle': [
      ...base.slice(0, result + 1),
      { type: 'user', uuid: 'ab-1', parentUuid: base[call].uuid, isSidechain: false, message: { role: 'user', content: 'never mind' } },
      ...base.slice(result + 1),
    ],
    'an attachment after the last message': [
      ...base,
      { type: 'attachment', uuid: 'at-1', parentUuid: last.uuid, isSidechain: false, attachment: { type: 'todo_reminder', content: [] } },
    ],
    "a sub-agent's own file": base.map((r) => ('uuid' in r ? { ...r, isSidechain: true } : r)),
    'a compaction that keeps a segment': [
      ...base,
      {
        type: 'system',
        subtype: 'compact_boundary',
        uuid: 'cb-1',
        parentUuid: null,
        logicalParentUuid: last.uuid,
        isSidechain: false,
        compactMetadata: {
          trigger: 'auto',
          preTokens: 1000,
          preservedSegment: { headUuid: last.uuid, tailUuid: last.uuid, anchorUuid: 'cb-1' },
        },
      },
      {
        type: 'user',
        uuid: 'cs-1',
        parentUuid: 'cb-1',
        isSidechain: false,
        isCompactSummary: true,
        message: { role: 'user', content: 'This session is being continued. Summary: the parser was fixed.' },
      },
    ],
    'a parallel result as the last message line': [
      ...base.slice(0, at('r2000000-0000-4000-8000-000000000011')),
      base[at('r3000000-0000-4000-8000-000000000012')],
      { ...base[at('r2000000-0000-4000-8000-000000000011')], parentUuid: 'a4000000-0000-4000-8000-000000000007' },
    ],
  };
  const dir = mkdtempSync(join(tmpdir(), 'cc-stream-'));
  try {
    for (const [name, rows] of Object.entries(variants)) {
      const text = jsonl(rows);
      assert.equal(onePass(text), undefined, name);
      const path = join(dir, `${name.replaceAll(' ', '-')}.jsonl`);
      writeFileSync(path, text);
      assert.deepEqual(await importSessionFile(path), importSession(text, path), name);
    }
    // A repeated line (a resumed session) is given up too: the whole read names the line it repeats.
    const repeated = jsonl([...base.slice(0, result + 1), base[call], ...base.slice(result + 1)]);
    assert.equal(onePass(repeated), undefined, 'a repeated line');
    const path = join(dir, 'repeated.jsonl');
    writeFileSync(path, repeated);
    const imported = await importSessionFile(path);
    assert.deepEqual(imported, importSession(repeated, path));
    assert.ok(imported.warnings.some((w) => w.includes('repeats uuid')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a file the one pass gives up on is read again from where it gave up, not after reading it to the end', async () => {
  const path = join(SESSIONS, 'claude-code-rewind-compact.jsonl');
  const size = read(path).length;
  const seen: number[] = [];
  const imported = await importSessionFile(path, { chunkBytes: 256, onProgress: (bytes) => seen.push(bytes) });
  assert.deepEqual(imported, importSession(read(path), path));
  const restart = seen.findIndex((b, i) => i > 0 && b < seen[i - 1]);
  assert.ok(restart > 0, `read twice: ${seen.join(', ')}`);
  assert.ok(seen[restart - 1] < size, `the first read stopped early (${seen[restart - 1]} of ${size} bytes)`);
  assert.equal(seen.at(-1), size);
});
