// MCP tools end to end in a real VS Code (code-server), with a real MCP server nobody here wrote:
// the workspace's .vscode/mcp.json starts @modelcontextprotocol/server-everything over stdio (from
// node_modules, with this Node). The scripted model (the loopback Anthropic API) calls its `echo`
// tool; the card names the server and waits; the user approves; the loopback server sees the tool's
// definition in the request and its result in the next one. Then "Always allow" writes the user's
// allow-list and the next call runs without asking; and a server killed from outside is reported in
// the chat and its tools leave the next request. Screenshots go to test-artifacts/e2e-mcp-*.png.
// The steps live in steps/mcpSteps.ts and the scripted model in mcpScript.ts; this file sets up the
// session they share and lists them in order.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { assertChromiumInstalled } from '../helpers/chromium';
import { LoopbackAnthropic } from '../loopback/anthropic-server';
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
import { responder } from './mcpScript';
import { E2eRun } from './run';
import {
  alwaysAllow,
  restartCommand,
  serverCrashReported,
  serverPids,
  sidebarKeyAndServerStarted,
  toolCallApproved,
} from './steps/mcpSteps';
import type { McpSession } from './steps/session';

const API_KEY = 'sk-ant-e2e-mcp-0123456789';
const STEP_TIMEOUT = 180_000;
const EVERYTHING = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const EVERYTHING_VERSION = (
  JSON.parse(readFileSync(join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/package.json'), 'utf8')) as { version: string }
).version;

let base: string;
let workspace: string;
let userDataDir: string;
/** A marker on the server's command line, so the test finds (and kills) exactly its process. */
let marker: string;
let loopback: LoopbackAnthropic | undefined;
let server: CodeServer | undefined;
let browser: Browser | undefined;
let page: Page;
/** What the steps share, once `before` has opened the workbench. */
let session: McpSession;

const run = new E2eRun('e2e-mcp', STEP_TIMEOUT, () => page);

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
      session = { page, run, loopback, workspace, userDataDir, marker, apiKey: API_KEY };
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
      for (const pid of serverPids(marker)) process.kill(pid, 'SIGKILL');
    },
    { timeout: 60_000 },
  );

  run.step(1, 'sidebar-key-and-server-started', () => sidebarKeyAndServerStarted(session));
  run.step(2, 'tool-call-approved', () => toolCallApproved(session));
  run.step(3, 'always-allow', () => alwaysAllow(session));
  run.step(4, 'server-crash-reported', () => serverCrashReported(session));
  run.step(5, 'restart-command', () => restartCommand(session));
});
