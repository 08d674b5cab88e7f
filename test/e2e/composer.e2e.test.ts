// End to end in a real VS Code (code-server 4.100.3 / VS Code 1.100): a prompt with an @-mentioned
// file (typed `@`, picked from the fuzzy picker with the keyboard) reaches the loopback Anthropic API
// with the file's content; then the model picker (clicking the model in the chat header opens a
// QuickPick listing the loopback server's GET /v1/models) switches the model, and the next request
// uses it, in the same session. Screenshots go to test-artifacts/e2e-composer-<n>-<name>.png; logs
// on failure.
// The steps live in steps/ (sidebarKeySteps, composerSteps, which also holds the scripted model's
// models and answers); this file sets up the session they share and lists them in order.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { LoopbackAnthropic, reply, type ValidRequest } from '../loopback/anthropic-server';
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
import { FILE_BEFORE, WORKSPACE_FILE } from './script';
import {
  ANSWER_MENTION,
  ANSWER_MODEL,
  mentionedFileSentWithPrompt,
  PICKED,
  pickedModelAnswersNext,
  START_MODEL,
} from './steps/composerSteps';
import type { ComposerSession } from './steps/session';
import { keySetFromSidebar } from './steps/sidebarKeySteps';

const API_KEY = 'sk-ant-e2e-composer-0123456789';
const STEP_TIMEOUT = 180_000;

let base: string;
let workspace: string;
let userDataDir: string;
let loopback: LoopbackAnthropic | undefined;
let server: CodeServer | undefined;
let browser: Browser | undefined;
let page: Page;
/** What the steps share, once `before` has opened the workbench. */
let session: ComposerSession;
const answered: ValidRequest[] = [];

const run = new E2eRun('e2e-composer', STEP_TIMEOUT, () => page);

describe('@-mentions and the model picker (code-server 4.100.3 / VS Code 1.100)', () => {
  before(
    async () => {
      assertChromiumInstalled();
      ensureCodeServer();
      buildExtension();
      let extensionsDir: string;
      ({ base, userDataDir, extensionsDir, workspace } = freshDirs('splitpoint-e2e-composer'));
      installUnpacked(extensionsDir);
      writeFileSync(join(workspace, WORKSPACE_FILE), FILE_BEFORE);
      writeFileSync(join(workspace, 'README.md'), '# e2e workspace\n');
      writeFileSync(join(workspace, '.gitignore'), 'ignored-greeting.ts\n');
      writeFileSync(join(workspace, 'ignored-greeting.ts'), 'export const hidden = 1;\n');
      loopback = new LoopbackAnthropic({
        apiKey: API_KEY,
        responder: (r) => {
          answered.push(r);
          return reply.text(r.body.model === PICKED ? ANSWER_MODEL : ANSWER_MENTION);
        },
      });
      const { baseURL } = await loopback.start();
      writeMachineSettings(userDataDir, { 'splitpoint.baseUrl': baseURL });
      writeUserSettings(userDataDir, { ...QUIET_SETTINGS, 'splitpoint.model': START_MODEL });
      server = await startCodeServer({ home: base, userDataDir, extensionsDir, workspace, timeoutMs: 60_000 });
      ({ browser, page } = await run.openWorkbench(server, workspace));
      session = { page, run, loopback, workspace, apiKey: API_KEY, answered };
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
  run.step(2, 'mention-a-file', () => mentionedFileSentWithPrompt(session));
  run.step(3, 'pick-a-model', () => pickedModelAnswersNext(session));
});
