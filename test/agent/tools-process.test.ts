// run_command's timeout and Stop reach processes that left the command's process group (setsid,
// double forks): they are found through /proc and killed, and the result names them.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runShellCommand } from '../../src/agent/tools';

let ws: string;
before(() => {
  ws = realpathSync(mkdtempSync(join(tmpdir(), 'sp-proc-')));
});
after(() => rmSync(ws, { recursive: true, force: true }));

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    return false;
  }
}

async function waitDead(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (alive(pid)) {
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

const linux = process.platform === 'linux';

describe('run_command kills what escaped its process group', { skip: !linux && 'needs /proc' }, () => {
  test('setsid sleep 100 & inside a command with a 1 s timeout is killed, and the result says so', async () => {
    const started = Date.now();
    const run = await runShellCommand('setsid sleep 101 & echo "pid:$!"; sleep 30', {
      cwd: ws,
      timeoutMs: 1_000,
      maxOutputBytes: 10_000,
      killGraceMs: 200,
      env: { ...process.env },
    });
    assert.equal(run.timedOut, true);
    assert.ok(Date.now() - started < 5_000);
    const pid = Number(/pid:(\d+)/.exec(run.output)?.[1]);
    assert.ok(pid > 0, run.output);
    assert.ok(await waitDead(pid, 2_000), `the setsid'd sleep (${pid}) is still running`);
    assert.ok(run.escaped && run.escaped.some((p) => p.pid === pid && /sleep/.test(p.command)), JSON.stringify(run.escaped));
  });

  test('Stop kills a double-forked, setsid background process too', async () => {
    const controller = new AbortController();
    const pending = runShellCommand('(setsid sh -c "sleep 102" &) ; echo started; sleep 30', {
      cwd: ws,
      timeoutMs: 60_000,
      signal: controller.signal,
      maxOutputBytes: 10_000,
      killGraceMs: 200,
      env: { ...process.env },
    });
    await new Promise((r) => setTimeout(r, 400));
    controller.abort();
    const run = await pending;
    assert.equal(run.cancelled, true);
    const sleeper = (run.escaped ?? []).find((p) => /sleep 102/.test(p.command));
    assert.ok(sleeper, JSON.stringify(run.escaped));
    assert.ok(await waitDead(sleeper.pid, 2_000));
  });

  test('a command that exits normally leaves its background processes, but the result names them', async () => {
    const run = await runShellCommand('setsid sleep 103 > /dev/null 2>&1 < /dev/null & echo "pid:$!"', {
      cwd: ws,
      timeoutMs: 10_000,
      maxOutputBytes: 10_000,
      env: { ...process.env },
    });
    const pid = Number(/pid:(\d+)/.exec(run.output)?.[1]);
    try {
      assert.equal(run.exitCode, 0);
      assert.ok(
        run.stillRunning?.some((p) => p.pid === pid),
        JSON.stringify(run.stillRunning),
      );
    } finally {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone.
      }
    }
  });
});
