// edit_file and write_file against a real temp folder (see toolWorkspace.ts): changes wait for
// approval with a unified diff, a rejection changes nothing and says why, an edit must match exactly
// once (or replace_all), CRLF and $ patterns are kept, a file changed meanwhile is not overwritten.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createToolWorkspace, harness, removeToolWorkspace, toolRunner } from './toolWorkspace';

let base: string;
let ws: string;
before(() => ({ base, ws } = createToolWorkspace()));
after(() => removeToolWorkspace(base));
const { exec } = toolRunner(() => ws);

describe('edit_file', () => {
  test('an approved edit changes the file; the approval shows a unified diff', async () => {
    writeFileSync(join(ws, 'edit.ts'), 'const a = 1;\nconst b = 2;\nconst c = 3;\n');
    chmodSync(join(ws, 'edit.ts'), 0o640);
    const h = harness();
    const r = await exec('edit_file', { path: 'edit.ts', old_string: 'const b = 2;', new_string: 'const b = 20;' }, h);
    assert.equal(r.isError, false, r.content);
    assert.equal(r.content, 'Edited edit.ts: 1 replacement.');
    assert.equal(readFileSync(join(ws, 'edit.ts'), 'utf8'), 'const a = 1;\nconst b = 20;\nconst c = 3;\n');
    assert.equal(statSync(join(ws, 'edit.ts')).mode & 0o777, 0o640, 'the atomic write keeps the mode');
    assert.equal(h.requests.length, 1);
    const req = h.requests[0];
    assert.equal(req.tool, 'edit_file');
    assert.equal(req.title, 'Edit edit.ts');
    assert.deepEqual(req.diff, {
      path: 'edit.ts',
      isNewFile: false,
      unified: '--- a/edit.ts\n+++ b/edit.ts\n@@ -1,3 +1,3 @@\n const a = 1;\n-const b = 2;\n+const b = 20;\n const c = 3;\n',
    });
  });

  test('a rejected edit leaves the file unchanged and tells the model why', async () => {
    writeFileSync(join(ws, 'keep.ts'), 'let x = 1;\n');
    const r = await exec(
      'edit_file',
      { path: 'keep.ts', old_string: 'let', new_string: 'var' },
      harness(() => ({ approved: false, reason: 'keep let' })),
    );
    assert.equal(r.isError, true);
    assert.equal(r.content, 'The user rejected this change to keep.ts: keep let The file was not changed.');
    assert.equal(readFileSync(join(ws, 'keep.ts'), 'utf8'), 'let x = 1;\n');
  });

  test('old_string must match exactly once unless replace_all', async () => {
    writeFileSync(join(ws, 'dup.ts'), 'foo();\nfoo();\nbar();\n');
    const h = harness();
    const missing = await exec('edit_file', { path: 'dup.ts', old_string: 'baz();', new_string: 'x' }, h);
    assert.match(missing.content, /old_string was not found in dup.ts/);
    const twice = await exec('edit_file', { path: 'dup.ts', old_string: 'foo();', new_string: 'x();' }, h);
    assert.match(twice.content, /old_string occurs 2 times in dup.ts; include more surrounding lines .* or set replace_all/);
    assert.equal(h.requests.length, 0, 'no approval for an edit that cannot apply');
    const empty = await exec('edit_file', { path: 'dup.ts', old_string: '', new_string: 'x' }, h);
    assert.match(empty.content, /old_string is empty/);
    const same = await exec('edit_file', { path: 'dup.ts', old_string: 'bar();', new_string: 'bar();' }, h);
    assert.match(same.content, /identical/);
    const all = await exec('edit_file', { path: 'dup.ts', old_string: 'foo();', new_string: 'qux();', replace_all: true }, h);
    assert.equal(all.content, 'Edited dup.ts: 2 replacements.');
    assert.equal(readFileSync(join(ws, 'dup.ts'), 'utf8'), 'qux();\nqux();\nbar();\n');
    assert.match(h.requests[0].title, /\(2 replacements\)/);
    assert.match(
      (await exec('edit_file', { path: 'none.ts', old_string: 'a', new_string: 'b' })).content,
      /no such file: none.ts \(use write_file/,
    );
  });

  test('edits with LF strings apply to CRLF files, keeping CRLF; special $ patterns are literal', async () => {
    writeFileSync(join(ws, 'crlf.txt'), 'one\r\ntwo\r\nthree\r\n');
    const r = await exec('edit_file', { path: 'crlf.txt', old_string: 'one\ntwo', new_string: 'ONE $& $1\nTWO' });
    assert.equal(r.isError, false, r.content);
    assert.equal(readFileSync(join(ws, 'crlf.txt'), 'utf8'), 'ONE $& $1\r\nTWO\r\nthree\r\n');
  });

  test('a file changed while waiting for approval is not overwritten', async () => {
    writeFileSync(join(ws, 'race.ts'), 'v1\n');
    const r = await exec(
      'edit_file',
      { path: 'race.ts', old_string: 'v1', new_string: 'v2' },
      harness(() => {
        writeFileSync(join(ws, 'race.ts'), 'someone else\n');
        return { approved: true };
      }),
    );
    assert.equal(r.isError, true);
    assert.match(r.content, /changed on disk while waiting for approval/);
    assert.equal(readFileSync(join(ws, 'race.ts'), 'utf8'), 'someone else\n');
  });
});

describe('write_file', () => {
  test('write_file creates a new file (and its folders) after approval, with a /dev/null diff', async () => {
    const h = harness();
    const r = await exec('write_file', { path: 'new/dir/file.txt', content: 'hello\nworld' }, h);
    assert.equal(r.isError, false, r.content);
    assert.equal(r.content, 'Created new/dir/file.txt (2 lines, 11 B).');
    assert.equal(readFileSync(join(ws, 'new', 'dir', 'file.txt'), 'utf8'), 'hello\nworld');
    assert.equal(h.requests[0].title, 'Create new/dir/file.txt');
    assert.deepEqual(h.requests[0].diff, {
      path: 'new/dir/file.txt',
      isNewFile: true,
      unified: '--- /dev/null\n+++ b/new/dir/file.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n\\ No newline at end of file\n',
    });
  });

  test('write_file rejected creates nothing; overwriting shows the diff against the old content', async () => {
    const r = await exec(
      'write_file',
      { path: 'never.txt', content: 'x' },
      harness(() => ({ approved: false })),
    );
    assert.equal(r.isError, true);
    assert.equal(r.content, 'The user rejected this change to never.txt. The file was not changed.');
    assert.equal(existsSync(join(ws, 'never.txt')), false);
    writeFileSync(join(ws, 'over.txt'), 'a\nb\n');
    const h = harness();
    await exec('write_file', { path: 'over.txt', content: 'a\nc\n' }, h);
    assert.equal(h.requests[0].title, 'Overwrite over.txt');
    assert.match(h.requests[0].diff!.unified, /-b\n\+c\n/);
    assert.equal(h.requests[0].diff!.isNewFile, false);
    assert.equal(readFileSync(join(ws, 'over.txt'), 'utf8'), 'a\nc\n');
    assert.match((await exec('write_file', { path: 'src', content: 'x' })).content, /src is a folder/);
  });

  test('writing through a symlink to a file inside the workspace writes the target, keeping the link', async () => {
    writeFileSync(join(ws, 'target.txt'), 'old\n');
    symlinkSync(join(ws, 'target.txt'), join(ws, 'link.txt'));
    const r = await exec('write_file', { path: 'link.txt', content: 'new\n' });
    assert.equal(r.isError, false, r.content);
    assert.equal(readFileSync(join(ws, 'target.txt'), 'utf8'), 'new\n');
  });
});
