// MCP tools end to end in a real VS Code (code-server), with a real MCP server nobody here wrote:
// the workspace's .vscode/mcp.json starts @modelcontextprotocol/server-everything over stdio (from
// node_modules, with this Node). The scripted model (the loopback Anthropic API) calls its `echo`
// tool; the card names the server and waits; the user approves; the loopback server sees the tool's
// definition in the request and its result in the next one. Then "Always allow" writes the user's
// allow-list and the next call runs without asking; and a server killed from outside is reported in
// the chat and its tools leave the next request. Screenshots go to test-artifacts/e2e-mcp-*.png.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import type { Browser, FrameLocator, Page } from 'playwright-core';
import { assertChromiumInstalled } from '../helpers/chromium';
import {
  lastUserText,
  LoopbackAnthropic,
  reply,
  type ScriptedReply,
  type ValidRequest,
  type WireBlock,
} from '../loopback/anthropic-server';
import {
  buildExtension,
  ensureCodeServer,
  freshDirs,
  installUnpacked,
  QUIET_SETTINGS,
  ROOT,
  startCodeServer,
  writeMachineSettings,
  writeUserSettings,
  type CodeServer,
} from './codeServer';
import { E2eRun, setApiKeyFromSidebar } from './run';
import { notification, runCommand, sendPrompt, waitFor, webviewFrame } from './workbench';

const API_KEY = 'sk-ant-e2e-mcp-0123456789';
const UI_TIMEOUT = 30_000;
const STEP_TIMEOUT = 180_000;
const CHAT_MARKER = 'textarea.composer-input';
const EVERYTHING = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const EVERYTHING_VERSION = (
  JSON.parse(readFileSync(join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/package.json'), 'utf8')) as { version: string }
).version;
const TOOL = 'mcp__everything__echo';

const PROMPT_ECHO = 'Echo a greeting through the MCP server.';
const PROMPT_ALWAYS = 'Echo again, please.';
const PROMPT_AUTO = 'One more echo.';
const PROMPT_AFTER_CRASH = 'Are you still there?';
const messageFor = (prompt: string) => `hello from the e2e test (${prompt.length})`;

let base: string;
let workspace: string;
let userDataDir: string;
/** A marker on the server's command line, so the test finds (and kills) exactly its process. */
let marker: string;
let loopback: LoopbackAnthropic | undefined;
let server: CodeServer | undefined;
let browser: Browser | undefined;
let page: Page;

/** The scripted model: a prompt asks for the echo tool; its result is answered with what it echoed. */
function responder(request: ValidRequest): ScriptedReply {
  const last = request.body.messages.at(-1);
  if (last?.role === 'user' && Array.isArray(last.content)) {
    const result = (last.content as WireBlock[]).find((b) => b.type === 'tool_result');
    if (result) return reply.text(`The MCP server answered: ${JSON.stringify(result.content)}`);
  }
  const prompt = lastUserText(request.body);
  for (const p of [PROMPT_ECHO, PROMPT_ALWAYS, PROMPT_AUTO]) if (prompt.includes(p)) return reply.toolUse(TOOL, { message: messageFor(p) });
  return reply.text(`echo: ${prompt}`);
}

const run = new E2eRun('e2e-mcp', STEP_TIMEOUT, () => page);

const chat = (): Promise<FrameLocator> => webviewFrame(page, CHAT_MARKER, UI_TIMEOUT);

function send(frame: FrameLocator, prompt: string): Promise<void> {
  return sendPrompt(frame, CHAT_MARKER, prompt, UI_TIMEOUT);
}

async function idle(frame: FrameLocator): Promise<void> {
  await frame.locator('.app:not(.is-busy)').waitFor({ timeout: UI_TIMEOUT });
}

/** Everything Splitpoint's output channel wrote (VS Code keeps it in a log file under the user data). */
function splitpointLog(): string {
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

/** The pids of the MCP server this test's workspace started. */
function serverPids(): number[] {
  try {
    return execFileSync('pgrep', ['-f', marker], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).map(Number);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

const toolNames = (r: ValidRequest | { body: { tools?: Array<{ name?: string }> } }) => (r.body.tools ?? []).map((t) => String(t.name));

describe(`MCP tools in a real VS Code (server-everything ${EVERYTHING_VERSION} over stdio)`, () => {
  before(
    async () => {
      assertChromiumInstalled();
      ensureCodeServer();
      buildExtension();
      let extensionsDir: string;
      ({ base, userDataDir, extensionsDir, workspace } = freshDirs('splitpoint-e2e-mcp'));
      marker = `splitpoint-e2e-mcp-${process.pid}-${Date.now()}`;
      installUnpacked(extensionsDir);
      mkdirSync(join(workspace, '.vscode'));
      // VS Code's own MCP configuration format; ${workspaceFolder} is substituted by Splitpoint.
      writeFileSync(
        join(workspace, '.vscode', 'mcp.json'),
        JSON.stringify(
          {
            servers: {
              everything: { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio', marker], cwd: '${workspaceFolder}' },
            },
          },
          null,
          2,
        ),
      );
      writeFileSync(join(workspace, 'README.md'), '# MCP e2e workspace\n');
      loopback = new LoopbackAnthropic({ apiKey: API_KEY, responder });
      const { baseURL } = await loopback.start();
      writeUserSettings(userDataDir, { 'splitpoint.baseUrl': baseURL, ...QUIET_SETTINGS });
      // code-server is a remote window: a machine-scoped setting (baseUrl) belongs in its Machine settings.
      // From the User settings alone, it is dropped at the first settings change (here: the allow-list).
      writeMachineSettings(userDataDir, { 'splitpoint.baseUrl': baseURL });
      server = await startCodeServer({ home: base, userDataDir, extensionsDir, workspace, timeoutMs: 60_000 });
      ({ browser, page } = await run.openWorkbench(server, workspace));
    },
    { timeout: 5 * 60_000 },
  );

  after(
    async () => {
      await browser?.close().catch(() => undefined);
      await server?.stop();
      await loopback?.close();
      run.finish({
        base,
        server,
        userDataDir,
        files: loopback
          ? {
              'loopback-requests.json': JSON.stringify(
                loopback.requests.map((r) => r.body),
                null,
                2,
              ),
            }
          : {},
      });
      // The server dies with the extension host; nothing of this run may outlive it.
      for (const pid of serverPids()) process.kill(pid, 'SIGKILL');
    },
    { timeout: 60_000 },
  );

  run.step(1, 'sidebar-key-and-server-started', async () => {
    await setApiKeyFromSidebar(page, chat, API_KEY, loopback!.baseURL, UI_TIMEOUT);
    await notification(page, 'API key saved').first().waitFor({ timeout: UI_TIMEOUT });
    // The server from .vscode/mcp.json runs as a child of the extension host.
    await waitFor(
      'the MCP server to start',
      async () => /MCP server "everything" \(stdio\) started with \d+ tools/.test(splitpointLog()),
      60_000,
    );
    assert.equal(serverPids().length, 1, 'one server process');
  });

  run.step(2, 'tool-call-approved', async () => {
    const frame = await chat();
    await send(frame, PROMPT_ECHO);
    const approve = frame.getByRole('button', { name: `Approve ${TOOL}` });
    await approve.waitFor({ timeout: UI_TIMEOUT });
    const card = frame.locator('article.card.tool.status-awaiting-approval');
    assert.equal((await card.locator('.mcp-badge').innerText()).trim(), 'MCP: everything');
    await run.screenshot('2-awaiting-approval');
    const before = loopback!.messageRequests.length;
    assert.equal(before, 1, 'nothing more is sent before the approval');
    await approve.click();
    await frame.locator('article.item.assistant').filter({ hasText: 'The MCP server answered' }).waitFor({ timeout: UI_TIMEOUT });
    await idle(frame);
    // The request offered the tool with its schema; the next one carried its result.
    const [first, second] = loopback!.messageRequests;
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
  });

  run.step(3, 'always-allow', async () => {
    const frame = await chat();
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
    const settings = join(userDataDir, 'User', 'settings.json');
    await waitFor(
      'the allow-list in the user settings',
      async () => readFileSync(settings, 'utf8').includes('everything/echo'),
      UI_TIMEOUT,
    );
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
  });

  run.step(4, 'server-crash-reported', async () => {
    const frame = await chat();
    for (const pid of serverPids()) process.kill(pid, 'SIGKILL');
    await frame.locator('.item.notice', { hasText: 'MCP server "everything" stopped unexpectedly' }).waitFor({ timeout: UI_TIMEOUT });
    const n = loopback!.messageRequests.length;
    await send(frame, PROMPT_AFTER_CRASH);
    await frame
      .locator('article.item.assistant')
      .filter({ hasText: `echo: ${PROMPT_AFTER_CRASH}` })
      .waitFor({ timeout: UI_TIMEOUT });
    await idle(frame);
    const names = toolNames(loopback!.messageRequests[n]!);
    assert.ok(!names.includes(TOOL), names.join(', '));
    assert.ok(names.includes('read_file'), 'the agent keeps its own tools');
  });

  run.step(5, 'restart-command', async () => {
    const frame = await chat();
    await runCommand(page, 'Splitpoint: Restart MCP Servers');
    await waitFor('the server to run again', async () => serverPids().length === 1, 60_000);
    await waitFor(
      'the restart to be logged',
      async () => (splitpointLog().match(/MCP server "everything" \(stdio\) started/g) ?? []).length === 2,
      60_000,
    );
    const n = loopback!.messageRequests.length;
    await send(frame, PROMPT_AUTO);
    await frame.locator('article.card.tool.status-done').nth(3).waitFor({ timeout: UI_TIMEOUT });
    await idle(frame);
    assert.ok(toolNames(loopback!.messageRequests[n]!).includes(TOOL), 'the tool is offered again');
  });
});
