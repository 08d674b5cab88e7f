// End to end in a real VS Code (code-server 4.100.3 / VS Code 1.100): an edit reviewed in VS Code's
// native diff editor and approved from the editor title; then the files restored to before that
// prompt from the chat (a preview of the files, one file's diff opened, then the restore), and the
// inspector's row action on the prompt offering the same restore. The agent is the real extension
// talking to the loopback Anthropic API (test/e2e/script.ts answers the prompt with an edit_file).
// Screenshots go to test-artifacts/e2e-review-<n>-<name>.png; logs on failure.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import type { Browser, FrameLocator, Page } from 'playwright-core';
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
import { E2eRun, setApiKeyFromSidebar } from './run';
import { ANSWER_EDIT, createResponder, FILE_AFTER, FILE_BEFORE, PROMPT_EDIT, WORKSPACE_FILE, type ScriptLog } from './script';
import { editorTab, notification, runCommand, sendPrompt, waitFor, webviewFrame } from './workbench';

const API_KEY = 'sk-ant-e2e-review-0123456789';
const UI_TIMEOUT = 30_000;
const STEP_TIMEOUT = 180_000;
const CHAT_MARKER = 'textarea.composer-input';
const INSPECTOR_MARKER = 'section.panel.strategies';

let base: string;
let workspace: string;
let userDataDir: string;
let loopback: LoopbackAnthropic | undefined;
let server: CodeServer | undefined;
let browser: Browser | undefined;
let page: Page;
const script: ScriptLog = { summaryRequests: 0 };

const run = new E2eRun('e2e-review', STEP_TIMEOUT, () => page);

const chat = (): Promise<FrameLocator> => webviewFrame(page, CHAT_MARKER, UI_TIMEOUT);
const fileText = () => readFileSync(join(workspace, WORKSPACE_FILE), 'utf8');

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

  run.step(1, 'sidebar-and-key', async () => {
    await setApiKeyFromSidebar(page, chat, API_KEY, loopback!.baseURL, UI_TIMEOUT);
    await (await chat()).locator('section.empty.welcome').waitFor({ timeout: UI_TIMEOUT });
  });

  run.step(2, 'edit-approved-from-the-diff-editor', async () => {
    const frame = await chat();
    await sendPrompt(frame, CHAT_MARKER, PROMPT_EDIT, UI_TIMEOUT);
    const card = frame.locator('article.card.tool.status-awaiting-approval');
    await card.waitFor({ timeout: UI_TIMEOUT });
    // The card keeps its compact diff; the pending-edits list names the file.
    await card.locator('.diff-body .dl.add', { hasText: 'Hello from Splitpoint' }).waitFor({ timeout: UI_TIMEOUT });
    await frame
      .getByRole('region', { name: 'Edits waiting for approval' })
      .getByRole('button', { name: `Open diff of ${WORKSPACE_FILE}` })
      .waitFor({ timeout: UI_TIMEOUT });
    await card.getByRole('button', { name: `Open the diff of ${WORKSPACE_FILE} in the editor` }).click();

    // VS Code's diff editor: the file as it is (left) and the proposal, read-only (right).
    const tab = editorTab(page, /greeting\.ts ↔ proposed by edit_file/);
    await tab.waitFor({ timeout: UI_TIMEOUT });
    const diffEditor = page.locator('.monaco-diff-editor');
    await diffEditor.waitFor({ timeout: UI_TIMEOUT });
    await diffEditor.locator('.editor.original .view-lines', { hasText: 'Hello from the workspace' }).waitFor({ timeout: UI_TIMEOUT });
    await diffEditor.locator('.editor.modified .view-lines', { hasText: 'Hello from Splitpoint' }).waitFor({ timeout: UI_TIMEOUT });
    assert.equal(fileText(), FILE_BEFORE, 'nothing is written before the approval');
    await run.screenshot('2-diff-editor');

    // Approve from the editor title: the same approval as the card's; the diff tab closes.
    await page.locator('.editor-actions .action-label[aria-label*="Approve Edit"]').first().click();
    await waitFor('greeting.ts to change on disk', async () => fileText() === FILE_AFTER, UI_TIMEOUT);
    await frame.locator('article.item.assistant').filter({ hasText: ANSWER_EDIT }).waitFor({ timeout: UI_TIMEOUT });
    await tab.waitFor({ state: 'detached', timeout: UI_TIMEOUT });
    await frame.locator('.app:not(.is-busy)').waitFor({ timeout: UI_TIMEOUT });
    assert.equal(await frame.locator('article.card.tool.status-done').count(), 1, 'the card shows the approved edit done');
    assert.equal(await frame.locator('.pending-edits').count(), 0, 'nothing waits any more');
  });

  run.step(3, 'restore-files-to-before-the-prompt', async () => {
    const frame = await chat();
    const prompt = frame.locator('article.item.user').filter({ hasText: PROMPT_EDIT });
    // The checkpoint was taken before the approved edit was written.
    await prompt.getByRole('button', { name: 'Restore files to before this prompt' }).click();
    const panel = prompt.getByRole('group', { name: 'Restore files to before this prompt' });
    await panel.getByRole('button', { name: `Diff of ${WORKSPACE_FILE}` }).waitFor({ timeout: UI_TIMEOUT });
    assert.match((await panel.textContent()) ?? '', /changed since: will be restored/);
    // The preview's diff: the file now ↔ before the prompt.
    await panel.getByRole('button', { name: `Diff of ${WORKSPACE_FILE}` }).click();
    await editorTab(page, /greeting\.ts \(now ↔ before the prompt\)/).waitFor({ timeout: UI_TIMEOUT });
    const diffEditor = page.locator('.monaco-diff-editor');
    await diffEditor.locator('.editor.modified .view-lines', { hasText: 'Hello from the workspace' }).waitFor({ timeout: UI_TIMEOUT });
    await run.screenshot('3-restore-preview');
    assert.equal(fileText(), FILE_AFTER, 'a preview changes nothing');

    await panel.getByRole('button', { name: 'Restore 1 file' }).click();
    await waitFor('greeting.ts to be back', async () => fileText() === FILE_BEFORE, UI_TIMEOUT);
    await notification(page, 'restored 1 file to before the prompt').first().waitFor({ timeout: UI_TIMEOUT });
    await frame
      .locator('.item.notice', { hasText: `Restored 1 file to before the prompt: ${WORKSPACE_FILE}` })
      .waitFor({ timeout: UI_TIMEOUT });
    await panel.waitFor({ state: 'detached', timeout: UI_TIMEOUT });
    // The checkpoint lives in the extension's storage, never in the workspace.
    assert.deepEqual(readdirSync(workspace).sort(), ['README.md', WORKSPACE_FILE]);
  });

  run.step(4, 'inspector-row-action-restores-files', async () => {
    // Edit again (the same prompt, answered with the same edit), approved on the card this time.
    const frame = await chat();
    await sendPrompt(frame, CHAT_MARKER, PROMPT_EDIT, UI_TIMEOUT);
    await frame.getByRole('button', { name: 'Approve edit_file' }).click();
    await waitFor('greeting.ts to change again', async () => fileText() === FILE_AFTER, UI_TIMEOUT);
    await frame.locator('.app:not(.is-busy)').waitFor({ timeout: UI_TIMEOUT });

    await runCommand(page, 'Splitpoint: Open Inspector');
    const insp = await webviewFrame(page, INSPECTOR_MARKER, UI_TIMEOUT);
    // The newest prompt's row: open its detail and use the row action.
    const row = insp.locator('.timeline .row').filter({ hasText: 'Change the greeting' }).last();
    await row.waitFor({ timeout: UI_TIMEOUT });
    await row.click();
    await insp.locator('section.detail button[data-action="restore-files"]', { hasText: 'Restore files to before this' }).click();
    // The chat shows the preview for that prompt (the second one), then restores.
    const chatFrame = await chat();
    const prompt = chatFrame.locator('article.item.user').filter({ hasText: PROMPT_EDIT }).last();
    const panel = prompt.getByRole('group', { name: 'Restore files to before this prompt' });
    await panel.getByRole('button', { name: 'Restore 1 file' }).click();
    await waitFor('greeting.ts to be back again', async () => fileText() === FILE_BEFORE, UI_TIMEOUT);
  });
});
