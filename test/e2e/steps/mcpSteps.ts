// The MCP suite's steps: the server from the workspace's .vscode/mcp.json started, a tool call the
// user approves, "Always allow", a server killed from outside, and the restart command. The helpers
// here find the server's process and read what Splitpoint logged about it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ValidRequest, WireBlock } from '../../loopback/anthropic-server';
import { messageFor, PROMPT_AFTER_CRASH, PROMPT_ALWAYS, PROMPT_AUTO, PROMPT_ECHO, TOOL } from '../mcpScript';
import { setApiKeyFromSidebar } from '../run';
import { notification, runCommand, waitFor } from '../workbench';
import { chat, idle, send, UI_TIMEOUT, type McpSession } from './session';

/** Everything Splitpoint's output channel wrote (VS Code keeps it in a log file under the user data). */
function splitpointLog(userDataDir: string): string {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of existsSync(dir) ? readdirSync(dir) : []) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/Splitpoint\.log$/.test(name)) out.push(readFileSync(p, 'utf8'));
    }
  };
  walk(join(userDataDir, 'logs'));
  return out.join('\n');
}

/** The pids of the MCP server this test's workspace started (its command line carries `marker`). */
export function serverPids(marker: string): number[] {
  try {
    return execFileSync('pgrep', ['-f', marker], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).map(Number);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

const toolNames = (r: ValidRequest | { body: { tools?: Array<{ name?: string }> } }) => (r.body.tools ?? []).map((t) => String(t.name));

/** Step 1 (sidebar-key-and-server-started): the key set from the sidebar; the server from .vscode/mcp.json starts, one process. */
export async function sidebarKeyAndServerStarted(s: McpSession): Promise<void> {
  await setApiKeyFromSidebar(s.page, () => chat(s.page), s.apiKey, s.loopback.baseURL, UI_TIMEOUT);
  await notification(s.page, 'API key saved').first().waitFor({ timeout: UI_TIMEOUT });
  // The server from .vscode/mcp.json runs as a child of the extension host.
  await waitFor(
    'the MCP server to start',
    async () => /MCP server "everything" \(stdio\) started with \d+ tools/.test(splitpointLog(s.userDataDir)),
    60_000,
  );
  assert.equal(serverPids(s.marker).length, 1, 'one server process');
}

/** Step 2 (tool-call-approved): the model's call of the server's echo tool waits for approval, names the server, and its result reaches the API. */
export async function toolCallApproved(s: McpSession): Promise<void> {
  const frame = await chat(s.page);
  await send(frame, PROMPT_ECHO);
  const approve = frame.getByRole('button', { name: `Approve ${TOOL}` });
  await approve.waitFor({ timeout: UI_TIMEOUT });
  const card = frame.locator('article.card.tool.status-awaiting-approval');
  assert.equal((await card.locator('.mcp-badge').innerText()).trim(), 'MCP: everything');
  await s.run.screenshot('2-awaiting-approval');
  const before = s.loopback.messageRequests.length;
  assert.equal(before, 1, 'nothing more is sent before the approval');
  await approve.click();
  await frame.locator('article.item.assistant').filter({ hasText: 'The MCP server answered' }).waitFor({ timeout: UI_TIMEOUT });
  await idle(frame);
  // The request offered the tool with its schema; the next one carried its result.
  const [first, second] = s.loopback.messageRequests;
  const def = first!.body.tools!.find((t) => t.name === TOOL)!;
  assert.ok(def, toolNames(first!).join(', '));
  assert.deepEqual(Object.keys((def.input_schema as { properties: object }).properties), ['message']);
  const results = (second!.body.messages ?? [])
    .flatMap((m) => (Array.isArray(m.content) ? (m.content as WireBlock[]) : []))
    .filter((b) => b.type === 'tool_result');
  assert.deepEqual(
    results.map((b) => b.content),
    [`Echo: ${messageFor(PROMPT_ECHO)}`],
  );
  const done = frame.locator('article.card.tool.status-done');
  assert.equal(await done.count(), 1);
}

/** Step 3 (always-allow): "Always allow" writes the tool to the user's allow-list, and the next call runs without asking. */
export async function alwaysAllow(s: McpSession): Promise<void> {
  const frame = await chat(s.page);
  await send(frame, PROMPT_ALWAYS);
  const always = frame.locator('article.card.tool.status-awaiting-approval').getByRole('button', { name: 'Always allow' });
  await always.waitFor({ timeout: UI_TIMEOUT });
  await always.click();
  await frame
    .locator('article.item.assistant')
    .filter({ hasText: messageFor(PROMPT_ALWAYS) })
    .waitFor({ timeout: UI_TIMEOUT });
  await idle(frame);
  // The user's settings now allow the tool…
  const settings = join(s.userDataDir, 'User', 'settings.json');
  await waitFor('the allow-list in the user settings', async () => readFileSync(settings, 'utf8').includes('everything/echo'), UI_TIMEOUT);
  assert.deepEqual((JSON.parse(readFileSync(settings, 'utf8')) as Record<string, unknown>)['splitpoint.mcp.autoApprove'], [
    'everything/echo',
  ]);
  // …so the next call runs without asking.
  await send(frame, PROMPT_AUTO);
  await frame
    .locator('article.item.assistant')
    .filter({ hasText: messageFor(PROMPT_AUTO) })
    .waitFor({ timeout: UI_TIMEOUT });
  await idle(frame);
  assert.equal(await frame.locator('article.card.tool.status-awaiting-approval').count(), 0);
  assert.equal(await frame.locator('article.card.tool.status-done').count(), 3);
}

/** Step 4 (server-crash-reported): a server killed from outside is reported in the chat, and its tools leave the next request. */
export async function serverCrashReported(s: McpSession): Promise<void> {
  const frame = await chat(s.page);
  for (const pid of serverPids(s.marker)) process.kill(pid, 'SIGKILL');
  await frame.locator('.item.notice', { hasText: 'MCP server "everything" stopped unexpectedly' }).waitFor({ timeout: UI_TIMEOUT });
  const n = s.loopback.messageRequests.length;
  await send(frame, PROMPT_AFTER_CRASH);
  await frame
    .locator('article.item.assistant')
    .filter({ hasText: `echo: ${PROMPT_AFTER_CRASH}` })
    .waitFor({ timeout: UI_TIMEOUT });
  await idle(frame);
  const names = toolNames(s.loopback.messageRequests[n]!);
  assert.ok(!names.includes(TOOL), names.join(', '));
  assert.ok(names.includes('read_file'), 'the agent keeps its own tools');
}

/** Step 5 (restart-command): the restart command starts the server again, and its tool is offered again. */
export async function restartCommand(s: McpSession): Promise<void> {
  const frame = await chat(s.page);
  await runCommand(s.page, 'Splitpoint: Restart MCP Servers');
  await waitFor('the server to run again', async () => serverPids(s.marker).length === 1, 60_000);
  await waitFor(
    'the restart to be logged',
    async () => (splitpointLog(s.userDataDir).match(/MCP server "everything" \(stdio\) started/g) ?? []).length === 2,
    60_000,
  );
  const n = s.loopback.messageRequests.length;
  await send(frame, PROMPT_AUTO);
  await frame.locator('article.card.tool.status-done').nth(3).waitFor({ timeout: UI_TIMEOUT });
  await idle(frame);
  assert.ok(toolNames(s.loopback.messageRequests[n]!).includes(TOOL), 'the tool is offered again');
}
