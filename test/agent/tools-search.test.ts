// search runs ripgrep in a child process: a catastrophic regex cannot freeze the host, Stop and the
// timeout kill the search, .gitignore is respected, and a missing rg is a clear error.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findRipgrep, vscodeRipgrepCandidates, WorkspaceTools, type ToolCallContext, type ToolResult } from '../../src/agent/tools';

let base: string;
let ws: string;

before(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'sp-search-')));
  ws = join(base, 'ws');
  mkdirSync(join(ws, '.git'), { recursive: true });
  mkdirSync(join(ws, 'src'), { recursive: true });
  mkdirSync(join(ws, 'build'), { recursive: true });
  writeFileSync(join(ws, '.gitignore'), 'build/\n*.log\n');
  writeFileSync(join(ws, 'src', 'a.ts'), 'const needle = 1;\n');
  writeFileSync(join(ws, 'build', 'out.js'), 'needle in build output\n');
  writeFileSync(join(ws, 'debug.log'), 'needle in a log\n');
  writeFileSync(join(ws, '.hidden.ts'), 'a hidden needle\n');
  // A line on which a backtracking engine takes exponential time for (a+)+$ .
  writeFileSync(join(ws, 'src', 'evil.txt'), `${'a'.repeat(40)}!\n${'a'.repeat(5_000)}!\n`);
});

after(() => rmSync(base, { recursive: true, force: true }));

function context(controller = new AbortController()): ToolCallContext {
  return { toolUseId: 'toolu_s', signal: controller.signal, requestApproval: async () => ({ approved: true }) };
}

function run(input: unknown, t = new WorkspaceTools({ root: ws }), ctx = context()): Promise<ToolResult> {
  return t.execute({ id: 'toolu_s', name: 'search', input }, ctx);
}

/** A fake rg that records its pid and then sleeps: a search that runs until it is killed. */
function slowRipgrep(): { path: string; pidFile: string } {
  const path = join(base, `slow-rg-${Math.random().toString(36).slice(2)}.sh`);
  const pidFile = `${path}.pid`;
  writeFileSync(path, `#!/bin/sh\necho $$ > '${pidFile}'\nexec sleep 30\n`);
  chmodSync(path, 0o755);
  return { path, pidFile };
}

async function waitFor(cond: () => boolean, ms = 5_000): Promise<void> {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

describe('search with ripgrep', () => {
  test('a catastrophic regex ((a+)+$ on long runs of a) returns promptly and the event loop keeps running', async () => {
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    const started = Date.now();
    const r = await run({ query: '(a+)+$', regex: true, path: 'src' });
    const elapsed = Date.now() - started;
    clearInterval(ticker);
    assert.equal(r.isError, false, r.content);
    assert.match(r.content, /^No matches for "\(a\+\)\+\$" in src/);
    assert.ok(elapsed < 3_000, `took ${elapsed} ms`);
    assert.ok(ticks >= Math.floor(elapsed / 200), `the event loop was blocked (${ticks} ticks in ${elapsed} ms)`);
    // And the regex does match where it should.
    assert.match((await run({ query: 'a{3}!$', regex: true, path: 'src' })).content, /^src\/evil\.txt:1: a{40}!$/m);
  });

  test('Stop kills a running search promptly', async () => {
    const rg = slowRipgrep();
    const controller = new AbortController();
    const started = Date.now();
    const pending = run({ query: 'needle' }, new WorkspaceTools({ root: ws, ripgrepPath: rg.path }), context(controller));
    await waitFor(() => existsSync(rg.pidFile));
    const pid = Number(readFileSync(rg.pidFile, 'utf8'));
    assert.ok(alive(pid));
    controller.abort();
    const r = await pending;
    assert.ok(Date.now() - started < 4_000);
    assert.equal(r.isError, true);
    assert.match(r.content, /Cancelled by the user/);
    await waitFor(() => !alive(pid), 2_000);
  });

  test('a search that outlives its timeout is killed and says so', async () => {
    const rg = slowRipgrep();
    const t = new WorkspaceTools({ root: ws, ripgrepPath: rg.path, limits: { searchTimeoutMs: 300 } });
    const started = Date.now();
    const r = await run({ query: 'needle' }, t);
    assert.ok(Date.now() - started < 3_000);
    assert.equal(r.isError, true);
    assert.match(r.content, /timed out after 300 ms/);
    const pid = Number(readFileSync(rg.pidFile, 'utf8'));
    await waitFor(() => !alive(pid), 2_000);
  });

  test('respects .gitignore and still searches hidden files, never .git', async () => {
    writeFileSync(join(ws, '.git', 'config'), 'needle in git config\n');
    const r = await run({ query: 'needle' });
    assert.deepEqual(r.content.split('\n'), ['.hidden.ts:1: a hidden needle', 'src/a.ts:1: const needle = 1;']);
  });

  test('a query that looks like an option is searched for, not obeyed', async () => {
    writeFileSync(join(ws, 'src', 'opts.txt'), 'run with --files please\n');
    const r = await run({ query: '--files', path: 'src' });
    assert.deepEqual(r.content.split('\n'), ['src/opts.txt:1: run with --files please']);
  });

  test('no ripgrep: a clear error naming what was looked for', async () => {
    const t = new WorkspaceTools({ root: ws, ripgrepPath: join(base, 'no-such-rg') });
    const r = await run({ query: 'needle' }, t);
    assert.equal(r.isError, true);
    assert.match(r.content, /ripgrep.*not found.*no-such-rg/i);
  });

  test('findRipgrep finds the npm package binary; the VS Code candidates are under appRoot', () => {
    const found = findRipgrep();
    assert.ok(found && existsSync(found), `found ${found}`);
    const candidates = vscodeRipgrepCandidates('/opt/vscode/resources/app');
    assert.ok(candidates.includes(join('/opt/vscode/resources/app', 'node_modules', '@vscode', 'ripgrep', 'bin', 'rg')));
    assert.ok(candidates.includes(join('/opt/vscode/resources/app', 'node_modules.asar.unpacked', '@vscode', 'ripgrep', 'bin', 'rg')));
  });
});
