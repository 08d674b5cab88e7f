// MCP trust: a cloned repository's .mcp.json / .vscode/mcp.json starts nothing until the user approved
// that exact definition (asked again when it changes, the answer remembered per workspace); the dialog
// names the environment variables substitution reads, never their values; the user's own servers
// start as before; a workspace server never shadows a user server nor inherits the user's allow-list.
// The "servers" here are node one-liners that leave a file behind when spawned: the test sees a spawn.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  loadMcpConfig,
  McpService,
  type McpApprovalAnswer,
  type McpApprovalMemory,
  type McpServerApprovalRequest,
} from '../../src/agent/mcp';

function workspace() {
  const root = mkdtempSync(join(tmpdir(), 'sp-mcp-trust-'));
  const spawned = join(root, 'spawned');
  /** A server definition whose spawn leaves the file `spawned` (it is no MCP server: it then fails to start). */
  const spawner = (extra: Record<string, unknown> = {}) => ({
    command: process.execPath,
    args: ['-e', `require('fs').writeFileSync(${JSON.stringify(spawned)}, 'x')`],
    ...extra,
  });
  const writeClaude = (servers: Record<string, unknown>) => writeFileSync(join(root, '.mcp.json'), JSON.stringify({ mcpServers: servers }));
  return { root, spawned, spawner, writeClaude };
}

function memory(): McpApprovalMemory & { data: Map<string, unknown> } {
  const data = new Map<string, unknown>();
  return { data, get: (k) => data.get(k), update: (k, v) => void data.set(k, v) };
}

function service(opts: { answer?: () => McpApprovalAnswer; memory?: McpApprovalMemory; autoApprove?: string[]; noDialog?: boolean } = {}) {
  const asked: McpServerApprovalRequest[] = [];
  const notices: string[] = [];
  const userAllowList = [...(opts.autoApprove ?? [])];
  const s = new McpService({
    log: { info: () => {}, warn: () => {}, error: () => {} },
    notice: (m) => notices.push(m),
    autoApprove: () => userAllowList,
    allowAlways: (e) => void userAllowList.push(e),
    startTimeoutMs: 5_000,
    ...(opts.memory ? { approvals: opts.memory } : {}),
    ...(opts.noDialog
      ? {}
      : {
          askToStart: async (r: McpServerApprovalRequest) => {
            asked.push(r);
            return (opts.answer ?? (() => 'allow'))();
          },
        }),
  });
  return { s, asked, notices, userAllowList };
}

/** Waits a moment for a spawned one-liner to have written its file. */
async function spawnedWithin(file: string, ms = 3_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (existsSync(file)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return existsSync(file);
}

test('a workspace server is never spawned without approval: with no dialog to ask, it does not start, and the chat says so', async () => {
  const w = workspace();
  w.writeClaude({ evil: w.spawner() });
  const { s, notices } = service({ noDialog: true });
  try {
    await s.reload({ workspaceRoot: w.root, trusted: true, userServers: undefined });
    assert.equal(await spawnedWithin(w.spawned, 1_000), false, 'the workspace server was spawned');
    assert.deepEqual(s.manager.states(), []);
    assert.ok(
      notices.some((n) => /MCP server "evil" .*\.mcp\.json\) was not started/.test(n)),
      notices.join('\n'),
    );
  } finally {
    await s.stop();
  }
});

test('"Don\'t allow" starts nothing and is remembered; the restart command (askAgain) asks again', async () => {
  const w = workspace();
  w.writeClaude({ evil: w.spawner() });
  const mem = memory();
  let answer: McpApprovalAnswer = 'deny';
  const { s, asked, notices } = service({ memory: mem, answer: () => answer });
  const input = { workspaceRoot: w.root, trusted: true, userServers: undefined };
  try {
    await s.reload(input);
    assert.equal(asked.length, 1);
    assert.equal(await spawnedWithin(w.spawned, 500), false);
    await s.reload(input);
    assert.equal(asked.length, 1, 'the answer is remembered');
    assert.ok(notices.some((n) => /"evil".*not started: you chose "Don't allow"/.test(n)));
    answer = 'allow';
    await s.reload(input, { askAgain: true });
    assert.equal(asked.length, 2);
    assert.equal(await spawnedWithin(w.spawned), true);
  } finally {
    await s.stop();
  }
});

test('the dialog shows the definition as written and the environment variables it reads, never their values', async () => {
  const w = workspace();
  const def = w.spawner({ env: { TOKEN: '${env:GH_TOKEN}' } });
  w.writeClaude({ gh: { ...def, args: [...def.args, 'key', '${API_KEY}', '${MISSING:-fallback}'] } });
  const { s, asked } = service();
  try {
    await s.reload({
      workspaceRoot: w.root,
      trusted: true,
      userServers: undefined,
      env: { GH_TOKEN: 'ghp_secret_value', API_KEY: 'sk-secret-value' },
    });
    assert.equal(asked.length, 1);
    const r = asked[0]!;
    assert.equal(r.name, 'gh');
    assert.equal(r.file, join(w.root, '.mcp.json'));
    assert.equal(r.command, process.execPath);
    assert.deepEqual(r.args?.slice(2), ['key', '${API_KEY}', '${MISSING:-fallback}']);
    assert.deepEqual(r.envKeys, ['TOKEN']);
    assert.deepEqual([...r.environmentRead].sort(), ['API_KEY', 'GH_TOKEN', 'MISSING']);
    assert.doesNotMatch(JSON.stringify(r), /secret_value|secret-value/);
    assert.equal(await spawnedWithin(w.spawned), true, 'allowed: it starts');
  } finally {
    await s.stop();
  }
});

test('an approval is remembered per workspace for that exact definition: the same one starts without asking, a changed one asks again', async () => {
  const w = workspace();
  w.writeClaude({ srv: w.spawner({ env: { T: '${env:TOKEN}' } }) });
  const mem = memory();
  const input = (token: string) => ({ workspaceRoot: w.root, trusted: true, userServers: undefined, env: { TOKEN: token } });
  let answer: McpApprovalAnswer = 'allow';
  const first = service({ memory: mem, answer: () => answer });
  try {
    await first.s.reload(input('one'));
    assert.equal(first.asked.length, 1);
    assert.equal(await spawnedWithin(w.spawned), true);
  } finally {
    await first.s.stop();
  }
  // A new window on the same workspace (same memory): no question, it starts.
  const second = service({ memory: mem, answer: () => answer });
  try {
    rmSync(w.spawned, { force: true });
    await second.s.reload(input('one'));
    assert.equal(second.asked.length, 0);
    assert.equal(await spawnedWithin(w.spawned), true);
    // The file changes (a git pull): asked again, and nothing runs while it is not allowed.
    rmSync(w.spawned, { force: true });
    answer = undefined; // the dialog is closed
    const changed = w.spawner({ env: { T: '${env:TOKEN}' } });
    w.writeClaude({ srv: { ...changed, args: [...changed.args, 'more'] } });
    await second.s.reload(input('one'));
    assert.equal(second.asked.length, 1);
    assert.equal(await spawnedWithin(w.spawned, 500), false);
    // The value substituted changes (the definition after substitution differs): asked again too.
    w.writeClaude({ srv: w.spawner({ env: { T: '${env:TOKEN}' } }) });
    await second.s.reload(input('two'));
    assert.equal(second.asked.length, 2);
    assert.equal(await spawnedWithin(w.spawned, 500), false);
  } finally {
    await second.s.stop();
  }
});

test("the user's own servers (splitpoint.mcp.servers) start without asking", async () => {
  const w = workspace();
  const { s, asked } = service({ noDialog: true });
  try {
    await s.reload({ workspaceRoot: w.root, trusted: true, userServers: { mine: w.spawner() } });
    assert.equal(asked.length, 0);
    assert.equal(await spawnedWithin(w.spawned), true);
  } finally {
    await s.stop();
  }
});

test("a workspace server named like one of the user's servers does not replace it, and the clash is reported", () => {
  const w = workspace();
  mkdirSync(join(w.root, '.vscode'));
  writeFileSync(join(w.root, '.vscode', 'mcp.json'), JSON.stringify({ servers: { github: { command: 'evil' } } }));
  const r = loadMcpConfig({ workspaceRoot: w.root, trusted: true, userServers: { github: { command: 'gh-mcp' } } });
  assert.deepEqual(
    r.servers.map((s) => [s.name, s.source.workspace, s.type === 'stdio' ? s.command : s.url]),
    [['github', false, 'gh-mcp']],
  );
  assert.ok(
    r.errors.some((e) => e.includes(join('.vscode', 'mcp.json')) && /"github" is also defined in splitpoint\.mcp\.servers/.test(e)),
    r.errors.join('\n'),
  );
});

test('the user\'s allow-list never applies to a workspace server; its "Always allow" holds for the approved definition only', async () => {
  const w = workspace();
  w.writeClaude({ github: w.spawner() });
  const mem = memory();
  const { s, userAllowList } = service({ memory: mem, autoApprove: ['github/*', 'github/create_issue', 'mine/*'] });
  const input = { workspaceRoot: w.root, trusted: true, userServers: { mine: { command: process.execPath, args: ['-e', ''] } } };
  try {
    await s.reload(input);
    assert.deepEqual(s.autoApprove(), ['mine/*'], 'the user entries for "github" are not the workspace server\'s');
    s.allowAlways('github', 'create_issue');
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(userAllowList, ['github/*', 'github/create_issue', 'mine/*'], 'the user setting is not written');
    assert.deepEqual(s.autoApprove(), ['mine/*', 'github/create_issue']);
    // The definition changes and is approved again: the earlier "Always allow" does not carry over.
    w.writeClaude({ github: { ...w.spawner(), args: ['-e', '""'] } });
    await s.reload(input);
    assert.deepEqual(s.autoApprove(), ['mine/*']);
    // The user's own server keeps the user's entries, and "Always allow" on it writes the setting as before.
    s.allowAlways('mine', 'tool');
    assert.deepEqual(userAllowList.at(-1), 'mine/tool');
  } finally {
    await s.stop();
  }
});
