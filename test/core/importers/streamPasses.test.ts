// The streamed import reads Codex and Splitpoint lines into their importers as they are parsed, and reads
// each chunk's lines in slices. Neither may change a result or an error: a line that does not parse is still
// reported before an importer's error on an earlier line; Claude Code's repeated lines and results written
// before their call are read as the whole-text import reads them, whatever the chunk size.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ImportError, importSession, importSessionFile, readSessionFile } from '../../../src/core';
import type { StreamImportOptions } from '../../../src/core/importers';

function outcome(run: () => unknown): unknown {
  try {
    return run();
  } catch (e) {
    return { error: (e as Error).message, importError: e instanceof ImportError };
  }
}

async function streamed(path: string, options: StreamImportOptions = {}): Promise<unknown> {
  try {
    return await importSessionFile(path, options);
  } catch (e) {
    return { error: (e as Error).message, importError: e instanceof ImportError };
  }
}

const whole = (path: string): unknown => outcome(() => importSession(readSessionFile(path), path));
const lines = (path: string): string[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');

function withDir(run: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'stream-passes-'));
  return run(dir).finally(() => rmSync(dir, { recursive: true, force: true }));
}

test('a line that does not parse is reported before an importer error on an earlier line (Codex, Splitpoint, Claude Code)', () =>
  withDir(async (dir) => {
    const cases: Array<[string, string]> = [
      ['test/fixtures/malformed/codex-missing-call-id.jsonl', 'codex.jsonl'],
      ['test/fixtures/malformed/late-header.jsonl', 'splitpoint.jsonl'],
      ['test/fixtures/malformed/claude-tool-use-no-id.jsonl', 'claude.jsonl'],
    ];
    for (const [fixture, name] of cases) {
      const bad = lines(fixture);
      // The importer's error alone: reported as the whole-text import reports it.
      const alone = join(dir, `alone-${name}`);
      writeFileSync(alone, bad.join('\n') + '\n');
      const expectedAlone = whole(alone);
      assert.match((expectedAlone as { error: string }).error, /:\d+:/, fixture);
      assert.deepEqual(await streamed(alone), expectedAlone, fixture);
      // Then a later line that does not parse: that error comes first.
      const both = join(dir, `both-${name}`);
      writeFileSync(both, [...bad, bad[0], '{"type": "user", oops'].join('\n') + '\n');
      const expected = whole(both);
      assert.match((expected as { error: string }).error, new RegExp(`:${bad.length + 2}:`), fixture);
      for (const chunkBytes of [undefined, 16]) assert.deepEqual(await streamed(both, { chunkBytes }), expected, fixture);
    }
  }));

test('Claude Code: repeated lines and results written before their call are read as the whole text reads them', () =>
  withDir(async (dir) => {
    for (const fixture of [
      'test/fixtures/sessions/claude-code-out-of-order.jsonl',
      'test/fixtures/real-sessions/claude-code-cipher-box-a.jsonl',
    ]) {
      const original = lines(fixture);
      // A resumed session writes earlier lines again: some in the middle, some at the end.
      const mixed = [...original.slice(0, 5), ...original.slice(1, 3), ...original.slice(5), ...original.slice(-3), original[0]];
      const path = join(dir, 'mixed.jsonl');
      writeFileSync(path, mixed.join('\n') + '\n');
      const expected = whole(path) as { warnings: string[] };
      assert.ok(
        expected.warnings.some((w) => w.includes('repeats uuid')),
        fixture,
      );
      if (fixture.includes('out-of-order'))
        assert.ok(
          expected.warnings.some((w) => w.includes('read after it')),
          fixture,
        );
      for (const chunkBytes of [undefined, 97]) assert.deepEqual(await streamed(path, { chunkBytes }), expected, fixture);
    }
  }));
