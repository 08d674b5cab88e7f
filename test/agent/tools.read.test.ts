// The reading tools against a real temp folder (see toolWorkspace.ts): read_file numbers lines, reads
// ranges and caps its output; list_files skips .git and node_modules and marks symlinks; search finds
// text with its options, caps results and output, and reports no matches, bad regexes and big files.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WorkspaceTools } from '../../src/agent/tools';
import { createToolWorkspace, harness, removeToolWorkspace, toolRunner } from './toolWorkspace';

let base: string;
let ws: string;
before(() => ({ base, ws } = createToolWorkspace()));
after(() => removeToolWorkspace(base));
const { exec } = toolRunner(() => ws);

const last = <T>(xs: readonly T[]): T => xs[xs.length - 1];

describe('read_file', () => {
  test('numbers lines and reads inclusive 1-based ranges', async () => {
    const all = await exec('read_file', { path: 'src/a.ts' });
    assert.equal(all.content, '1\texport const a = 1;\n2\texport function add(x: number, y: number) {\n3\t  return x + y;\n4\t}');
    const part = await exec('read_file', { path: 'src/a.ts', start_line: 2, end_line: 3 });
    assert.equal(part.content, '2\texport function add(x: number, y: number) {\n3\t  return x + y;\n[Lines 2-3 of 4.]');
  });

  test('refuses binary files, folders, missing files and bad ranges with clear errors', async () => {
    assert.match((await exec('read_file', { path: 'logo.bin' })).content, /looks like a binary file/);
    assert.match((await exec('read_file', { path: 'src' })).content, /is a folder; use list_files/);
    assert.match((await exec('read_file', { path: 'nope.ts' })).content, /no such file: nope.ts/);
    assert.match((await exec('read_file', { path: 'src/a.ts', start_line: 9 })).content, /past the end of src\/a.ts \(4 lines\)/);
    assert.match(
      (await exec('read_file', { path: 'src/a.ts', start_line: 3, end_line: 2 })).content,
      /end_line \(2\) is before start_line \(3\)/,
    );
    assert.match((await exec('read_file', { path: 'src/a.ts', start_line: 0 })).content, /start_line must be at least 1/);
    assert.match((await exec('read_file', {})).content, /path must be a string/);
  });

  test('caps output size with a note saying how to read on', async () => {
    const big = Array.from({ length: 5000 }, (_, i) => `line ${i + 1} ${'x'.repeat(60)}`).join('\n');
    writeFileSync(join(ws, 'big.txt'), big);
    const t = new WorkspaceTools({ root: ws, limits: { maxReadOutputBytes: 10_000 } });
    const r = await exec('read_file', { path: 'big.txt' }, harness(), t);
    assert.equal(r.isError, false);
    assert.ok(Buffer.byteLength(r.content) < 10_300, `${Buffer.byteLength(r.content)} bytes`);
    assert.match(r.content, /\[Output truncated at 9\.8 KB: showing lines 1-\d+ of 5000\. Read more with start_line: \d+\.\]$/);
  });
});

describe('list_files', () => {
  test('lists a folder, skipping .git and node_modules; recursive walks subfolders; symlinks are marked, not followed', async () => {
    const top = await exec('list_files', {});
    const lines = top.content.split('\n');
    assert.ok(lines.includes('src/'));
    assert.ok(lines.includes('README.md'));
    assert.ok(lines.includes('outside-dir@'));
    assert.ok(!lines.some((l) => l.startsWith('node_modules') || l.startsWith('.git')));
    assert.ok(!lines.includes('src/a.ts'), 'not recursive by default');
    const rec = await exec('list_files', { path: 'src', recursive: true });
    assert.deepEqual(rec.content.split('\n'), ['src/a.ts', 'src/b.ts', 'src/deep/', 'src/deep/c.ts']);
  });

  test('caps the number of entries with a note', async () => {
    const r = await exec('list_files', { recursive: true, max_entries: 2 });
    assert.match(r.content, /\[Listing truncated at 2 entries/);
    assert.equal(r.content.split('\n').filter((l) => !l.startsWith('[')).length, 2);
  });
});

describe('search', () => {
  test('finds text case-insensitively by default, skipping binary files, .git and node_modules', async () => {
    const r = await exec('search', { query: 'needle' });
    assert.equal(r.isError, false);
    assert.deepEqual(r.content.split('\n'), ['src/b.ts:2: // NEEDLE here', 'src/deep/c.ts:1: const needle = "deep";']);
  });

  test('case_sensitive, regex, path and max_results', async () => {
    assert.deepEqual((await exec('search', { query: 'NEEDLE', case_sensitive: true })).content.split('\n'), ['src/b.ts:2: // NEEDLE here']);
    assert.match(
      (await exec('search', { query: 'add\\(\\d, \\d\\)', regex: true })).content,
      /^src\/b\.ts:3: console\.log\(add\(1, 2\)\);$/,
    );
    assert.match((await exec('search', { query: 'needle', path: 'src/deep' })).content, /^src\/deep\/c\.ts:1:/);
    assert.match((await exec('search', { query: 'export', path: 'src/a.ts' })).content, /src\/a\.ts:1: .*\nsrc\/a\.ts:2: /);
    const capped = await exec('search', { query: 'e', max_results: 2 });
    assert.equal(capped.content.split('\n').filter((l) => !l.startsWith('[')).length, 2);
    assert.match(capped.content, /\[Stopped at 2 results/);
  });

  test('caps the size of the output, keeping whole lines', async () => {
    const t = new WorkspaceTools({ root: ws, limits: { maxReadOutputBytes: 40 } });
    const r = await exec('search', { query: 'e', path: 'src' }, harness(), t);
    const lines = r.content.split('\n');
    assert.match(last(lines), /^\[Output capped at 40 B: \d+ more results not shown\.\]$/);
    assert.ok(lines.slice(0, -1).every((l) => /^src\/[a-z/]+\.ts:\d+: /.test(l)));
    assert.match((await exec('search', { query: 'log\\(add\\(\\d, \\d\\)\\)', regex: true })).content, /^src\/b\.ts:3:/);
  });

  test('reports no matches, a bad regex and large files clearly', async () => {
    assert.match(
      (await exec('search', { query: 'zebra-not-there' })).content,
      /^No matches for "zebra-not-there" in \. \(\d+ files searched\)\.$/,
    );
    assert.match((await exec('search', { query: '(', regex: true })).content, /invalid regular expression/);
    const limit = statSync(join(ws, 'src', 'b.ts')).size;
    assert.ok(statSync(join(ws, 'src', 'a.ts')).size > limit);
    const t = new WorkspaceTools({ root: ws, limits: { maxSearchFileBytes: limit } });
    const r = await exec('search', { query: 'add', path: 'src' }, harness(), t);
    assert.match(r.content, new RegExp(`^src/b\\.ts:1: .*\\nsrc/b\\.ts:3: .*\\n\\[Skipped 1 file larger than ${limit} B\\.\\]$`));
  });
});
