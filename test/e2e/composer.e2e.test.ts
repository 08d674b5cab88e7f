// End to end in a real VS Code (code-server 4.100.3 / VS Code 1.100): a prompt with an @-mentioned
// file (typed `@`, picked from the fuzzy picker with the keyboard) reaches the loopback Anthropic API
// with the file's content; then the model picker (clicking the model in the chat header opens a
// QuickPick listing the loopback server's GET /v1/models) switches the model, and the next request
// uses it, in the same session. Screenshots go to test-artifacts/e2e-composer-<n>-<name>.png; logs
// on failure.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import type { Browser, FrameLocator, Page } from 'playwright-core';
import { LoopbackAnthropic, reply, type ValidRequest } from '../loopback/anthropic-server';
import { DEFAULT_LOOPBACK_MODELS } from '../loopback/models';
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
import { FILE_BEFORE, WORKSPACE_FILE } from './script';
import { waitFor, webviewFrame } from './workbench';

const API_KEY = 'sk-ant-e2e-composer-0123456789';
const UI_TIMEOUT = 30_000;
const STEP_TIMEOUT = 180_000;
const CHAT_MARKER = 'textarea.composer-input';
const START_MODEL = 'claude-sonnet-4-5';
const PICKED = DEFAULT_LOOPBACK_MODELS.find((m) => m.id.startsWith('claude-haiku'))!.id;
const ANSWER_MENTION = 'greeting.ts exports one constant: greeting.';
const ANSWER_MODEL = 'Answered by the model you picked.';

let base: string;
let workspace: string;
let userDataDir: string;
let loopback: LoopbackAnthropic | undefined;
let server: CodeServer | undefined;
let browser: Browser | undefined;
let page: Page;
const answered: ValidRequest[] = [];

const run = new E2eRun('e2e-composer', STEP_TIMEOUT, () => page);

const chat = (): Promise<FrameLocator> => webviewFrame(page, CHAT_MARKER, UI_TIMEOUT);

/** The text of the last user message of a request (string content or its text blocks). */
function lastUserTexts(r: ValidRequest): string[] {
  const messages = r.body.messages as Array<{ role: string; content: unknown }>;
  const last = [...messages].reverse().find((m) => m.role === 'user');
  if (!last) return [];
  if (typeof last.content === 'string') return [last.content];
  return (last.content as Array<{ type: string; text?: string }>).filter((b) => b.type === 'text').map((b) => b.text ?? '');
}

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

  run.step(2, 'mention-a-file', async () => {
    const frame = await chat();
    const box = frame.locator(CHAT_MARKER);
    await box.click();
    await box.pressSequentially('What does @greet');
    const picker = frame.getByRole('listbox', { name: 'Workspace files' });
    await picker.getByRole('option', { name: WORKSPACE_FILE, exact: true }).waitFor({ timeout: UI_TIMEOUT });
    const options = await picker.getByRole('option').allTextContents();
    assert.ok(!options.includes('ignored-greeting.ts'), `.gitignore is honoured: ${options.join(', ')}`);
    assert.equal(await picker.getByRole('option', { selected: true }).textContent(), WORKSPACE_FILE);
    await box.press('Enter');
    await frame.locator('.composer .mention-chip').filter({ hasText: WORKSPACE_FILE }).waitFor({ timeout: UI_TIMEOUT });
    await box.pressSequentially('export?');
    assert.equal(await box.inputValue(), `What does @${WORKSPACE_FILE} export?`);
    await run.screenshot('2a-chip');
    await box.press('Enter');
    await frame.locator('article.item.assistant').filter({ hasText: ANSWER_MENTION }).waitFor({ timeout: UI_TIMEOUT });
    const request = answered.at(-1)!;
    const texts = lastUserTexts(request);
    assert.equal(texts[0], `What does @${WORKSPACE_FILE} export?`);
    assert.equal(texts[1], `<file path="${WORKSPACE_FILE}">\n${FILE_BEFORE}</file>`, 'the file content went with the prompt');
    assert.equal(request.body.model, START_MODEL);
    await frame.locator('article.item.user .mention-chip').filter({ hasText: WORKSPACE_FILE }).waitFor({ timeout: UI_TIMEOUT });
  });

  run.step(3, 'pick-a-model', async () => {
    const frame = await chat();
    const header = frame.locator('button.model-button');
    assert.equal((await header.textContent())?.trim(), START_MODEL);
    await header.click();
    const widget = page.locator('.quick-input-widget');
    await widget.locator('.quick-input-title').filter({ hasText: 'Splitpoint: Choose Model' }).waitFor({ timeout: UI_TIMEOUT });
    const row = widget.locator('.quick-input-list .monaco-list-row').filter({ hasText: PICKED });
    await row.waitFor({ timeout: UI_TIMEOUT });
    assert.doesNotMatch((await widget.locator('.quick-input-title').textContent()) ?? '', /offline/, 'listed by the models endpoint');
    assert.ok(
      loopback!.requests.some((r) => r.path === '/v1/models' && r.status === 200),
      'GET /v1/models was asked',
    );
    assert.match((await row.textContent()) ?? '', /200,000 tokens context window/);
    const sessionBefore = await frame.locator('.session-title .title-text').textContent();
    await widget.locator('.quick-input-box input').fill(PICKED);
    await widget.locator('.quick-input-box input').press('Enter');
    await widget.waitFor({ state: 'hidden', timeout: UI_TIMEOUT });
    await waitFor('the header to show the picked model', async () => (await header.textContent())?.trim() === PICKED, UI_TIMEOUT);
    assert.equal(await frame.locator('.session-title .title-text').textContent(), sessionBefore, 'the same session');

    const box = frame.locator(CHAT_MARKER);
    await box.click();
    await box.pressSequentially('And now?');
    await box.press('Enter');
    await frame.locator('article.item.assistant').filter({ hasText: ANSWER_MODEL }).waitFor({ timeout: UI_TIMEOUT });
    const request = answered.at(-1)!;
    assert.equal(request.body.model, PICKED, 'the next request uses the picked model');
    const messages = request.body.messages as Array<{ role: string }>;
    assert.ok(messages.length >= 3, 'the conversation continued (the earlier turn is in the request)');
    assert.equal(await frame.locator('article.item.assistant').filter({ hasText: ANSWER_MENTION }).count(), 1, 'the chat kept its history');
  });
});
