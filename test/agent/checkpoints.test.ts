// File checkpoints on a real temp workspace with the real git command line: snapshot, restore plan
// (modified, created, deleted files), restore (created files deleted, deleted files recreated,
// modes and nested folders), .gitignore honoured, bounds (file size, count, storage), cleanup, and
// a manifest that does not parse.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheckpointStore, parseManifest, type CheckpointLimits } from '../../src/agent/checkpoints/checkpointStore';
import { workspaceWriter } from '../../src/agent/checkpoints/workspaceWriter';

function setup(limits: Partial<CheckpointLimits> = {}) {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'sp-ckpt-')));
  const ws = join(base, 'ws');
  const storage = join(base, 'storage', 'checkpoints', 's1');
  mkdirSync(join(ws, 'src'), { recursive: true });
  writeFileSync(join(ws, 'src', 'a.ts'), 'export const a = 1;\n');
  writeFileSync(join(ws, 'README.md'), '# hi\n');
  writeFileSync(join(ws, '.gitignore'), 'build/\n');
  mkdirSync(join(ws, 'build'));
  writeFileSync(join(ws, 'build', 'out.js'), 'ignored\n');
  let t = 1_000;
  const store = new CheckpointStore({ dir: storage, workspaceRoot: ws, limits, excludes: ['.transcripts/'], now: () => t++ });
  const file = (p: string) => readFileSync(join(ws, p), 'utf8');
  return { base, ws, storage, store, file, done: () => rmSync(base, { recursive: true, force: true }) };
}

test('a checkpoint is stored outside the workspace; restoring brings modified files back, deletes created ones and recreates deleted ones', async () => {
  const { ws, storage, store, file, done } = setup();
  try {
    const cp = await store.ensure('u1');
    assert.ok(existsSync(join(storage, 'git')), 'the shadow repository lives in the storage folder');
    assert.ok(!existsSync(join(ws, '.git')), 'nothing is created in the workspace');
    assert.equal((await store.ensure('u1')).id, cp.id, 'one checkpoint per prompt');

    writeFileSync(join(ws, 'src', 'a.ts'), 'export const a = 2;\n');
    mkdirSync(join(ws, 'src', 'new', 'deep'), { recursive: true });
    writeFileSync(join(ws, 'src', 'new', 'deep', 'b.ts'), 'created\n');
    rmSync(join(ws, 'README.md'));
    writeFileSync(join(ws, 'build', 'out.js'), 'ignored, changed\n');

    const plan = await store.plan('u1');
    assert.deepEqual(plan.changes, [
      { path: 'README.md', since: 'deleted' },
      { path: 'src/a.ts', since: 'modified' },
      { path: 'src/new/deep/b.ts', since: 'created' },
    ]);
    assert.equal((await store.contentAt('u1', 'src/a.ts'))?.toString(), 'export const a = 1;\n');
    assert.equal(await store.contentAt('u1', 'src/new/deep/b.ts'), null);

    const restored = await store.restore(plan, workspaceWriter(ws));
    assert.equal(restored.length, 3);
    assert.equal(file('src/a.ts'), 'export const a = 1;\n');
    assert.equal(file('README.md'), '# hi\n');
    assert.ok(!existsSync(join(ws, 'src', 'new')), 'a created file is deleted, and the folders it leaves empty');
    assert.equal(file('build/out.js'), 'ignored, changed\n', 'ignored files are not snapshotted nor restored');
    assert.deepEqual((await store.plan('u1')).changes, [], 'nothing left to restore');
  } finally {
    done();
  }
});

test('a restore refuses when the workspace changed after the preview', async () => {
  const { ws, store, file, done } = setup();
  try {
    await store.ensure('u1');
    writeFileSync(join(ws, 'src', 'a.ts'), 'two\n');
    const plan = await store.plan('u1');
    writeFileSync(join(ws, 'src', 'a.ts'), 'three, typed meanwhile\n');
    await assert.rejects(store.restore(plan, workspaceWriter(ws)), /changed since this restore was previewed/);
    assert.equal(file('src/a.ts'), 'three, typed meanwhile\n');
  } finally {
    done();
  }
});

test('later checkpoints are independent: restoring an earlier prompt undoes the later prompts too; modes come back', async () => {
  const { ws, store, file, done } = setup();
  try {
    chmodSync(join(ws, 'src', 'a.ts'), 0o755);
    await store.ensure('u1');
    writeFileSync(join(ws, 'src', 'a.ts'), 'v2\n');
    chmodSync(join(ws, 'src', 'a.ts'), 0o644);
    await store.ensure('u2');
    writeFileSync(join(ws, 'src', 'a.ts'), 'v3\n');
    writeFileSync(join(ws, 'c.txt'), 'c\n');

    assert.deepEqual(
      (await store.plan('u2')).changes.map((c) => c.path),
      ['c.txt', 'src/a.ts'],
    );
    await store.restore(await store.plan('u1'), workspaceWriter(ws));
    assert.equal(file('src/a.ts'), 'export const a = 1;\n');
    assert.equal(statSync(join(ws, 'src', 'a.ts')).mode & 0o777, 0o755);
    assert.ok(!existsSync(join(ws, 'c.txt')));
    assert.deepEqual(
      store.list().map((c) => c.promptId),
      ['u1', 'u2'],
    );
  } finally {
    done();
  }
});

test('files over the size limit are not snapshotted, and a restore never touches them', async () => {
  const { ws, store, done } = setup({ maxFileBytes: 100 });
  try {
    writeFileSync(join(ws, 'big.bin'), Buffer.alloc(500, 1));
    const cp = await store.ensure('u1');
    assert.deepEqual(cp.skipped, ['big.bin']);
    writeFileSync(join(ws, 'big.bin'), Buffer.alloc(600, 2));
    writeFileSync(join(ws, 'huge-new.bin'), Buffer.alloc(700, 3));
    const plan = await store.plan('u1');
    assert.deepEqual(plan.changes, [], 'large files are neither restored nor deleted');
  } finally {
    done();
  }
});

test('at most maxCount checkpoints are kept (the oldest go, with their objects); the storage bound drops old ones too', async () => {
  const { ws, store, done } = setup({ maxCount: 2 });
  try {
    for (const p of ['u1', 'u2', 'u3']) {
      await store.ensure(p);
      writeFileSync(join(ws, `${p}.txt`), `${p} ${'x'.repeat(2000)}\n`);
    }
    assert.deepEqual(
      store.list().map((c) => c.promptId),
      ['u2', 'u3'],
    );
    await assert.rejects(store.plan('u1'), /no file checkpoint for prompt u1/);

    store.limits = { ...store.limits, maxCount: 50, maxStorageBytes: 1 };
    await store.ensure('u4');
    assert.deepEqual(
      store.list().map((c) => c.promptId),
      ['u4'],
      'over the storage bound, all but the newest go',
    );
  } finally {
    done();
  }
});

test('deleteAll removes the session folder; a fresh store then lists nothing', async () => {
  const { ws, storage, store, done } = setup();
  try {
    await store.ensure('u1');
    assert.ok((await store.storageBytes()) > 0);
    await store.deleteAll();
    assert.ok(!existsSync(storage));
    const again = new CheckpointStore({ dir: storage, workspaceRoot: ws });
    assert.deepEqual(again.list(), []);
  } finally {
    done();
  }
});

test('a manifest that does not parse is kept aside and the error names the file and field', () => {
  assert.throws(() => parseManifest('{', 'm.json'), /m\.json: invalid JSON/);
  assert.throws(
    () =>
      parseManifest(
        JSON.stringify({ version: 1, checkpoints: [{ id: 'a', promptId: 'u', createdAt: 1, tree: 'zz', skipped: [] }] }),
        'm.json',
      ),
    /m\.json: checkpoints\[0\]\.tree/,
  );
  const { storage, store, done } = setup();
  try {
    mkdirSync(storage, { recursive: true });
    writeFileSync(join(storage, 'checkpoints.json'), '{"version":1,"checkpoints":[{"id":1}]}');
    assert.throws(() => store.list(), /checkpoints\[0\]\.id.*kept as .*corrupt-/);
  } finally {
    done();
  }
});

test('a folder replaced by a symlink to outside the workspace: the restore removes the link and writes inside, never outside', async () => {
  const { base, ws, store, done } = setup();
  try {
    await store.ensure('u1');
    const outside = join(base, 'outside');
    mkdirSync(outside);
    rmSync(join(ws, 'src'), { recursive: true });
    symlinkSync(outside, join(ws, 'src'));
    const plan = await store.plan('u1');
    assert.deepEqual(plan.changes, [
      { path: 'src', since: 'created' },
      { path: 'src/a.ts', since: 'deleted' },
    ]);
    await store.restore(plan, workspaceWriter(ws));
    assert.ok(!existsSync(join(outside, 'a.ts')), 'nothing written outside');
    assert.ok(statSync(join(ws, 'src')).isDirectory());
    assert.equal(readFileSync(join(ws, 'src', 'a.ts'), 'utf8'), 'export const a = 1;\n');
  } finally {
    done();
  }
});
