// The MCP manager against real MCP servers nobody here wrote, started from node_modules as a user's
// configuration would: @modelcontextprotocol/server-filesystem and server-everything over stdio, and
// server-everything's streamable HTTP mode. Tools are listed under namespaced names, calls return
// their results (text, images, errors), and a server that dies is reported and its tools removed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { McpManager, type McpServerConfig } from '../../src/agent/mcp';

const FILESYSTEM = resolve('node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const EVERYTHING = resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const versionOf = (pkg: string) =>
  (JSON.parse(readFileSync(resolve(`node_modules/@modelcontextprotocol/${pkg}/package.json`), 'utf8')) as { version: string }).version;

const source = { format: 'vscode' as const, file: '.vscode/mcp.json', workspace: true };
const stdio = (name: string, script: string, args: string[] = []): Extract<McpServerConfig, { type: 'stdio' }> => ({
  name,
  source,
  type: 'stdio',
  command: process.execPath,
  args: [script, ...args],
  env: {},
});

function manager() {
  const notices: string[] = [];
  let changes = 0;
  const m = new McpManager({
    log: { info: () => {}, warn: () => {}, error: () => {} },
    notice: (n) => notices.push(n),
    onDidChangeTools: () => changes++,
    startTimeoutMs: 20_000,
  });
  return { m, notices, changes: () => changes };
}

const signal = () => new AbortController().signal;

test(`server-filesystem ${versionOf('server-filesystem')} over stdio: tools listed, read_file and list_directory on a temp dir`, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sp-mcp-fs-'));
  writeFileSync(join(dir, 'hello.txt'), 'hello from a real MCP server\n');
  const { m, notices } = manager();
  try {
    await m.start([stdio('fs', FILESYSTEM, [dir])]);
    assert.deepEqual(notices, []);
    const names = m.tools().map((t) => t.name);
    assert.ok(names.includes('mcp__fs__read_file') || names.includes('mcp__fs__read_text_file'), names.join(', '));
    assert.ok(names.includes('mcp__fs__list_directory'), names.join(', '));
    for (const t of m.tools()) {
      assert.match(t.name, /^[a-zA-Z0-9_-]{1,64}$/);
      assert.equal(t.definition.input_schema.type, 'object');
      assert.equal(t.server, 'fs');
      assert.match(t.definition.description, /MCP server "fs"/);
    }
    const read = names.includes('mcp__fs__read_text_file') ? 'mcp__fs__read_text_file' : 'mcp__fs__read_file';
    const r = await m.call(read, { path: join(dir, 'hello.txt') }, signal());
    assert.equal(r.isError, false);
    assert.match(r.content, /hello from a real MCP server/);
    const ls = await m.call('mcp__fs__list_directory', { path: dir }, signal());
    assert.match(ls.content, /\[FILE\] hello\.txt/);
    // Outside the allowed directory: the server's own error, as an is_error result.
    const denied = await m.call(read, { path: '/etc/hostname' }, signal());
    assert.equal(denied.isError, true);
    assert.match(denied.content, /denied|outside|not allowed/i);
    assert.deepEqual(m.states(), [{ name: 'fs', type: 'stdio', status: 'running', tools: m.tools().length }]);
  } finally {
    await m.stopAll();
  }
});

test(`server-everything ${versionOf('server-everything')} over stdio: echo, sum, an image, and a killed server reported with its tools removed`, async () => {
  const { m, notices, changes } = manager();
  try {
    await m.start([stdio('everything', EVERYTHING, ['stdio'])]);
    const names = m.tools().map((t) => t.name);
    assert.ok(names.includes('mcp__everything__echo'), names.join(', '));
    const echo = await m.call('mcp__everything__echo', { message: 'ping 42' }, signal());
    assert.deepEqual({ ...echo }, { content: 'Echo: ping 42', isError: false });
    const sumTool = names.find((n) => /get[-_]sum|__add$/.test(n))!;
    const sum = await m.call(sumTool, { a: 2, b: 40 }, signal());
    assert.match(sum.content, /42/);
    // Bad arguments: the server refuses them; the agent sees an error result, not an exception.
    const bad = await m.call('mcp__everything__echo', { nope: 1 }, signal());
    assert.equal(bad.isError, true);
    const imageTool = names.find((n) => /tiny[-_]image/.test(n));
    assert.ok(imageTool, names.join(', '));
    {
      const img = await m.call(imageTool, {}, signal());
      assert.equal(img.isError, false);
      assert.ok(
        img.blocks?.some((b) => b.type === 'image'),
        JSON.stringify(img.blocks?.map((b) => b.type)),
      );
      assert.match(img.content, /\[image: image\/png\]/);
    }
    const before = changes();
    // Kill the server process: the crash is reported and its tools leave the list.
    const pids = childPids();
    assert.ok(pids.length > 0, 'the server runs as a child process');
    for (const pid of pids) process.kill(pid, 'SIGKILL');
    await waitFor(() => m.tools().length === 0, 'tools removed after the crash');
    assert.ok(changes() > before, 'listeners heard that the tools changed');
    assert.equal(notices.length, 1);
    assert.match(notices[0]!, /MCP server "everything" stopped unexpectedly.*no longer offered.*Restart MCP Servers/);
    assert.equal(m.states()[0]!.status, 'failed');
    const after = await m.call('mcp__everything__echo', { message: 'x' }, signal());
    assert.equal(after.isError, true);
    assert.match(after.content, /not running|not available/);
  } finally {
    await m.stopAll();
  }
});

test('a server that cannot start is reported, and the others start anyway', async () => {
  const { m, notices } = manager();
  try {
    await m.start([
      { ...stdio('broken', '/nonexistent/server.js'), source: { format: 'claude', file: '.mcp.json', workspace: true } },
      { ...stdio('nocommand', 'x'), command: 'splitpoint-no-such-command' },
      stdio('everything', EVERYTHING),
    ]);
    assert.equal(notices.length, 2, notices.join('\n'));
    notices.sort();
    assert.match(
      notices[0]!,
      /MCP server "broken" \(\.mcp\.json\) failed to start: .*Cannot find module '\/nonexistent\/server\.js'.*The agent works without its tools/s,
    );
    assert.match(notices[1]!, /MCP server "nocommand" \(\.vscode\/mcp\.json\) failed to start: .*ENOENT/);
    assert.ok(m.tools().length > 0);
    assert.ok(m.tools().every((t) => t.server === 'everything'));
    assert.deepEqual(
      m.states().map((s) => [s.name, s.status]),
      [
        ['broken', 'failed'],
        ['nocommand', 'failed'],
        ['everything', 'running'],
      ],
    );
  } finally {
    await m.stopAll();
  }
});

test(`server-everything ${versionOf('server-everything')} over streamable HTTP: tools listed and called`, async () => {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: 'pipe' });
  const { m, notices } = manager();
  try {
    await waitForOutput(child, /listening on port/i);
    await m.start([{ name: 'remote', source, type: 'http', url: `http://127.0.0.1:${port}/mcp`, headers: {} }]);
    assert.deepEqual(notices, []);
    assert.ok(m.tools().some((t) => t.name === 'mcp__remote__echo'));
    const echo = await m.call('mcp__remote__echo', { message: 'over http' }, signal());
    assert.deepEqual({ ...echo }, { content: 'Echo: over http', isError: false });
    // The HTTP server goes away: the next call fails, is reported, and the tools leave the list.
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const gone = await m.call('mcp__remote__echo', { message: 'x' }, signal());
    assert.equal(gone.isError, true);
    assert.equal(m.tools().length, 0);
    assert.match(notices.join('\n'), /MCP server "remote" stopped answering/);
  } finally {
    child.kill('SIGKILL');
    await m.stopAll();
  }
});

test('stopAll stops the servers quietly (no crash notice) and a restart brings the tools back', async () => {
  const { m, notices } = manager();
  try {
    await m.start([stdio('everything', EVERYTHING)]);
    const n = m.tools().length;
    await m.stopAll();
    assert.equal(m.tools().length, 0);
    await m.restart([stdio('everything', EVERYTHING)]);
    assert.equal(m.tools().length, n);
    assert.deepEqual(notices, []);
  } finally {
    await m.stopAll();
  }
});

/** The node processes this test process started (the stdio servers). */
function childPids(): number[] {
  const out: number[] = [];
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid && readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('server-everything')) out.push(Number(p));
    } catch {
      // The process went away meanwhile.
    }
  }
  return out;
}

async function waitFor(cond: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function waitForOutput(child: ChildProcess, re: RegExp): Promise<void> {
  return new Promise((resolveWait, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${seen}`)), 20_000);
    const on = (b: Buffer) => {
      seen += b.toString();
      if (re.test(seen)) {
        clearTimeout(timer);
        resolveWait();
      }
    };
    child.stdout?.on('data', on);
    child.stderr?.on('data', on);
    child.once('exit', (code) => reject(new Error(`server exited (${code}): ${seen}`)));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolvePort(port));
    });
    s.on('error', reject);
  });
}
