// The agent with MCP tools end to end in plain Node: a real MCP server (@modelcontextprotocol/
// server-everything over stdio, from a workspace's .vscode/mcp.json the user approved, or from the
// user's own splitpoint.mcp.servers where the user's allow-list is tested), the real Anthropic SDK
// against the loopback server, and the controller's chat. The MCP tool's definition is in the
// request, the call waits for approval (unless allow-listed), and its result is in the next request.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { LoopbackAnthropic } from '../loopback/anthropic-server';
import { McpService } from '../../src/agent/mcp';
import type { ChatItem } from '../../src/protocol';
import { loopbackController } from '../helpers/loopbackController';

const EVERYTHING = resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js');
type ToolItem = Extract<ChatItem, { kind: 'tool' }>;

async function rig(opts: { trusted?: boolean; autoApprove?: string[]; awaitStart?: boolean; userServer?: boolean } = {}) {
  const server = new LoopbackAnthropic({ consecutiveRoles: 'reject' });
  const { baseURL } = await server.start();
  const storage = mkdtempSync(join(tmpdir(), 'sp-mcp-store-'));
  const workspace = mkdtempSync(join(tmpdir(), 'sp-mcp-ws-'));
  mkdirSync(join(workspace, '.vscode'));
  const servers = { everything: { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] } };
  if (!opts.userServer) writeFileSync(join(workspace, '.vscode', 'mcp.json'), JSON.stringify({ servers }));
  const trusted = opts.trusted ?? true;
  const allowList = [...(opts.autoApprove ?? [])];
  const chat: { notice: (m: string) => void } = { notice: () => {} };
  const mcp = new McpService({
    log: { info: () => {}, warn: () => {}, error: () => {} },
    notice: (m) => chat.notice(m),
    autoApprove: () => allowList,
    allowAlways: (entry) => void allowList.push(entry),
    // The user allows the workspace's server in the dialog.
    askToStart: async () => 'allow',
  });
  const c = loopbackController({ workspace, storage, baseURL, deps: { trusted, mcp } });
  chat.notice = (m) => c.chatNotice(m);
  const started = mcp.reload({ workspaceRoot: workspace, trusted, userServers: opts.userServer ? servers : undefined });
  if (opts.awaitStart ?? true) await started;
  /** Answer the next approval card with `decide`. */
  const onApproval = (decide: (item: ToolItem) => void) => {
    const sub = c.onDidChangeChat((ch) => {
      if (ch.kind === 'item' && ch.item.kind === 'tool' && ch.item.status === 'awaiting-approval') {
        sub.dispose();
        decide(ch.item);
      }
    });
  };
  return {
    server,
    c,
    mcp,
    allowList,
    onApproval,
    async close() {
      c.dispose();
      await mcp.stop();
      await server.close();
    },
  };
}

const toolNames = (body: { tools?: Array<{ name?: string }> }) => (body.tools ?? []).map((t) => String(t.name));

test('an MCP tool is offered with its schema, runs after approval, and its result is in the next request', async () => {
  const r = await rig();
  try {
    r.server.queue.toolUse('mcp__everything__echo', { message: 'hello MCP' }).text('It echoed.');
    let card: ToolItem | undefined;
    r.onApproval((item) => {
      card = item;
      r.c.approve(item.id);
    });
    await r.c.send('Echo something.');
    const [first, second] = r.server.messageRequests;
    const echo = first!.body.tools!.find((t) => t.name === 'mcp__everything__echo')!;
    assert.ok(echo, toolNames(first!.body).join(', '));
    assert.deepEqual(Object.keys((echo.input_schema as { properties: object }).properties), ['message']);
    assert.match(String(echo.description), /MCP server "everything"/);
    assert.ok(toolNames(first!.body).includes('read_file'), 'the workspace tools are still there');
    // The approval card named the server and the tool.
    assert.equal(card?.server, 'everything');
    const results = (second!.body.messages ?? [])
      .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
      .filter((b) => b.type === 'tool_result');
    assert.equal(results.length, 1);
    assert.equal(results[0]!.content, 'Echo: hello MCP');
    assert.equal(results[0]!.is_error, undefined);
    const done = r.c.chatState(true).items.find((i): i is ToolItem => i.kind === 'tool')!;
    assert.deepEqual([done.status, done.server, done.output], ['done', 'everything', 'Echo: hello MCP']);
  } finally {
    await r.close();
  }
});

test('a prompt sent while the servers are still starting waits for them: the first request offers their tools', async () => {
  const r = await rig({ awaitStart: false });
  try {
    assert.equal(r.mcp.tools().length, 0, 'not started yet');
    r.server.queue.text('hello');
    await r.c.send('Hi.');
    assert.ok(toolNames(r.server.messageRequests[0]!.body).includes('mcp__everything__echo'));
  } finally {
    await r.close();
  }
});

test('rejected: the tool does not run and the model hears why; "Always allow" adds server/tool and later calls do not ask', async () => {
  const r = await rig({ userServer: true });
  try {
    r.server.queue.toolUse('mcp__everything__echo', { message: 'no' }).text('ok');
    r.onApproval((item) => r.c.reject(item.id, 'not now'));
    await r.c.send('Try.');
    assert.match(
      JSON.stringify(r.server.messageRequests[1]!.body.messages),
      /The user rejected calling echo on the MCP server everything: not now/,
    );

    r.server.queue.toolUse('mcp__everything__echo', { message: 'yes' }).text('ok');
    r.onApproval((item) => r.c.approve(item.id, true));
    await r.c.send('Again.');
    assert.deepEqual(r.allowList, ['everything/echo']);
    let asked = false;
    r.onApproval(() => (asked = true));
    r.server.queue.toolUse('mcp__everything__echo', { message: 'auto' }).text('ok');
    await r.c.send('Once more.');
    assert.equal(asked, false, 'an allow-listed tool runs without asking');
    assert.match(JSON.stringify(r.server.messageRequests.at(-1)!.body.messages), /Echo: auto/);
  } finally {
    await r.close();
  }
});

test('an image result (server/* allow-listed) reaches the model as an image block in the tool_result', async () => {
  const r = await rig({ autoApprove: ['everything/*'], userServer: true });
  try {
    const image = r.mcp.tools().find((t) => /tiny[-_]image/.test(t.tool))!;
    r.server.queue.toolUse(image.name, {}).text('A tiny image.');
    await r.c.send('Show me an image.');
    const last = r.server.messageRequests[1]!.body.messages!.at(-1)!;
    const result = (last.content as Array<{ type: string; content?: unknown }>).find((b) => b.type === 'tool_result')!;
    assert.ok(Array.isArray(result.content));
    assert.ok((result.content as Array<{ type: string }>).some((b) => b.type === 'image'));
  } finally {
    await r.close();
  }
});

test('a server that dies: the chat says so and its tools are not in the next request; the agent keeps working', async () => {
  const r = await rig({ autoApprove: ['everything/*'], userServer: true });
  try {
    r.server.queue.text('first');
    await r.c.send('Hi.');
    assert.ok(toolNames(r.server.messageRequests[0]!.body).includes('mcp__everything__echo'));
    // The real server process is killed from outside.
    const { execFileSync } = await import('node:child_process');
    const pids = execFileSync('pgrep', ['-P', String(process.pid), '-f', 'server-everything'], { encoding: 'utf8' })
      .trim()
      .split('\n');
    for (const pid of pids) process.kill(Number(pid), 'SIGKILL');
    const end = Date.now() + 10_000;
    while (r.mcp.tools().length > 0 && Date.now() < end) await new Promise((res) => setTimeout(res, 50));
    r.server.queue.text('second');
    await r.c.send('Still there?');
    const names = toolNames(r.server.messageRequests[1]!.body);
    assert.ok(!names.some((n) => n.startsWith('mcp__')), names.join(', '));
    assert.ok(names.includes('read_file'));
    const notices = r.c
      .chatState(true)
      .items.filter((i) => i.kind === 'notice')
      .map((i) => (i as { message: string }).message);
    assert.ok(
      notices.some((n) => /MCP server "everything" stopped unexpectedly/.test(n)),
      notices.join('\n'),
    );
    assert.equal((r.c.chatState(true).items.at(-1) as { text?: string }).text, 'second');
  } finally {
    await r.close();
  }
});

test('an untrusted workspace: .vscode/mcp.json is ignored, the chat says so, no MCP tool is offered', async () => {
  const r = await rig({ trusted: false });
  try {
    r.server.queue.text('hello');
    await r.c.send('Hi.');
    assert.ok(!toolNames(r.server.messageRequests[0]!.body).some((n) => n.startsWith('mcp__')));
    const notices = r.c
      .chatState(true)
      .items.filter((i) => i.kind === 'notice')
      .map((i) => (i as { message: string }).message);
    assert.ok(
      notices.some((n) => /not trusted, so its MCP configuration .*mcp\.json is ignored/.test(n)),
      notices.join('\n'),
    );
  } finally {
    await r.close();
  }
});
