// File checkpoints that must never lose data, on a real temp workspace with the real git command
// line: a restore leaves alone what the checkpoint did not save (files ignored then, even when the
// .gitignore changed since), snapshots keep the exact bytes whatever the workspace's
// .gitattributes say, and a change of type (file, symlink, folder, either way) is snapshotted
// without breaking later snapshots.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheckpointStore } from '../../src/agent/checkpoints/checkpointStore';
import { workspaceWriter } from '../../src/agent/checkpoints/workspaceWriter';

function setup() {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'sp-ckpt-safe-')));
  const ws = join(base, 'ws');
  const storage = join(base, 'storage', 'checkpoints', 's1');
  mkdirSync(join(ws, 'src'), { recursive: true });
  writeFileSync(join(ws, 'src', 'a.ts'), 'export const a = 1;\n');
  let t = 1_000;
  const store = new CheckpointStore({ dir: storage, workspaceRoot: ws, now: () => t++ });
  const put = (p: string, text: string | Buffer) => {
    mkdirSync(join(ws, p, '..'), { recursive: true });
    writeFileSync(join(ws, p), text);
  };
  const bytes = (p: string) => readFileSync(join(ws, p));
  return { base, ws, storage, store, put, bytes, done: () => rmSync(base, { recursive: true, force: true }) };
}

test('files ignored at the checkpoint are never "created" nor deleted by a restore, even after the .gitignore changed', async () => {
  const { ws, store, put, bytes, done } = setup();
  try {
    put('.gitignore', '.env\nsecrets/\n*.log\n');
    put('.env', 'API_KEY=do-not-lose\n');
    put('secrets/id_rsa', 'PRIVATE KEY\n');
    put('logs/run.log', 'log line\n');
    await store.ensure('u1');

    put('.gitignore', '# nothing ignored any more\n');
    put('src/new.ts', 'created by the agent\n');
    put('logs/notes.txt', 'created by the agent too\n');
    const plan = await store.plan('u1');
    assert.deepEqual(plan.changes, [
      { path: '.gitignore', since: 'modified' },
      { path: 'logs/notes.txt', since: 'created' },
      { path: 'src/new.ts', since: 'created' },
    ]);
    assert.deepEqual(plan.unknown, ['.env', 'logs/run.log', 'secrets/id_rsa']);

    await store.restore(plan, workspaceWriter(ws));
    assert.equal(bytes('.env').toString(), 'API_KEY=do-not-lose\n');
    assert.equal(bytes('secrets/id_rsa').toString(), 'PRIVATE KEY\n');
    assert.equal(bytes('logs/run.log').toString(), 'log line\n');
    assert.ok(!existsSync(join(ws, 'src', 'new.ts')), 'a file known to be absent is deleted');
    assert.ok(!existsSync(join(ws, 'logs', 'notes.txt')));
    assert.equal(bytes('.gitignore').toString(), '.env\nsecrets/\n*.log\n');
  } finally {
    done();
  }
});

test('a checkpoint recorded before the ignored files were (an older manifest) never deletes a file it did not save', async () => {
  const { ws, storage, store, put, done } = setup();
  try {
    put('.gitignore', '.env\n');
    put('.env', 'KEY=1\n');
    await store.ensure('u1');
    const manifestPath = join(storage, 'checkpoints.json');
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { checkpoints: Array<Record<string, unknown>> };
    for (const c of manifest.checkpoints) delete c.unsaved;
    writeFileSync(manifestPath, JSON.stringify({ version: 1, checkpoints: manifest.checkpoints }));

    const older = new CheckpointStore({ dir: storage, workspaceRoot: ws });
    put('.gitignore', '\n');
    put('b.txt', 'new\n');
    const plan = await older.plan('u1');
    assert.deepEqual(plan.changes, [{ path: '.gitignore', since: 'modified' }]);
    assert.deepEqual(plan.unknown, ['.env', 'b.txt']);
    await older.restore(plan, workspaceWriter(ws));
    assert.equal(readFileSync(join(ws, '.env'), 'utf8'), 'KEY=1\n');
  } finally {
    done();
  }
});

test('the workspace .gitattributes do not apply: CRLF, $Id$ and working-tree-encoding files come back byte for byte', async () => {
  const { ws, store, put, bytes, done } = setup();
  try {
    put('.gitattributes', '* text=auto eol=lf\n*.c ident\n*.u16 working-tree-encoding=UTF-16\n*.bin filter=lfs\n');
    const crlf = Buffer.from('line one\r\nline two\r\n');
    const ident = Buffer.from('/* $Id$ */\nint x;\n');
    const notUtf16 = Buffer.from([0x61, 0x62, 0x63]); // three bytes: not UTF-16 text
    put('win.txt', crlf);
    put('id.c', ident);
    put('odd.u16', notUtf16);
    await store.ensure('u1');

    put('win.txt', 'changed\n');
    put('id.c', 'changed\n');
    put('odd.u16', 'changed\n');
    const plan = await store.plan('u1');
    assert.deepEqual(
      plan.changes.map((c) => c.path),
      ['id.c', 'odd.u16', 'win.txt'],
    );
    await store.restore(plan, workspaceWriter(ws));
    assert.deepEqual(bytes('win.txt'), crlf);
    assert.deepEqual(bytes('id.c'), ident);
    assert.deepEqual(bytes('odd.u16'), notUtf16);
  } finally {
    done();
  }
});

test('a symlink replaced by a folder (and every other change of type) is snapshotted; later snapshots keep working', async () => {
  const { ws, store, put, bytes, done } = setup();
  try {
    symlinkSync('src', join(ws, 'link'));
    symlinkSync('src/a.ts', join(ws, 'filelink'));
    put('plain.txt', 'plain\n');
    put('dir/inside.txt', 'inside\n');
    put('tolink.txt', 'to link\n');
    await store.ensure('u1');

    rmSync(join(ws, 'link'));
    put('link/f.txt', 'a folder now\n');
    rmSync(join(ws, 'filelink'));
    put('filelink/g.txt', 'a folder too\n');
    rmSync(join(ws, 'plain.txt'));
    put('plain.txt/h.txt', 'file to folder\n');
    rmSync(join(ws, 'dir'), { recursive: true });
    put('dir', 'folder to file\n');
    rmSync(join(ws, 'tolink.txt'));
    symlinkSync('src', join(ws, 'tolink.txt'));
    await store.ensure('u2');
    put('src/later.ts', 'later\n');
    await store.ensure('u3');

    const plan = await store.plan('u1');
    assert.deepEqual(plan.changes, [
      { path: 'dir', since: 'created' },
      { path: 'dir/inside.txt', since: 'deleted' },
      { path: 'filelink', since: 'deleted' },
      { path: 'filelink/g.txt', since: 'created' },
      { path: 'link', since: 'deleted' },
      { path: 'link/f.txt', since: 'created' },
      { path: 'plain.txt', since: 'deleted' },
      { path: 'plain.txt/h.txt', since: 'created' },
      { path: 'src/later.ts', since: 'created' },
      { path: 'tolink.txt', since: 'modified' },
    ]);
    await store.restore(plan, workspaceWriter(ws));
    assert.equal(readlinkSync(join(ws, 'link')), 'src');
    assert.equal(readlinkSync(join(ws, 'filelink')), 'src/a.ts');
    assert.equal(bytes('plain.txt').toString(), 'plain\n');
    assert.equal(bytes('dir/inside.txt').toString(), 'inside\n');
    assert.ok(lstatSync(join(ws, 'tolink.txt')).isFile());
    assert.equal(bytes('tolink.txt').toString(), 'to link\n');
    assert.deepEqual((await store.plan('u1')).changes, [], 'nothing left to restore');
    assert.deepEqual(
      (await store.plan('u2')).changes.map((c) => c.path).filter((p) => p.startsWith('link')),
      ['link', 'link/f.txt'],
      'the folder that replaced the symlink was saved by the later checkpoint',
    );
  } finally {
    done();
  }
});

test('one path git cannot store (a nested repository without a commit) is left out; the rest is snapshotted and later snapshots work', async () => {
  const { ws, store, put, bytes, done } = setup();
  try {
    mkdirSync(join(ws, 'vendor', 'lib'), { recursive: true });
    execFileSync('git', ['init', '-q'], { cwd: join(ws, 'vendor', 'lib'), env: { ...process.env, GIT_DIR: undefined } });
    put('notes.txt', 'first\n');
    const cp = await store.ensure('u1');
    assert.deepEqual(cp.skipped, ['vendor/lib']);

    put('notes.txt', 'second\n');
    put('src/a.ts', 'changed\n');
    await store.ensure('u2');
    const plan = await store.plan('u1');
    assert.deepEqual(
      plan.changes.map((c) => c.path),
      ['notes.txt', 'src/a.ts'],
    );
    await store.restore(plan, workspaceWriter(ws));
    assert.equal(bytes('notes.txt').toString(), 'first\n');
    assert.ok(existsSync(join(ws, 'vendor', 'lib', '.git')), 'the path left out is never touched');
  } finally {
    done();
  }
});

test('a file that became a folder holding files the checkpoint did not save: the restore keeps the folder and says so', async () => {
  const { ws, store, put, bytes, done } = setup();
  try {
    put('.gitignore', '*.secret\n');
    put('config', 'a file\n');
    await store.ensure('u1');
    rmSync(join(ws, 'config'));
    put('config/new.txt', 'created\n');
    put('config/key.secret', 'never saved\n');
    put('src/a.ts', 'changed\n');
    const plan = await store.plan('u1');
    assert.deepEqual(plan.changes, [
      { path: 'config', since: 'deleted' },
      { path: 'config/new.txt', since: 'created' },
      { path: 'src/a.ts', since: 'modified' },
    ]);
    await assert.rejects(store.restore(plan, workspaceWriter(ws)), /Restored 2 of 3 files; not restored: config \(config is a folder/);
    assert.equal(bytes('config/key.secret').toString(), 'never saved\n');
    assert.ok(!existsSync(join(ws, 'config', 'new.txt')));
    assert.equal(bytes('src/a.ts').toString(), 'export const a = 1;\n', 'the other files are restored');
  } finally {
    done();
  }
});

test('a saved file that is there again but ignored now is labelled modified (the restore writes over it), not deleted', async () => {
  const { ws, store, put, bytes, done } = setup();
  try {
    put('cfg.local', 'saved\n');
    await store.ensure('u1');
    rmSync(join(ws, 'cfg.local'));
    await store.ensure('u2');
    put('.gitignore', 'cfg.local\n');
    put('cfg.local', 'there again, ignored\n');
    const plan = await store.plan('u1');
    assert.deepEqual(plan.changes, [
      { path: '.gitignore', since: 'created' },
      { path: 'cfg.local', since: 'modified' },
    ]);
    await store.restore(plan, workspaceWriter(ws));
    assert.equal(bytes('cfg.local').toString(), 'saved\n');
  } finally {
    done();
  }
});
