// The MCP suite's steps: the server from the workspace's .vscode/mcp.json asks first and starts once
// allowed, a tool call the user approves, "Always allow", a server killed from outside, the restart
// command, and a changed file that asks again. The helpers here find the server's process and read
// what Splitpoint logged about it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ValidRequest, WireBlock } from '../../loopback/anthropic-server';
import { messageFor, PROMPT_AFTER_CRASH, PROMPT_ALWAYS, PROMPT_AUTO, PROMPT_ECHO, TOOL } from '../mcpScript';
import type { Page } from 'playwright-core';
import { answerInputBox, notification, runCommand, waitFor } from '../workbench';
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

/** The modal dialog that asks whether the workspace's MCP server may start. */
const approvalDialog = (page: Page) => page.locator('.monaco-dialog-box').filter({ hasText: 'Start the MCP server "everything"' });
const startedInLog = (s: McpSession) => (splitpointLog(s.userDataDir).match(/MCP server "everything" \(stdio\) started/g) ?? []).length;

/**
 * Step 1 (workspace-server-asks-first): opening Splitpoint in a workspace whose .vscode/mcp.json names a
 * server shows a modal dialog with its command, arguments and the environment variables it reads;
 * nothing runs until "Allow", then the server starts, one process.
 */
export async function workspaceServerAsksFirst(s: McpSession): Promise<void> {
  const entry = s.page.locator('.activitybar a[aria-label="Splitpoint"]').first();
  await entry.waitFor({ timeout: 60_000 });
  await entry.click();
  const dialog = approvalDialog(s.page);
  await dialog.waitFor({ timeout: UI_TIMEOUT });
  const text = await dialog.innerText();
  for (const shown of [s.marker, 'SPLITPOINT_E2E_HOME', 'Reads from your environment', 'HOME', 'mcp.json'])
    assert.ok(text.includes(shown), `the dialog shows ${shown}: ${text}`);
  await s.run.screenshot('1-approval-dialog');
  // Asked, not started: no process, nothing logged, for as long as the dialog is open.
  await new Promise((r) => setTimeout(r, 2_000));
  assert.equal(serverPids(s.marker).length, 0, 'no server process before the approval');
  assert.equal(startedInLog(s), 0);
  await dialog.getByRole('button', { name: 'Allow', exact: true }).click();
  await dialog.waitFor({ state: 'hidden', timeout: UI_TIMEOUT });
  // The server from .vscode/mcp.json runs as a child of the extension host.
  await waitFor(
    'the MCP server to start',
    async () => /MCP server "everything" \(stdio\) started with \d+ tools/.test(splitpointLog(s.userDataDir)),
    60_000,
  );
  assert.equal(serverPids(s.marker).length, 1, 'one server process');
}

/** Step 2 (sidebar-key): the key set (the sidebar asks for it) and allowed to go to the user's base URL. */
export async function sidebarKey(s: McpSession): Promise<void> {
  await (await chat(s.page)).locator('section.empty.api-key').waitFor({ timeout: UI_TIMEOUT });
  await runCommand(s.page, 'Splitpoint: Set API Key');
  await answerInputBox(s.page, 'Splitpoint: Anthropic API key', s.apiKey);
  const consent = s.page.locator('.monaco-dialog-box').filter({ hasText: `Send your Anthropic API key to ${s.loopback.baseURL}` });
  await consent.waitFor({ timeout: UI_TIMEOUT });
  await consent.getByRole('button', { name: 'Allow' }).click();
  await consent.waitFor({ state: 'hidden', timeout: UI_TIMEOUT });
  await notification(s.page, 'API key saved').first().waitFor({ timeout: UI_TIMEOUT });
}

/**
 * Step 7 (changed-file-asks-again): the file changes (a git pull): the running server stops and the
 * dialog asks again; "Don't allow" starts nothing and the chat says so; the definition allowed before
 * comes back and starts without asking (remembered for this workspace).
 */
export async function changedFileAsksAgain(s: McpSession, mcpJson: string, original: string): Promise<void> {
  const frame = await chat(s.page);
  const before = startedInLog(s);
  const changed = JSON.parse(original) as { servers: { everything: { args: string[] } } };
  changed.servers.everything.args.push('changed');
  writeFileSync(mcpJson, JSON.stringify(changed, null, 2));
  const dialog = approvalDialog(s.page);
  await dialog.waitFor({ timeout: UI_TIMEOUT });
  assert.ok((await dialog.innerText()).includes('changed'), 'the dialog shows the new definition');
  await waitFor('the old server to stop', async () => serverPids(s.marker).length === 0, UI_TIMEOUT);
  await s.run.screenshot('7-asked-again');
  await dialog.getByRole('button', { name: "Don't allow" }).click();
  await dialog.waitFor({ state: 'hidden', timeout: UI_TIMEOUT });
  await frame
    .locator('.item.notice', { hasText: 'MCP server "everything"' })
    .filter({ hasText: "Don't allow" })
    .waitFor({ timeout: UI_TIMEOUT });
  assert.equal(serverPids(s.marker).length, 0, 'not allowed: nothing runs');
  assert.equal(startedInLog(s), before);
  // Back to the definition the user allowed: it starts, and nothing asks.
  writeFileSync(mcpJson, original);
  await waitFor(
    'the allowed server to start again',
    async () => serverPids(s.marker).length === 1 && startedInLog(s) === before + 1,
    60_000,
  );
  assert.equal(await approvalDialog(s.page).count(), 0, 'no dialog for the definition allowed before');
}

/** Step 3 (tool-call-approved): the model's call of the server's echo tool waits for approval, names the server, and its result reaches the API. */
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

/**
 * Step 4 (always-allow): "Always allow" on the workspace server's tool is remembered for this workspace
 * and this definition (not written to the user's allow-list, which is for the user's own servers), and
 * the next call runs without asking.
 */
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
  // The user's settings are unchanged: a workspace server's tool is allowed for its definition only…
  const settings = join(s.userDataDir, 'User', 'settings.json');
  assert.equal((JSON.parse(readFileSync(settings, 'utf8')) as Record<string, unknown>)['splitpoint.mcp.autoApprove'], undefined);
  // …and the next call runs without asking.
  await send(frame, PROMPT_AUTO);
  await frame
    .locator('article.item.assistant')
    .filter({ hasText: messageFor(PROMPT_AUTO) })
    .waitFor({ timeout: UI_TIMEOUT });
  await idle(frame);
  assert.equal(await frame.locator('article.card.tool.status-awaiting-approval').count(), 0);
  assert.equal(await frame.locator('article.card.tool.status-done').count(), 3);
}

/** Step 5 (server-crash-reported): a server killed from outside is reported in the chat, and its tools leave the next request. */
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

/** Step 6 (restart-command): the restart command starts the server again, and its tool is offered again. */
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
