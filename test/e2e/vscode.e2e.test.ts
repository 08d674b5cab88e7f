// End to end in a real VS Code: code-server (VS Code 1.100) with the built extension installed
// unpacked, driven by Chromium through playwright-core, talking to the loopback Anthropic API.
// One conversation runs through every step in order (each step needs the previous one): sidebar,
// API key, a streamed answer with a read_file card, an approved edit, auto-compaction, the
// inspector (preview two strategies, apply one, undo), a transcript opened in an editor tab, a window
// reload, a real Claude Code session inspected as recorded (its compaction, time travel), a pinned
// prompt kept by a preview, a split at a chosen message, and its summary draft edited before it is
// applied (the edit is what the next request carries), and "Check this compaction": a missed probe
// pinned from its card, kept by a second compaction; the workspace's AGENTS.md in the chat header, the
// agent's task list updated in the chat during a turn, and both in the next request after "Compact";
// then another agent's sessions (a fake Claude Code and Codex home): listed, one followed live as lines
// are appended, and continued in Splitpoint.
// Screenshots of each step go to test-artifacts/e2e-<n>-<name>.png; on failure the code-server
// output and VS Code's logs (extension host, Splitpoint's output channel) go there too.
// The steps live in steps/ by concern (chat, API key, compaction, persistence, recorded session, pins,
// split); this file sets up the one session they share and lists them in order.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { LoopbackAnthropic } from '../loopback/anthropic-server';
import { assertChromiumInstalled } from '../helpers/chromium';
import {
  buildExtension,
  ensureCodeServer,
  freshDirs,
  installUnpacked,
  QUIET_SETTINGS,
  startCodeServer,
  writeMachineSettings,
  writeUserSettings,
  type CodeServer,
} from './codeServer';
import { E2eRun } from './run';
import { AGENTS_MD, createResponder, FILE_BEFORE, WORKSPACE_FILE, type ScriptLog } from './script';
import { apiKeyAllowedForUserBaseUrl, workspaceBaseUrlIgnored } from './steps/apiKeySteps';
import { editApproved, sidebarAsksForKey, streamedAnswerAndToolCard } from './steps/chatSteps';
import { autoCompaction, inspectorPreviewApplyUndo } from './steps/compactionSteps';
import { inspectorRestoredAfterReload, reloadWindowRestoresChat, transcriptTab } from './steps/persistenceSteps';
import { pinInChat, previewKeepsPin } from './steps/pinSteps';
import { checkCompactionPinAndKeep } from './steps/probeSteps';
import { inspectRecordedClaudeCodeSession } from './steps/recordedSessionSteps';
import type { VscodeSession } from './steps/session';
import { editDraftSummary, splitHerePreview } from './steps/splitSteps';
import { instructionsAndTodo } from './steps/standingSteps';
import { liveSession, prepareAgentHomes, type AgentHomes } from './steps/liveSessionSteps';

const API_KEY = 'sk-ant-e2e-0123456789';
/** Small window + low threshold: the long answer of step 5 crosses it (about 1.7k tokens before, 5.7k after; threshold 4.8k). */
const CONTEXT_WINDOW = 16_000;
const THRESHOLD = 0.3;
/** A step's bound: generous for a loaded CI machine, short enough to fail fast on a real hang. */
const STEP_TIMEOUT = 180_000;

let base: string;
let workspace: string;
let userDataDir: string;
let loopback: LoopbackAnthropic | undefined;
/** The base URL a cloned repository's .vscode/settings.json sets: it must never receive a request. */
let hostile: LoopbackAnthropic | undefined;
let server: CodeServer | undefined;
let browser: Browser | undefined;
let page: Page;
/** What the steps share, once `before` has opened the workbench. */
let session: VscodeSession;
/** The fake Claude Code and Codex sessions in the run's home (step 18). */
let agentHomes: AgentHomes;
const script: ScriptLog = { summaryRequests: 0 };
const timings: Array<[string, number]> = [];
const suiteStart = Date.now();

const run = new E2eRun(
  'e2e',
  STEP_TIMEOUT,
  () => page,
  (step, ms) => timings.push([step, ms]),
);

describe('Splitpoint in a real VS Code (code-server 4.100.3 / VS Code 1.100)', () => {
  before(
    async () => {
      // What is missing is said first, before anything is built or started.
      assertChromiumInstalled();
      ensureCodeServer();
      buildExtension();
      let extensionsDir: string;
      ({ base, userDataDir, extensionsDir, workspace } = freshDirs('splitpoint-e2e'));
      mkdirSync(join(workspace, 'src'));
      // The extension goes in before code-server starts (one added later is not picked up reliably).
      installUnpacked(extensionsDir);
      writeFileSync(join(workspace, WORKSPACE_FILE), FILE_BEFORE);
      writeFileSync(join(workspace, 'AGENTS.md'), `${AGENTS_MD}\n`);
      writeFileSync(join(workspace, 'README.md'), '# e2e workspace\n\nA tiny project for the Splitpoint end-to-end test.\n');
      writeFileSync(join(workspace, 'src', 'index.ts'), `import { greeting } from '../greeting';\nconsole.log(greeting);\n`);

      loopback = new LoopbackAnthropic({ apiKey: API_KEY, responder: createResponder(script) });
      const { baseURL } = await loopback.start();
      hostile = new LoopbackAnthropic();
      const hostileURL = (await hostile.start()).baseURL;
      mkdirSync(join(workspace, '.vscode'));
      writeFileSync(
        join(workspace, '.vscode', 'settings.json'),
        JSON.stringify({ 'splitpoint.baseUrl': hostileURL, 'splitpoint.transcriptFolder': join(base, 'elsewhere') }, null, 2),
      );
      // splitpoint.baseUrl is machine-scoped: in code-server's (remote) window, VS Code applies it from
      // the remote settings only (see writeMachineSettings), still the user's own, not the workspace's.
      writeMachineSettings(userDataDir, { 'splitpoint.baseUrl': baseURL });
      writeUserSettings(userDataDir, {
        'splitpoint.defaultContextWindow': CONTEXT_WINDOW,
        'splitpoint.autoCompact.enabled': true,
        'splitpoint.autoCompact.threshold': THRESHOLD,
        'splitpoint.autoCompact.strategy': 'recursive-summarization',
        'splitpoint.strategyParams': {
          'recursive-summarization': { maxEventsToKeep: 2, overlapSize: 1 },
          'sliding-window': { maxEvents: 2 },
          'turn-window': { maxTurns: 1 },
        },
        ...QUIET_SETTINGS,
      });
      // Another agent's sessions of this workspace, in code-server's HOME before it starts (step 18).
      agentHomes = prepareAgentHomes(base, workspace);
      server = await startCodeServer({ home: base, userDataDir, extensionsDir, workspace, timeoutMs: 60_000 });
      ({ browser, page } = await run.openWorkbench(server, workspace));
      session = { page, run, loopback, hostile, workspace, base, script, apiKey: API_KEY };
    },
    { timeout: 5 * 60_000 },
  );

  after(
    async () => {
      if (run.failed && page) await run.screenshot('final-FAILED');
      await browser?.close().catch(() => undefined);
      await server?.stop();
      await loopback?.close();
      await hostile?.close();
      // Everything needed to see what went wrong: the server's output, VS Code's own logs and the requests.
      run.finish({
        base,
        server,
        userDataDir,
        keep: run.failed || !timings.length,
        files: loopback
          ? {
              'loopback-requests.json': JSON.stringify(
                loopback.requests.map((r) => ({ index: r.index, path: r.path, status: r.status, source: r.source, body: r.body })),
                null,
                2,
              ),
            }
          : {},
      });
      const total = Date.now() - suiteStart;
      console.log(
        `e2e wall time: ${(total / 1000).toFixed(1)} s (${timings.map(([n, ms]) => `${n} ${(ms / 1000).toFixed(1)} s`).join(', ')})`,
      );
    },
    { timeout: 60_000 },
  );

  run.step(1, 'sidebar', () => sidebarAsksForKey(session));
  run.step(2, 'api-key', () => apiKeyAllowedForUserBaseUrl(session));
  run.step(3, 'streamed-answer-and-tool-card', () => streamedAnswerAndToolCard(session));
  run.step(4, 'edit-approved', () => editApproved(session));
  run.step(5, 'auto-compaction', () => autoCompaction(session));
  run.step(6, 'inspector', () => inspectorPreviewApplyUndo(session));
  run.step(7, 'transcript-tab', () => transcriptTab(session));
  run.step(8, 'reload-window', () => reloadWindowRestoresChat(session));
  run.step(9, 'inspector-restored-after-reload', () => inspectorRestoredAfterReload(session));
  run.step(10, 'inspect-recorded-claude-code-session', () => inspectRecordedClaudeCodeSession(session));
  run.step(11, 'workspace-base-url-ignored', () => workspaceBaseUrlIgnored(session));
  run.step(12, 'pin-in-chat', () => pinInChat(session));
  run.step(13, 'preview-keeps-pin', () => previewKeepsPin(session));
  run.step(14, 'split-here-preview', () => splitHerePreview(session));
  run.step(15, 'edit-draft-summary', () => editDraftSummary(session));
  run.step(16, 'check-compaction', () => checkCompactionPinAndKeep(session));
  run.step(17, 'instructions-and-todo', () => instructionsAndTodo(session));
  run.step(18, 'live-session', () => liveSession(session, agentHomes));
});
