// A folder swapped, between the path check and the open, for a symlink to ANOTHER folder of the same
// workspace: the opened file is inside the workspace but is not the file that was checked, so nothing
// is read (the check of where the handle really is compares it with the checked path, not only with
// the workspace). Reads of paths that did not change are unaffected.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileConfined, resolveWorkspacePath } from '../../src/agent/tools';
import { openConfined } from '../../src/agent/tools/confinedFs';

let ws: string;

before(() => {
  ws = realpathSync(mkdtempSync(join(tmpdir(), 'sp-swap-inside-')));
  mkdirSync(join(ws, 'public'), { recursive: true });
  mkdirSync(join(ws, 'private'), { recursive: true });
  writeFileSync(join(ws, 'public', 'notes.txt'), 'public notes\n');
  writeFileSync(join(ws, 'private', 'notes.txt'), 'PRIVATE NOTES\n');
});

after(() => rmSync(ws, { recursive: true, force: true }));

test('a folder swapped for a symlink to another workspace folder after the check: the read is refused, the other file is not read', async () => {
  const target = resolveWorkspacePath(ws, 'public/notes.txt');
  assert.equal((await readFileConfined(ws, target)).toString(), 'public notes\n', 'unswapped, the checked file is read');
  renameSync(join(ws, 'public'), join(ws, 'public-moved'));
  symlinkSync(join(ws, 'private'), join(ws, 'public'));
  try {
    const outcome = await readFileConfined(ws, target).then(
      (bytes) => `read ${JSON.stringify(bytes.toString())}`,
      (e: Error) => e.message,
    );
    assert.match(outcome, /public\/notes\.txt changed after its path was checked .*private.*nothing was read or written/);
    await assert.rejects(openConfined(ws, target), /changed after its path was checked/);
    // Checked afresh, the path is the symlinked folder's file, and that is what is read.
    const fresh = resolveWorkspacePath(ws, 'public/notes.txt');
    assert.equal(fresh.real, join(ws, 'private', 'notes.txt'));
    assert.equal((await readFileConfined(ws, fresh)).toString(), 'PRIVATE NOTES\n');
  } finally {
    rmSync(join(ws, 'public'));
    renameSync(join(ws, 'public-moved'), join(ws, 'public'));
  }
});
