// Approvals in the agent loop end to end (see agentRig.ts): edits, writes and commands wait for the
// user's decision, carry a diff or the command, and a rejection reaches the model as an is_error
// result with the reason; in read-only mode only the read tools are offered.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertValid, last, rig, toolResultsOf } from './agentRig';

describe('approving file changes', () => {
  test('edit_file approved: the file changes and the approval request carried the diff', async () => {
    const r = await rig();
    try {
      const edit = { path: 'src/math.ts', old_string: 'return a - b; // BUG', new_string: 'return a + b;' };
      r.server.queue.toolUse([{ name: 'edit_file', input: edit, id: 'toolu_edit' }]).text('Fixed.');
      const result = await r.agent.run('Fix add.');
      assert.equal(result.status, 'completed');
      assert.equal(readFileSync(join(r.ws, 'src', 'math.ts'), 'utf8'), 'export function add(a: number, b: number) {\n  return a + b;\n}\n');
      assert.equal(r.approvals.length, 1);
      const req = r.approvals[0];
      assert.equal(req.toolUseId, 'toolu_edit');
      assert.equal(req.tool, 'edit_file');
      assert.equal(req.diff?.path, 'src/math.ts');
      assert.match(req.diff!.unified, /^--- a\/src\/math\.ts\n\+\+\+ b\/src\/math\.ts\n@@ -1,3 \+1,3 @@\n export function add/);
      // eslint-disable-next-line no-regex-spaces -- a diff line: the sign, then two spaces of indentation
      assert.match(req.diff!.unified, /\n-  return a - b; \/\/ BUG\n\+  return a \+ b;\n/);
      assert.deepEqual(
        r.of('tool-awaiting-approval').map((e) => e.request),
        [req],
      );
      assert.deepEqual(
        r.of('tool-approval-resolved').map((e) => [e.toolUseId, e.approved]),
        [['toolu_edit', true]],
      );
      const [res] = toolResultsOf(last(r.sent(1)));
      assert.deepEqual([res.content, res.is_error], ['Edited src/math.ts: 1 replacement.', undefined]);
    } finally {
      await r.close();
    }
  });

  test('edit_file rejected: the file is unchanged and the model gets an is_error result with the reason', async () => {
    const r = await rig({ decide: () => ({ approved: false, reason: 'fix the test instead' }) });
    try {
      r.server.queue
        .toolUse('edit_file', { path: 'src/math.ts', old_string: 'a - b', new_string: 'a + b' })
        .text('OK, I will look at the test.');
      await r.agent.run('Fix add.');
      assert.match(readFileSync(join(r.ws, 'src', 'math.ts'), 'utf8'), /return a - b; \/\/ BUG/);
      const [res] = toolResultsOf(last(r.sent(1)));
      assert.equal(res.is_error, true);
      assert.equal(res.content, 'The user rejected this change to src/math.ts: fix the test instead The file was not changed.');
      assert.deepEqual(
        r.of('tool-approval-resolved').map((e) => [e.approved, e.reason]),
        [[false, 'fix the test instead']],
      );
      assertValid(r.session);
    } finally {
      await r.close();
    }
  });

  test('write_file creates a new file after approval of a /dev/null diff', async () => {
    const r = await rig();
    try {
      r.server.queue.toolUse('write_file', { path: 'test/add.test.ts', content: "test('add', () => {});\n" }).text('Added a test.');
      await r.agent.run('Add a test.');
      assert.equal(readFileSync(join(r.ws, 'test', 'add.test.ts'), 'utf8'), "test('add', () => {});\n");
      assert.equal(r.approvals[0].diff?.isNewFile, true);
      assert.match(
        r.approvals[0].diff!.unified,
        /^--- \/dev\/null\n\+\+\+ b\/test\/add\.test\.ts\n@@ -0,0 \+1 @@\n\+test\('add', \(\) => \{\}\);\n$/,
      );
    } finally {
      await r.close();
    }
  });
});

describe('approving commands', () => {
  test('run_command approved: output and exit code reach the model; live output is forwarded', async () => {
    const r = await rig();
    try {
      r.server.queue.toolUse('run_command', { command: 'echo built; echo warn >&2; exit 2' }).text('The build failed with exit code 2.');
      await r.agent.run('Build it.');
      assert.equal(r.approvals[0].command, 'echo built; echo warn >&2; exit 2');
      const [res] = toolResultsOf(last(r.sent(1)));
      assert.equal(res.is_error, true);
      assert.match(String(res.content), /built/);
      assert.match(String(res.content), /warn/);
      assert.match(String(res.content), /\[Exit code 2\]$/);
      assert.match(
        r
          .of('tool-output')
          .map((e) => e.chunk)
          .join(''),
        /built/,
      );
    } finally {
      await r.close();
    }
  });

  test('run_command rejected: nothing runs and the model hears why', async () => {
    const r = await rig({ decide: (req) => ({ approved: req.tool !== 'run_command', reason: 'no network' }) });
    try {
      r.server.queue.toolUse('run_command', { command: 'touch ran.marker' }).text('Understood.');
      await r.agent.run('Deploy.');
      assert.equal(existsSync(join(r.ws, 'ran.marker')), false);
      const [res] = toolResultsOf(last(r.sent(1)));
      assert.equal(res.is_error, true);
      assert.equal(res.content, 'The user rejected running this command: no network');
    } finally {
      await r.close();
    }
  });
});

describe('read-only mode', () => {
  test('read-only mode: only read tools are offered, and edit/write/run called anyway are refused without approval', async () => {
    const r = await rig({ readOnly: true });
    try {
      r.server.queue
        .toolUse([
          { name: 'edit_file', input: { path: 'src/math.ts', old_string: 'a - b', new_string: 'a + b' } },
          { name: 'write_file', input: { path: 'x.txt', content: 'x' } },
          { name: 'run_command', input: { command: 'touch ro.marker' } },
        ])
        .text('I can only read here.');
      await r.agent.run('Fix it.');
      const body = r.server.messageRequests[0].body;
      assert.deepEqual(
        body.tools?.map((t) => t.name),
        ['read_file', 'list_files', 'search', 'compact', 'todo'],
      );
      assert.match(JSON.stringify(body.system), /read-only mode/);
      const results = toolResultsOf(last(r.sent(1)));
      assert.equal(results.length, 3);
      for (const res of results) {
        assert.equal(res.is_error, true);
        assert.match(String(res.content), /is not available: this workspace is not trusted/);
      }
      assert.equal(r.approvals.length, 0);
      assert.match(readFileSync(join(r.ws, 'src', 'math.ts'), 'utf8'), /a - b/);
      assert.equal(existsSync(join(r.ws, 'x.txt')), false);
      assert.equal(existsSync(join(r.ws, 'ro.marker')), false);
    } finally {
      await r.close();
    }
  });
});
