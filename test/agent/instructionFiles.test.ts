// The workspace's instruction files on a real file system (issue 23): which folders are looked in (the
// root, then every folder down to a file the agent touched; nothing outside the workspace), a symlink
// out of the workspace skipped, a big file read in part with its whole size reported, and the text
// withheld until allowed in an untrusted workspace.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InstructionFiles } from '../../src/agent/instructions/instructionFiles';

function workspace(files: Record<string, string>): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'sp-instr-files-')));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(root, rel, '..'), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  return root;
}

test('folders join as the agent touches files below them (every level), never outside the workspace', () => {
  const root = workspace({ 'CLAUDE.md': 'root', 'a/AGENTS.md': 'a', 'a/b/CLAUDE.md': 'ab', 'z/AGENTS.md': 'z' });
  const files = new InstructionFiles({ root, trusted: true });
  assert.deepEqual(
    files.sources().map((s) => s.name),
    ['CLAUDE.md'],
  );
  assert.equal(files.noteTouched('a/b/c/deep.ts'), true);
  assert.equal(files.noteTouched(join(root, 'a', 'b', 'other.ts')), false, 'an absolute path in a known folder adds nothing');
  assert.equal(files.noteTouched('../outside/x.ts'), false);
  assert.equal(files.noteTouched('/etc/passwd'), false);
  assert.equal(files.noteTouched('top.ts'), false, 'the root is always looked in');
  assert.deepEqual(
    files.sources().map((s) => [s.name, s.text]),
    [
      ['CLAUDE.md', 'root'],
      ['a/AGENTS.md', 'a'],
      ['a/b/CLAUDE.md', 'ab'],
    ],
  );
});

test('a symlinked AGENTS.md pointing out of the workspace is skipped; a directory named AGENTS.md is not a file', () => {
  const outside = workspace({ 'secret.md': 'SECRET' });
  const root = workspace({});
  symlinkSync(join(outside, 'secret.md'), join(root, 'AGENTS.md'));
  mkdirSync(join(root, 'CLAUDE.md'));
  assert.deepEqual(new InstructionFiles({ root, trusted: true }).sources(), []);
});

test('a file over 64 KB is read in part and reports its whole size; untrusted: listed with its size, no text, until allow()', () => {
  const root = workspace({ 'AGENTS.md': 'r'.repeat(100_000) });
  const files = new InstructionFiles({ root, trusted: false });
  const [listed] = files.sources();
  assert.deepEqual([listed!.sent, listed!.text, listed!.originalChars], [false, '', 100_000]);
  assert.equal(files.sending, false);
  files.allow();
  const [sent] = files.sources();
  assert.deepEqual([sent!.sent, sent!.text.length, sent!.originalChars], [true, 64 * 1024, 100_000]);
  assert.deepEqual(new InstructionFiles({ root: undefined, trusted: true }).sources(), [], 'no folder, no files');
});
