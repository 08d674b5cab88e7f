// MCP input that is too big for the agent: a configuration file of megabytes or nested 100,000 deep
// is an error for that file (the others load, a later fixed file loads, and a failed reload never
// blocks the next one); a server listing thousands of tools is capped per server and in total, with
// a notice that says what was left out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  DEFAULT_MCP_TOOL_LIMITS,
  loadMcpConfig,
  McpManager,
  McpService,
  parseMcpConfigText,
  type McpConfigSource,
  type McpServerConfig,
} from '../../src/agent/mcp';

const MANY_TOOLS = resolve('test/fixtures/mcp/manyToolsServer.mjs');
const claudeFile: McpConfigSource = { format: 'claude', file: '/ws/.mcp.json', workspace: true };
const quiet = { info: () => {}, warn: () => {}, error: () => {} };

/** `{"mcpServers": {"deep": {"command": "x", "args": [[[…]]]}}}`, nested `depth` deep. */
const deeplyNested = (depth: number) => `{"mcpServers": {"deep": {"command": "x", "args": ${'['.repeat(depth)}${']'.repeat(depth)}}}}`;
/** A valid .mcp.json of about `bytes` bytes (one server, a long description-like arg). */
const huge = (bytes: number) => JSON.stringify({ mcpServers: { big: { command: 'x', args: ['a'.repeat(bytes)] } } });
const fine = (name: string, command = 'splitpoint-no-such-command') => JSON.stringify({ mcpServers: { [name]: { command } } });

test('a 2 MB or 100,000-deep configuration text is an error naming the file, not an exception', () => {
  const big = parseMcpConfigText(huge(2 * 1024 * 1024), claudeFile);
  assert.deepEqual(big.servers, []);
  assert.equal(big.errors.length, 1);
  assert.match(big.errors[0]!, /^\/ws\/\.mcp\.json: too large \(2\.0 MB\); an MCP configuration file may be at most 1 MB/);
  const deep = parseMcpConfigText(deeplyNested(100_000), claudeFile);
  assert.deepEqual(deep.servers, []);
  assert.equal(deep.errors.length, 1);
  assert.match(deep.errors[0]!, /^\/ws\/\.mcp\.json:1: nested deeper than \d+ levels/);
  // Brackets in strings and comments are not nesting; ordinary nesting (a few levels) is not affected.
  const bracketsInText = `{"mcpServers": {"s": {"command": "x", "args": ["${'['.repeat(100)}"]}}} // ${'{'.repeat(100)}`;
  assert.deepEqual(parseMcpConfigText(bracketsInText, claudeFile).errors, []);
  assert.deepEqual(parseMcpConfigText(deeplyNested(3), claudeFile).errors, [
    '/ws/.mcp.json:1: mcpServers.deep.args: expected a list of strings',
  ]);
});

test('each bad workspace file is reported by name with its reason; the other file loads, and so do the files once fixed', () => {
  const ws = mkdtempSync(join(tmpdir(), 'sp-mcp-limits-'));
  mkdirSync(join(ws, '.vscode'));
  const vscodeFile = join(ws, '.vscode', 'mcp.json');
  const claude = join(ws, '.mcp.json');
  writeFileSync(vscodeFile, deeplyNested(100_000).replace('mcpServers', 'servers'));
  writeFileSync(claude, huge(2 * 1024 * 1024));
  const input = { workspaceRoot: ws, trusted: true, userServers: { mine: { command: 'uvx' } } };
  const bad = loadMcpConfig(input);
  assert.deepEqual(
    bad.servers.map((s) => s.name),
    ['mine'],
  );
  assert.equal(bad.errors.length, 2, bad.errors.join('\n'));
  assert.match(bad.errors[0]!, new RegExp(`^${escape(vscodeFile)}:1: nested deeper than \\d+ levels`));
  assert.match(bad.errors[1]!, new RegExp(`^${escape(claude)}: too large \\(2\\.0 MB\\)`));
  writeFileSync(vscodeFile, JSON.stringify({ servers: { a: { command: 'a' } } }));
  writeFileSync(claude, fine('b', 'b'));
  const fixed = loadMcpConfig(input);
  assert.deepEqual(fixed.errors, []);
  assert.deepEqual(fixed.servers.map((s) => s.name).sort(), ['a', 'b', 'mine']);
});

test('a failed reload is reported to its caller and never blocks the reloads after it', async () => {
  const ws = mkdtempSync(join(tmpdir(), 'sp-mcp-reload-'));
  const notices: string[] = [];
  const service = new McpService({ log: quiet, notice: (m) => notices.push(m), autoApprove: () => [], allowAlways: () => {} });
  try {
    // A deeply nested file: a configuration error naming it, and the reload completes.
    writeFileSync(join(ws, '.mcp.json'), deeplyNested(100_000));
    await service.reload({ workspaceRoot: ws, trusted: true, userServers: undefined });
    assert.equal(notices.length, 1, notices.join('\n'));
    assert.match(notices[0]!, new RegExp(`^MCP configuration: ${escape(join(ws, '.mcp.json'))}:1: nested deeper than`));
    // Whatever else throws during a reload (here: the manager) fails that reload only.
    const restart = service.manager.restart.bind(service.manager);
    service.manager.restart = () => Promise.reject(new Error('boom'));
    await assert.rejects(service.reload({ workspaceRoot: ws, trusted: true, userServers: undefined }), /boom/);
    service.manager.restart = restart;
    writeFileSync(join(ws, '.mcp.json'), '{}');
    await service.reload({ workspaceRoot: ws, trusted: true, userServers: { later: { command: 'splitpoint-no-such-command' } } });
    assert.deepEqual(
      service.manager.states().map((s) => [s.name, s.status]),
      [['later', 'failed']],
    );
    assert.match(notices.at(-1)!, /MCP server "later" \(splitpoint\.mcp\.servers\) failed to start/);
  } finally {
    await service.stop();
  }
});

const manyTools = (name: string, count: number): McpServerConfig => ({
  name,
  source: { format: 'vscode', file: '.vscode/mcp.json', workspace: true },
  type: 'stdio',
  command: process.execPath,
  args: [MANY_TOOLS, String(count)],
  env: {},
});

test('one tools/list page of 3,000 tools: the agent is offered at most the per-server cap, with a notice', async () => {
  const notices: string[] = [];
  const m = new McpManager({ log: quiet, notice: (n) => notices.push(n), startTimeoutMs: 20_000 });
  try {
    await m.start([manyTools('huge', 3_000)]);
    const cap = DEFAULT_MCP_TOOL_LIMITS.maxToolsPerServer;
    assert.ok(cap <= 200, `a useful cap (${cap})`);
    assert.equal(m.tools().length, cap);
    assert.deepEqual(
      m.tools().map((t) => t.tool),
      Array.from({ length: cap }, (_, i) => `tool_${i}`),
    );
    assert.deepEqual(m.states(), [{ name: 'huge', type: 'stdio', status: 'running', tools: cap }]);
    assert.equal(notices.length, 1, notices.join('\n'));
    assert.match(
      notices[0]!,
      new RegExp(`MCP server "huge" lists 3,000 tools; the agent is offered the first ${cap} \\(at most ${cap} per server\\)`),
    );
    // A tool left out cannot be called either.
    assert.equal((await m.call(`mcp__huge__tool_${cap}`, {}, new AbortController().signal)).isError, true);
    assert.deepEqual({ ...(await m.call('mcp__huge__tool_1', {}, new AbortController().signal)) }, { content: 'tool_1', isError: false });
  } finally {
    await m.stopAll();
  }
});

test('the tools of all servers together are capped in total (in configuration order), with a notice naming who lost tools', async () => {
  const notices: string[] = [];
  const m = new McpManager({
    log: quiet,
    notice: (n) => notices.push(n),
    startTimeoutMs: 20_000,
    toolLimits: { maxToolsPerServer: 50, maxToolsTotal: 80 },
  });
  try {
    await m.start([manyTools('first', 60), manyTools('second', 40)]);
    const byServer = (server: string) => m.tools().filter((t) => t.server === server).length;
    assert.equal(m.tools().length, 80);
    assert.equal(byServer('first'), 50);
    assert.equal(byServer('second'), 30);
    assert.ok(
      notices.some((n) => /MCP server "first" lists 60 tools; the agent is offered the first 50 \(at most 50 per server\)/.test(n)),
      notices.join('\n'),
    );
    assert.ok(
      notices.some((n) => /MCP servers list 90 tools together; the agent is offered the first 80 \(at most 80 in all\).*"second"/.test(n)),
      notices.join('\n'),
    );
    assert.equal(notices.length, 2, notices.join('\n'));
  } finally {
    await m.stopAll();
  }
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
