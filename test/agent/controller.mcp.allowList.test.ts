// The MCP allow-list is per tool: "Always allow" for one tool of a server (everything/echo) lets that
// tool run without asking, and every other tool of the same server still asks. End to end: a real MCP
// server (@modelcontextprotocol/server-everything over stdio, configured as one of the user's servers),
// the real Anthropic SDK against the loopback server, and the controller's approval cards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { LoopbackAnthropic } from '../loopback/anthropic-server';
import { McpService } from '../../src/agent/mcp';
import type { ChatItem } from '../../src/protocol';
import { loopbackController } from '../helpers/loopbackController';

const EVERYTHING = resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js');
type ToolItem = Extract<ChatItem, { kind: 'tool' }>;

test('"Always allow" for one MCP tool does not approve the other tools of its server', async () => {
  const server = new LoopbackAnthropic({ consecutiveRoles: 'reject' });
  const { baseURL } = await server.start();
  const workspace = mkdtempSync(join(tmpdir(), 'sp-mcp-allow-ws-'));
  const allowList: string[] = [];
  const mcp = new McpService({
    log: { info: () => {}, warn: () => {}, error: () => {} },
    notice: () => {},
    autoApprove: () => allowList,
    allowAlways: (entry) => void allowList.push(entry),
  });
  const c = loopbackController({
    workspace,
    storage: mkdtempSync(join(tmpdir(), 'sp-mcp-allow-store-')),
    baseURL,
    deps: { trusted: true, mcp },
  });
  /** Every approval card shown: its tool; each is answered with `answer`. */
  const asked: string[] = [];
  let answer: (item: ToolItem) => void = (item) => c.approve(item.id);
  const sub = c.onDidChangeChat((ch) => {
    if (ch.kind === 'item' && ch.item.kind === 'tool' && ch.item.status === 'awaiting-approval') {
      asked.push(ch.item.name);
      answer(ch.item);
    }
  });
  try {
    await mcp.reload({
      workspaceRoot: workspace,
      trusted: true,
      userServers: { everything: { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] } },
    });
    const names = mcp.tools().map((t) => t.name);
    assert.ok(names.includes('mcp__everything__echo') && names.includes('mcp__everything__get-sum'), names.join(', '));

    // echo asks once; the answer is "Always allow".
    answer = (item) => c.approve(item.id, true);
    server.queue.toolUse('mcp__everything__echo', { message: 'first' }).text('ok');
    await c.send('Echo.');
    assert.deepEqual(asked, ['mcp__everything__echo']);
    assert.equal(allowList.length, 1, `the allow-list: ${allowList.join(', ')}`);

    // Another tool of the same server still asks (approved once).
    answer = (item) => c.approve(item.id);
    server.queue.toolUse('mcp__everything__get-sum', { a: 2, b: 3 }).text('ok');
    await c.send('Add.');
    assert.deepEqual(asked, ['mcp__everything__echo', 'mcp__everything__get-sum'], 'get-sum asked for approval');
    assert.match(JSON.stringify(server.messageRequests.at(-1)!.body.messages), /5/);

    // echo, allow-listed, runs without asking.
    server.queue.toolUse('mcp__everything__echo', { message: 'again' }).text('ok');
    await c.send('Echo again.');
    assert.deepEqual(asked, ['mcp__everything__echo', 'mcp__everything__get-sum']);
    assert.match(JSON.stringify(server.messageRequests.at(-1)!.body.messages), /Echo: again/);
  } finally {
    sub.dispose();
    c.dispose();
    await mcp.stop();
    await server.close();
  }
});
