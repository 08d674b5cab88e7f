// End to end in a real VS Code (code-server 4.100.3 / VS Code 1.100): an edit reviewed in VS Code's
// native diff editor and approved from the editor title; then the files restored to before that
// prompt from the chat (a preview of the files, one file's diff opened, then the restore), and the
// inspector's row action on the prompt offering the same restore. The agent is the real extension
// talking to the loopback Anthropic API (test/e2e/script.ts answers the prompt with an edit_file).
// Screenshots go to test-artifacts/e2e-review-<n>-<name>.png; logs on failure.
// The steps live in steps/ by concern (sidebarKeySteps, reviewSteps, checkpointSteps); this file sets
// up the session they share and lists them in order.
import { writeFileSync } from 'node:fs';
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
import { createResponder, FILE_BEFORE, WORKSPACE_FILE, type ScriptLog } from './script';
import { filesRestoredToBeforePrompt, inspectorRowActionRestoresFiles } from './steps/checkpointSteps';
import { editApprovedFromDiffEditor } from './steps/reviewSteps';
import type { ReviewSession } from './steps/session';
import { keySetFromSidebar } from './steps/sidebarKeySteps';

const API_KEY = 'sk-ant-e2e-review-0123456789';
const STEP_TIMEOUT = 180_000;

let base: string;
let workspace: string;
let userDataDir: string;
let loopback: LoopbackAnthropic | undefined;
let server: CodeServer | undefined;
let browser: Browser | undefined;
let page: Page;
/** What the steps share, once `before` has opened the workbench. */
let session: ReviewSession;
const script: ScriptLog = { summaryRequests: 0 };

const run = new E2eRun('e2e-review', STEP_TIMEOUT, () => page);

describe('Edits reviewed in the diff editor, files restored to a checkpoint (code-server 4.100.3 / VS Code 1.100)', () => {
  before(
    async () => {
      assertChromiumInstalled();
      ensureCodeServer();
      buildExtension();
      let extensionsDir: string;
      ({ base, userDataDir, extensionsDir, workspace } = freshDirs('splitpoint-e2e-review'));
      installUnpacked(extensionsDir);
      writeFileSync(join(workspace, WORKSPACE_FILE), FILE_BEFORE);
      writeFileSync(join(workspace, 'README.md'), '# e2e workspace\n');
      loopback = new LoopbackAnthropic({ apiKey: API_KEY, responder: createResponder(script) });
      const { baseURL } = await loopback.start();
      writeMachineSettings(userDataDir, { 'splitpoint.baseUrl': baseURL });
      writeUserSettings(userDataDir, { ...QUIET_SETTINGS });
      server = await startCodeServer({ home: base, userDataDir, extensionsDir, workspace, timeoutMs: 60_000 });
      ({ browser, page } = await run.openWorkbench(server, workspace));
      session = { page, run, loopback, workspace, apiKey: API_KEY };
    },
    { timeout: 5 * 60_000 },
  );

  after(
    async () => {
      if (run.failed && page) await run.screenshot('final-FAILED');
      await browser?.close().catch(() => undefined);
      await server?.stop();
      await loopback?.close();
      run.finish({ base, server, userDataDir });
    },
    { timeout: 60_000 },
  );

  run.step(1, 'sidebar-and-key', () => keySetFromSidebar(session));
  run.step(2, 'edit-approved-from-the-diff-editor', () => editApprovedFromDiffEditor(session));
  run.step(3, 'restore-files-to-before-the-prompt', () => filesRestoredToBeforePrompt(session));
  run.step(4, 'inspector-row-action-restores-files', () => inspectorRowActionRestoresFiles(session));
});
