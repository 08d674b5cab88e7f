// File review through the controller, with a real SDK run against the loopback server: a pending
// edit is a proposal with the whole proposed file (what the diff editor shows) until it is settled;
// the first approved change of a turn takes a file checkpoint (the prompt's chat item says so);
// restoring to before that prompt brings the files back (a created file is deleted) and the chat
// says so; a turn without changes takes none; checkpoints of deleted sessions go at start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LoopbackAnthropic } from '../loopback/anthropic-server';
import type { AgentController } from '../../src/agent/service/controller';
import type { ChatItem } from '../../src/protocol';
import { loopbackController } from '../helpers/loopbackController';

async function rig() {
  const server = new LoopbackAnthropic({ consecutiveRoles: 'reject' });
  const { baseURL } = await server.start();
  const storage = mkdtempSync(join(tmpdir(), 'sp-fr-store-'));
  const workspace = mkdtempSync(join(tmpdir(), 'sp-fr-ws-'));
  writeFileSync(join(workspace, 'app.ts'), 'export const answer = 41;\n');
  const controllers: AgentController[] = [];
  const make = () => {
    const c = loopbackController({ workspace, storage, baseURL });
    controllers.push(c);
    return c;
  };
  return {
    server,
    storage,
    workspace,
    make,
    file: (p: string) => readFileSync(join(workspace, p), 'utf8'),
    async close() {
      for (const c of controllers) c.dispose();
      await server.close();
      rmSync(storage, { recursive: true, force: true });
      rmSync(workspace, { recursive: true, force: true });
    },
  };
}

/** Approve every proposal as it comes, after checking what it holds. */
function approveAll(c: AgentController, seen: Array<{ path: string; original: string | null; proposed: string }>) {
  return c.review.onDidChangeProposals(() => {
    for (const p of c.review.proposals()) {
      if (seen.some((s) => s.path === p.path && s.proposed === p.proposed)) continue;
      seen.push({ path: p.path, original: p.original, proposed: p.proposed });
      c.approve(p.toolUseId);
    }
  });
}

test('a proposal carries the whole file before and after; approving takes a checkpoint; restoring brings the files back', async () => {
  const r = await rig();
  try {
    const c = r.make();
    r.server.queue
      .toolUse('edit_file', { path: 'app.ts', old_string: '41', new_string: '42' })
      .toolUse('write_file', { path: 'src/new.ts', content: 'created\n' })
      .text('Done.');
    const seen: Array<{ path: string; original: string | null; proposed: string }> = [];
    const sub = approveAll(c, seen);
    await c.send('Make it 42 and add a file.');
    sub.dispose();
    assert.deepEqual(seen, [
      { path: 'app.ts', original: 'export const answer = 41;\n', proposed: 'export const answer = 42;\n' },
      { path: 'src/new.ts', original: null, proposed: 'created\n' },
    ]);
    assert.deepEqual(c.review.proposals(), [], 'settled proposals are gone');
    assert.equal(r.file('app.ts'), 'export const answer = 42;\n');

    const [checkpoint, ...more] = c.review.checkpoints();
    assert.equal(more.length, 0, 'one checkpoint for the turn, before its first change');
    const prompt = c.chatState(true).items.find((i) => i.kind === 'user') as Extract<ChatItem, { kind: 'user' }>;
    assert.equal(prompt.messageId, checkpoint.promptId);
    assert.equal(prompt.checkpoint, true, 'the prompt offers "Restore files"');
    assert.ok(!existsSync(join(r.workspace, '.git')), 'nothing of the checkpoint is in the workspace');

    const plan = await c.review.planRestore(checkpoint.promptId);
    assert.deepEqual(plan.changes, [
      { path: 'app.ts', since: 'modified' },
      { path: 'src/new.ts', since: 'created' },
    ]);
    assert.equal((await c.review.contentAt(checkpoint.promptId, 'app.ts'))?.toString(), 'export const answer = 41;\n');
    await c.review.restore(plan);
    assert.equal(r.file('app.ts'), 'export const answer = 41;\n');
    assert.ok(!existsSync(join(r.workspace, 'src')), 'the created file (and its folder) is gone');
    const notice = c.chatState(true).items.at(-1);
    assert.equal(notice?.kind, 'notice');
    assert.match((notice as { message: string }).message, /Restored 2 files to before the prompt: app\.ts, src\/new\.ts/);
    assert.equal(c.session.messages.length > 0, true, 'the history is not touched by a restore');
  } finally {
    await r.close();
  }
});

test('a rejected edit takes no checkpoint, nor does a turn that only reads', async () => {
  const r = await rig();
  try {
    const c = r.make();
    r.server.queue.toolUse('edit_file', { path: 'app.ts', old_string: '41', new_string: '0' }).text('OK.');
    const sub = c.review.onDidChangeProposals(() => {
      for (const p of c.review.proposals()) c.reject(p.toolUseId, 'no');
    });
    await c.send('Zero it.');
    sub.dispose();
    r.server.queue.toolUse('read_file', { path: 'app.ts' }).text('Read.');
    await c.send('Read it.');
    assert.deepEqual(c.review.checkpoints(), []);
    assert.ok(!c.chatState(true).items.some((i) => i.kind === 'user' && i.checkpoint));
  } finally {
    await r.close();
  }
});

test('checkpoints of sessions whose files are gone are removed at start', async () => {
  const r = await rig();
  try {
    const orphan = join(r.storage, 'checkpoints', 'gone-session');
    mkdirSync(orphan, { recursive: true });
    writeFileSync(join(orphan, 'checkpoints.json'), '{"version":1,"checkpoints":[]}');
    const c = r.make();
    r.server.queue.toolUse('write_file', { path: 'b.txt', content: 'b\n' }).text('Done.');
    const sub = approveAll(c, []);
    await c.send('Write b.');
    sub.dispose();
    const live = join(r.storage, 'checkpoints', c.session.id.replace(/[^A-Za-z0-9_-]/g, '_'));
    assert.ok(existsSync(live));
    c.dispose();
    r.make();
    assert.ok(!existsSync(orphan), 'the orphan went');
    assert.ok(existsSync(live), "the live session's checkpoints stay");
  } finally {
    await r.close();
  }
});

test('a checkpoint that cannot be taken (an unreadable manifest) never holds back the approved change; the chat says so once', async () => {
  const r = await rig();
  try {
    const c = r.make();
    const dir = join(r.storage, 'checkpoints', c.session.id.replace(/[^A-Za-z0-9_-]/g, '_'));
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'checkpoints.json'), '{not json');
    r.server.queue
      .toolUse('edit_file', { path: 'app.ts', old_string: '41', new_string: '42' })
      .toolUse('write_file', { path: 'b.txt', content: 'b\n' })
      .text('Done.');
    const sub = approveAll(c, []);
    await c.send('Two changes.');
    sub.dispose();
    assert.equal(r.file('app.ts'), 'export const answer = 42;\n');
    assert.equal(r.file('b.txt'), 'b\n');
    const notices = c.chatState(true).items.filter((i) => i.kind === 'notice' && /No file checkpoint was taken/.test(i.message));
    assert.equal(notices.length, 1);
    assert.match((notices[0] as { message: string }).message, /checkpoints\.json: invalid JSON/);
  } finally {
    await r.close();
  }
});
