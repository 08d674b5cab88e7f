// run_command against a real temp folder (see toolWorkspace.ts): it asks approval with the command,
// captures stdout and stderr, reports the exit code, runs in the workspace, keeps the tail of long
// output, and a timeout or a cancel kills the whole process tree; a rejected command does not run.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CANCELLED_BY_USER } from '../../src/agent/tools';
import { createToolWorkspace, harness, removeToolWorkspace, toolRunner } from './toolWorkspace';

let base: string;
let ws: string;
before(() => ({ base, ws } = createToolWorkspace()));
after(() => removeToolWorkspace(base));
const { exec } = toolRunner(() => ws);

describe('run_command', () => {
  test('asks approval with the command, captures stdout and stderr interleaved, reports the exit code', async () => {
    const h = harness();
    const r = await exec('run_command', { command: 'echo out1; echo err1 1>&2; sleep 0.05; echo out2; exit 3' }, h);
    assert.equal(h.requests.length, 1);
    assert.equal(h.requests[0].command, 'echo out1; echo err1 1>&2; sleep 0.05; echo out2; exit 3');
    assert.match(h.requests[0].title, /^Run `echo out1/);
    assert.equal(r.isError, true, 'a non-zero exit is an error result');
    assert.match(r.content, /out1\n(err1\n)?.*out2\n\[Exit code 3\]$/s);
    assert.match(r.content, /err1/);
    assert.ok(h.output.join('').includes('out2'), 'live output was forwarded');
  });

  test('runs in the workspace (or a cwd inside it) and succeeds with exit code 0', async () => {
    const root = await exec('run_command', { command: 'pwd' });
    assert.equal(root.isError, false);
    assert.equal(root.content, `${ws}\n[Exit code 0]`);
    const sub = await exec('run_command', { command: 'pwd', cwd: 'src/deep' });
    assert.equal(sub.content, `${join(ws, 'src', 'deep')}\n[Exit code 0]`);
    assert.match((await exec('run_command', { command: 'pwd', cwd: 'README.md' })).content, /is not a folder/);
  });

  test('a rejected command does not run', async () => {
    const r = await exec(
      'run_command',
      { command: 'touch ran.marker' },
      harness(() => ({ approved: false, reason: 'not now' })),
    );
    assert.equal(r.isError, true);
    assert.equal(r.content, 'The user rejected running this command: not now');
    assert.equal(existsSync(join(ws, 'ran.marker')), false);
  });

  test('long output keeps the last 30 KB with a note of what was dropped', async () => {
    const r = await exec('run_command', { command: "head -c 100000 /dev/zero | tr '\\0' 'x'; echo; echo END" });
    assert.equal(r.isError, false);
    const lines = r.content.split('\n');
    assert.equal(lines[0], '[68 KB of earlier output dropped; showing the last 30 KB]');
    assert.match(lines[1], /^x{30000,}$/);
    assert.deepEqual(lines.slice(2), ['END', '[Exit code 0]']);
    assert.ok(r.content.length < 31 * 1024);
  });

  test('a timeout kills the whole process tree', async () => {
    const started = Date.now();
    const r = await exec('run_command', { command: 'sleep 30 & echo $! > bg.pid; wait', timeout_ms: 800 });
    assert.ok(Date.now() - started < 4000, 'returned promptly');
    assert.equal(r.isError, true);
    assert.match(r.content, /\[Timed out after 800 ms; the command was killed\.\]/);
    const pid = Number(readFileSync(join(ws, 'bg.pid'), 'utf8'));
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(isAlive(pid), false, 'the background child was killed with its group');
  });

  test('cancelling (AbortSignal) kills a running command', async () => {
    const h = harness();
    h.ctx.onOutput = () => h.controller.abort();
    const started = Date.now();
    const r = await exec('run_command', { command: 'echo started; sleep 30' }, h);
    assert.ok(Date.now() - started < 3000);
    assert.equal(r.isError, true);
    assert.match(r.content, /^started\n\[Cancelled by the user\. The command was stopped\.\]$/);
  });

  test('cancelling while the approval is pending runs nothing', async () => {
    const h = harness(() => {
      h.controller.abort();
      return { approved: true };
    });
    const r = await exec('run_command', { command: 'touch cancelled.marker' }, h);
    assert.equal(r.content, CANCELLED_BY_USER);
    assert.equal(existsSync(join(ws, 'cancelled.marker')), false);
  });
});

/** Whether a process runs (a zombie left unreaped by a container's init counts as dead). */
function isAlive(pid: number): boolean {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return !/^State:\s+[ZX]/m.test(status);
  } catch {
    try {
      process.kill(pid, 0);
      return !existsSync('/proc/self');
    } catch {
      return false;
    }
  }
}
