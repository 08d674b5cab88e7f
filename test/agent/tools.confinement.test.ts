// Path confinement of the workspace tools against a real temp folder (see toolWorkspace.ts): hostile
// paths (parent-relative, absolute, symlinked out, Windows-style, NUL, dangling links) are refused
// before any approval, for every tool; paths that stay inside are allowed under any spelling.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { resolveWorkspacePath } from '../../src/agent/tools';
import { createToolWorkspace, harness, removeToolWorkspace, toolRunner } from './toolWorkspace';

let base: string;
let ws: string;
let outside: string;
before(() => ({ base, ws, outside } = createToolWorkspace()));
after(() => removeToolWorkspace(base));
const { exec } = toolRunner(() => ws);

describe('path confinement', () => {
  const hostile: Array<[string, string]> = [
    ['../x', 'a parent-relative path'],
    ['/etc/passwd', 'an absolute path outside'],
    ['sub/../../x', 'a path that climbs out through ..'],
    ['etc-link/passwd', 'a symlink to /etc inside the workspace'],
    ['outside-dir/secret.txt', 'a symlinked folder pointing outside'],
    ['..\\x', 'a Windows-style ..\\ escape'],
    ['src\\..\\..\\x', 'a Windows-style escape through a real folder'],
  ];
  for (const [path, what] of hostile) {
    test(`read_file refuses ${what} (${JSON.stringify(path)}) with a clear error`, async () => {
      const r = await exec('read_file', { path });
      assert.equal(r.isError, true);
      assert.match(r.content, /path escapes the workspace: /);
      assert.ok(r.content.includes(path), r.content);
    });
  }

  test('write_file to a hostile path is refused before any approval and writes nothing', async () => {
    for (const path of ['../x.txt', 'outside-dir/new.txt', 'etc-link/new.conf', '..\\y.txt', join(base, 'abs.txt')]) {
      const h = harness();
      const r = await exec('write_file', { path, content: 'pwned' }, h);
      assert.equal(r.isError, true, path);
      assert.match(r.content, /path escapes the workspace/);
      assert.equal(h.requests.length, 0, 'no approval was asked for a refused path');
    }
    assert.equal(existsSync(join(base, 'x.txt')), false);
    assert.equal(existsSync(join(outside, 'new.txt')), false);
    assert.equal(existsSync(join(base, 'y.txt')), false);
    assert.equal(existsSync(join(base, 'abs.txt')), false);
  });

  test('edit_file, list_files, search and run_command cwd are confined too', async () => {
    const edit = await exec('edit_file', { path: 'outside-dir/secret.txt', old_string: 'TOP', new_string: 'NOT' });
    assert.match(edit.content, /path escapes the workspace/);
    assert.equal(readFileSync(join(outside, 'secret.txt'), 'utf8'), 'TOP SECRET\n');
    assert.match((await exec('list_files', { path: '..' })).content, /path escapes the workspace/);
    assert.match((await exec('list_files', { path: 'outside-dir' })).content, /path escapes the workspace/);
    assert.match((await exec('search', { query: 'SECRET', path: 'outside-dir' })).content, /path escapes the workspace/);
    const h = harness();
    assert.match((await exec('run_command', { command: 'pwd', cwd: '../' }, h)).content, /path escapes the workspace/);
    assert.equal(h.requests.length, 0);
  });

  test('a NUL byte in a path is refused', async () => {
    const r = await exec('read_file', { path: 'foo\0bar' });
    assert.equal(r.isError, true);
    assert.match(r.content, /NUL byte/);
  });

  test('a dangling symlink is refused (its target cannot be checked)', async () => {
    const r = await exec('write_file', { path: 'dangling', content: 'x' });
    assert.equal(r.isError, true);
    assert.match(r.content, /symbolic link whose target does not exist/);
    assert.equal(existsSync(join(base, 'missing-target')), false);
  });

  test('allowed: an absolute path inside the workspace, .. that stays inside, and a symlink to a file inside', async () => {
    const abs = await exec('read_file', { path: join(ws, 'src', 'a.ts') });
    assert.equal(abs.isError, false, abs.content);
    assert.match(abs.content, /export const a = 1;/);
    const dots = await exec('read_file', { path: 'src/deep/../a.ts' });
    assert.equal(dots.isError, false, dots.content);
    const link = await exec('read_file', { path: 'a-link.ts' });
    assert.equal(link.isError, false, link.content);
    assert.match(link.content, /return x \+ y;/);
    const backslash = await exec('read_file', { path: 'src\\a.ts' });
    assert.equal(backslash.isError, false, 'backslashes are separators');
  });

  test('a workspace root reached through a symlink accepts paths under either spelling', () => {
    const linkRoot = join(base, 'ws-link');
    symlinkSync(ws, linkRoot);
    assert.equal(resolveWorkspacePath(linkRoot, join(linkRoot, 'src/a.ts')).rel, 'src/a.ts');
    assert.equal(resolveWorkspacePath(linkRoot, join(ws, 'src/a.ts')).rel, 'src/a.ts');
    assert.equal(resolveWorkspacePath(linkRoot, 'new/file.ts').exists, false);
    assert.throws(() => resolveWorkspacePath(linkRoot, join(linkRoot, '..', 'outside', 'secret.txt')), /path escapes the workspace/);
  });
});
