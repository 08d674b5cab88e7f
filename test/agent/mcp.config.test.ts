// MCP configuration as users write it: VS Code's .vscode/mcp.json (JSONC), Claude Code's .mcp.json
// and the user setting; variables substituted; every problem named by file, line and field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseMcpConfigText, parseMcpServersSetting, type McpConfigSource } from '../../src/agent/mcp';
import { namespacedToolName, parseMcpToolName } from '../../src/agent/mcp';

const vscodeFile: McpConfigSource = { format: 'vscode', file: '/ws/.vscode/mcp.json', workspace: true };
const claudeFile: McpConfigSource = { format: 'claude', file: '/ws/.mcp.json', workspace: true };
const vars = { workspaceFolder: '/ws', env: { TOKEN: 'sek', HOME_DIR: '/home/u' }, userHome: '/home/u' };

test('.vscode/mcp.json: stdio and http servers, comments and trailing commas, ${workspaceFolder} and ${env:…}', () => {
  const text = `{
    // VS Code's format
    "servers": {
      "fs": { "type": "stdio", "command": "node", "args": ["\${workspaceFolder}/server.js", "\${workspaceFolder}"], "env": { "T": "\${env:TOKEN}" } },
      "remote": { "type": "http", "url": "https://example.test/mcp", "headers": { "Authorization": "Bearer \${env:TOKEN}" } },
      "inferred": { "command": "srv", "cwd": "sub" },
    },
    "inputs": [],
  }`;
  const r = parseMcpConfigText(text, vscodeFile, vars);
  assert.deepEqual(r.errors, []);
  assert.deepEqual(r.servers, [
    {
      name: 'fs',
      source: vscodeFile,
      type: 'stdio',
      command: 'node',
      args: ['/ws/server.js', '/ws'],
      env: { T: 'sek' },
      cwd: '/ws',
      // What the approval dialog shows: the variables read, and the strings as written (no value).
      environment: { names: ['TOKEN'], asWritten: { command: 'node', args: ['${workspaceFolder}/server.js', '${workspaceFolder}'] } },
    },
    {
      name: 'remote',
      source: vscodeFile,
      type: 'http',
      url: 'https://example.test/mcp',
      headers: { Authorization: 'Bearer sek' },
      environment: { names: ['TOKEN'], asWritten: { url: 'https://example.test/mcp' } },
    },
    { name: 'inferred', source: vscodeFile, type: 'stdio', command: 'srv', args: [], env: {}, cwd: '/ws/sub' },
  ]);
});

test(".mcp.json: Claude Code's mcpServers with ${VAR} and ${VAR:-default}", () => {
  const text = JSON.stringify({
    mcpServers: {
      a: { command: 'npx', args: ['-y', 'x', '${HOME_DIR}/data', '${MISSING:-fallback}'] },
      b: { type: 'http', url: 'http://localhost:3001/mcp' },
    },
  });
  const r = parseMcpConfigText(text, claudeFile, vars);
  assert.deepEqual(r.errors, []);
  assert.deepEqual(
    r.servers.map((s) => (s.type === 'stdio' ? [s.name, s.command, ...s.args] : [s.name, s.url])),
    [
      ['a', 'npx', '-y', 'x', '/home/u/data', 'fallback'],
      ['b', 'http://localhost:3001/mcp'],
    ],
  );
  // The servers key of the other format is not read from this file.
  assert.deepEqual(parseMcpConfigText('{"servers": {"x": {"command": "y"}}}', claudeFile, vars).servers, []);
});

test('bad JSON is an error naming the file and the line; nothing is started from it', () => {
  const r = parseMcpConfigText('{\n  "servers": {\n    "a": { "command": "x" \n  }\n  oops\n}', vscodeFile, vars);
  assert.deepEqual(r.servers, []);
  assert.equal(r.errors.length, 1);
  assert.match(r.errors[0]!, /^\/ws\/\.vscode\/mcp\.json:5: invalid JSON: /);
});

test('a wrong field names file, line and field; that server is skipped, the others are kept', () => {
  const text =
    '{\n "servers": {\n  "ok": {"command": "a"},\n  "bad": {\n   "type": "stdio",\n   "args": "not-a-list",\n   "command": "b"\n  },\n  "sse": {"type": "sse", "url": "http://x"},\n  "input": {"command": "c", "env": {"K": "${input:key}"}}\n }\n}';
  const r = parseMcpConfigText(text, vscodeFile, vars);
  assert.deepEqual(
    r.servers.map((s) => s.name),
    ['ok'],
  );
  assert.deepEqual(r.errors, [
    '/ws/.vscode/mcp.json:6: servers.bad.args: expected a list of strings',
    '/ws/.vscode/mcp.json:9: servers.sse.type: the SSE transport is not supported (use "stdio" or "http": streamable HTTP)',
    '/ws/.vscode/mcp.json:10: servers.input.env: cannot resolve ${input:key} (input variables are not supported: put the value in env or the setting)',
  ]);
});

test('the user setting splitpoint.mcp.servers uses the servers shape; its errors name the setting and field', () => {
  const user: McpConfigSource = { format: 'user', file: 'splitpoint.mcp.servers', workspace: false };
  const r = parseMcpServersSetting({ git: { command: 'uvx', args: ['mcp-server-git'] }, broken: { type: 'http' } }, user, vars);
  assert.deepEqual(
    r.servers.map((s) => [s.name, s.type, s.source.format]),
    [['git', 'stdio', 'user']],
  );
  assert.deepEqual(r.errors, ['splitpoint.mcp.servers: servers.broken.url: an http server needs a "url" string']);
});

test('tool names: mcp__server__tool within ^[a-zA-Z0-9_-]{1,64}$, unique, and the server read back', () => {
  assert.equal(namespacedToolName('everything', 'echo'), 'mcp__everything__echo');
  const long = namespacedToolName('my.server', 'a'.repeat(80));
  assert.match(long, /^mcp__my_server__a+_[0-9a-f]{6}$/);
  assert.ok(long.length <= 64);
  const dotted = namespacedToolName('s', 'read.file');
  assert.match(dotted, /^mcp__s__read_file_[0-9a-f]{6}$/);
  const taken = new Set(['mcp__s__x']);
  assert.notEqual(namespacedToolName('s', 'x', taken), 'mcp__s__x');
  assert.deepEqual(parseMcpToolName('mcp__everything__get-sum'), { server: 'everything', tool: 'get-sum' });
  assert.deepEqual(parseMcpToolName(namespacedToolName('a__b', 'c__d')), { server: 'a_b', tool: 'c__d' });
  assert.equal(parseMcpToolName('read_file'), undefined);
});
