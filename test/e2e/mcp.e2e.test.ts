// MCP tools end to end in a real VS Code (code-server), with a real MCP server nobody here wrote:
// the workspace's .vscode/mcp.json names @modelcontextprotocol/server-everything over stdio (from
// node_modules, with this Node); opening Splitpoint asks first (a modal dialog showing the command and
// the environment variables it reads) and nothing runs until the user allows it. The scripted model (the loopback Anthropic API) calls its `echo`
// tool; the card names the server and waits; the user approves; the loopback server sees the tool's
// definition in the request and its result in the next one. Then "Always allow" (remembered for this
// workspace's definition) lets the next call run without asking; a server killed from outside is
// reported in the chat and its tools leave the next request; a changed file asks again. Screenshots go to test-artifacts/e2e-mcp-*.png.
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
  changedFileAsksAgain,
  restartCommand,
  serverCrashReported,
  serverPids,
  sidebarKey,
  toolCallApproved,
  workspaceServerAsksFirst,
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
/** The workspace's .vscode/mcp.json, and what it says at the start. */
let mcpJson: string;
let mcpJsonText: string;
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
      // VS Code's own MCP configuration format; ${workspaceFolder} and ${env:HOME} are substituted by Splitpoint.
      mcpJson = join(workspace, '.vscode', 'mcp.json');
      mcpJsonText = JSON.stringify(
        {
          servers: {
            everything: {
              type: 'stdio',
              command: process.execPath,
              args: [EVERYTHING, 'stdio', marker],
              cwd: '${workspaceFolder}',
              env: { SPLITPOINT_E2E_HOME: '${env:HOME}' },
            },
          },
        },
        null,
        2,
      );
      writeFileSync(mcpJson, mcpJsonText);
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

  run.step(1, 'workspace-server-asks-first', () => workspaceServerAsksFirst(session));
  run.step(2, 'sidebar-key', () => sidebarKey(session));
  run.step(3, 'tool-call-approved', () => toolCallApproved(session));
  run.step(4, 'always-allow', () => alwaysAllow(session));
  run.step(5, 'server-crash-reported', () => serverCrashReported(session));
  run.step(6, 'restart-command', () => restartCommand(session));
  run.step(7, 'changed-file-asks-again', () => changedFileAsksAgain(session, mcpJson, mcpJsonText));
});
