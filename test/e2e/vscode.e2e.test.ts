// End to end in a real VS Code: code-server (VS Code 1.100) with the built extension installed
// unpacked, driven by Chromium through playwright-core, talking to the loopback Anthropic API.
// One conversation runs through every step in order (each step needs the previous one): sidebar,
// API key, a streamed answer with a read_file card, an approved edit, auto-compaction, the
// inspector (preview two strategies, apply one, undo), a transcript opened in an editor tab, a window
// reload, a real Claude Code session inspected as recorded (its compaction, time travel), a pinned
// prompt kept by a preview, a split at a chosen message, and its summary draft edited before it is
// applied (the edit is what the next request carries).
// Screenshots of each step go to test-artifacts/e2e-<n>-<name>.png; on failure the code-server
// output and VS Code's logs (extension host, Splitpoint's output channel) go there too.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import type { Browser, FrameLocator, Page } from 'playwright-core';
import { importSession } from '../../src/core/importers';
import { LoopbackAnthropic } from '../loopback/anthropic-server';
import { assertChromiumInstalled } from '../helpers/chromium';
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
import { E2eRun } from './run';
import {
  ANSWER_AFTER,
  ANSWER_EDIT,
  ANSWER_READ,
  createResponder,
  FILE_AFTER,
  FILE_BEFORE,
  PROMPT_AFTER,
  PROMPT_EDIT,
  PROMPT_LONG,
  PROMPT_MEDIUM,
  PROMPT_READ,
  WORKSPACE_FILE,
  type ScriptLog,
} from './script';
import { answerInputBox, editorTab, notification, runCommand, sendPrompt, waitFor, webviewFrame } from './workbench';

const API_KEY = 'sk-ant-e2e-0123456789';
/** Small window + low threshold: the long answer of step 5 crosses it (about 1.7k tokens before, 5.7k after; threshold 4.8k). */
const CONTEXT_WINDOW = 16_000;
const THRESHOLD = 0.3;
/** Bounded waits: generous for a loaded CI machine, short enough to fail fast on a real hang. */
const UI_TIMEOUT = 30_000;
const STEP_TIMEOUT = 180_000;

/** A real Claude Code session with one compaction by Claude Code (test/fixtures/real-sessions/). */
const REAL_SESSION = join(ROOT, 'test', 'fixtures', 'real-sessions', 'claude-code-cipher-box-a.jsonl');

const CHAT_MARKER = 'textarea.composer-input';
const INSPECTOR_MARKER = 'section.panel.strategies';
/** Typed into the summary draft (step 15): it must reach the model in the next request. */
const EDITED_SUMMARY = 'Edited in review: the user wants a test for the greeting before any refactor.';
const PROMPT_NEXT = 'Did my edited summary arrive?';
/** The line of the summarizer's draft (script.ts's SUMMARY_TEXT) that step 15 rewrites. */
const UNEDITED_LINE_START = '5. Pending work and next step:';
const UNEDITED_LINE = `${UNEDITED_LINE_START} none requested yet.`;
/** The message step 14 splits before. */
const PROMPT_CHOSEN = 'Split the history before this question.';

let base: string;
let workspace: string;
let userDataDir: string;
let loopback: LoopbackAnthropic | undefined;
/** The base URL a cloned repository's .vscode/settings.json sets: it must never receive a request. */
let hostile: LoopbackAnthropic | undefined;
let server: CodeServer | undefined;
let browser: Browser | undefined;
let page: Page;
const script: ScriptLog = { summaryRequests: 0 };
const timings: Array<[string, number]> = [];
/** Errors and warnings the workbench and the webviews logged in the browser. */
const suiteStart = Date.now();

const run = new E2eRun(
  'e2e',
  STEP_TIMEOUT,
  () => page,
  (step, ms) => timings.push([step, ms]),
);

const chat = (): Promise<FrameLocator> => webviewFrame(page, CHAT_MARKER, UI_TIMEOUT);
const inspector = (): Promise<FrameLocator> => webviewFrame(page, INSPECTOR_MARKER, UI_TIMEOUT);

function send(frame: FrameLocator, prompt: string): Promise<void> {
  return sendPrompt(frame, CHAT_MARKER, prompt, UI_TIMEOUT);
}

/** Waits until the agent is idle (the composer shows Send again, not Stop). */
async function idle(frame: FrameLocator, timeout = UI_TIMEOUT): Promise<void> {
  await frame.locator('.app:not(.is-busy)').waitFor({ timeout });
}

/**
 * Runs "Developer: Reload Window" and waits for the new workbench. The old document (workbench,
 * activity bar, webviews) stays until the navigation starts, so it is marked first and every wait
 * after this one sees only the reloaded window.
 */
async function reloadWindow(): Promise<void> {
  await page.evaluate(() => {
    (window as unknown as { splitpointBeforeReload?: boolean }).splitpointBeforeReload = true;
  });
  await runCommand(page, 'Developer: Reload Window');
  await waitFor(
    'the reloaded workbench',
    () =>
      page
        .evaluate(
          () =>
            !(window as unknown as { splitpointBeforeReload?: boolean }).splitpointBeforeReload &&
            document.querySelector('.monaco-workbench') !== null,
        )
        .catch(() => false), // the document is being replaced
    60_000,
  );
}

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

  run.step(1, 'sidebar', async () => {
    const entry = page.locator('.activitybar a[aria-label="Splitpoint"]').first();
    await entry.waitFor({ timeout: 60_000 });
    await entry.click();
    const frame = await chat();
    // No key yet: the view asks for one.
    await frame.locator('section.empty.api-key').waitFor({ timeout: UI_TIMEOUT });
    assert.equal(await frame.locator('.toolbar .title-text').innerText(), 'New chat');
  });

  run.step(2, 'api-key', async () => {
    await runCommand(page, 'Splitpoint: Set API Key');
    await answerInputBox(page, 'Splitpoint: Anthropic API key', API_KEY);
    // The base URL (the loopback, from user settings) is not Anthropic's: the key goes there only
    // after the user allows it, asked once. The dialog names the user's URL, not the workspace's.
    const dialog = page.locator('.monaco-dialog-box').filter({ hasText: `Send your Anthropic API key to ${loopback!.baseURL}` });
    await dialog.waitFor({ timeout: UI_TIMEOUT });
    assert.equal(loopback!.requests.length, 0, 'nothing is sent before the answer');
    await run.screenshot('2-base-url-consent');
    await dialog.getByRole('button', { name: 'Allow' }).click();
    await dialog.waitFor({ state: 'hidden', timeout: UI_TIMEOUT });
    await notification(page, 'API key saved').first().waitFor({ timeout: UI_TIMEOUT });
    const frame = await chat();
    await frame.locator('section.empty.welcome').waitFor({ timeout: UI_TIMEOUT });
    assert.equal(await frame.locator('section.empty.api-key').count(), 0);
  });

  run.step(3, 'streamed-answer-and-tool-card', async () => {
    const frame = await chat();
    await send(frame, PROMPT_READ);
    // The first prompt names the chat.
    await frame.locator('.toolbar .title-text', { hasText: PROMPT_READ }).waitFor({ timeout: UI_TIMEOUT });
    // The read_file card, done, with the file's content in its output.
    const card = frame.locator('article.card.tool').filter({ has: frame.locator('.tool-name', { hasText: 'read_file' }) });
    await card.waitFor({ timeout: UI_TIMEOUT });
    await card.locator('.tool-summary', { hasText: WORKSPACE_FILE }).waitFor({ timeout: UI_TIMEOUT });
    // The answer streams in slowly (the loopback waits between deltas): it is seen while streaming…
    const answer = frame.locator('article.item.assistant').filter({ hasText: 'greeting.ts exports' });
    await frame.locator('article.item.assistant.streaming').last().waitFor({ timeout: UI_TIMEOUT });
    // …and then complete.
    await answer.filter({ hasText: ANSWER_READ }).waitFor({ timeout: UI_TIMEOUT });
    await idle(frame);
    assert.equal(await frame.locator('article.item.assistant.streaming').count(), 0);
    await waitFor('the read_file card to be done', async () => (await card.getAttribute('class'))?.includes('status-done'), UI_TIMEOUT);
    await card.locator('.card-header').click();
    await card.locator('pre[aria-label="Output of read_file"]', { hasText: 'Hello from the workspace' }).waitFor({ timeout: UI_TIMEOUT });
    // The model got the tool result in the second request.
    const bodies = loopback!.messageRequests.map((r) => JSON.stringify(r.body.messages));
    assert.ok(
      bodies.some((b) => b.includes('tool_result') && b.includes('Hello from the workspace')),
      'the tool result reached the API',
    );
  });

  run.step(4, 'edit-approved', async () => {
    const frame = await chat();
    const file = join(workspace, WORKSPACE_FILE);
    await send(frame, PROMPT_EDIT);
    const approve = frame.getByRole('button', { name: 'Approve edit_file' });
    await approve.waitFor({ timeout: UI_TIMEOUT });
    const card = frame.locator('article.card.tool.status-awaiting-approval');
    await card.locator('.diff-body .dl.del', { hasText: 'Hello from the workspace' }).waitFor({ timeout: UI_TIMEOUT });
    await card.locator('.diff-body .dl.add', { hasText: 'Hello from Splitpoint' }).waitFor({ timeout: UI_TIMEOUT });
    assert.equal(readFileSync(file, 'utf8'), FILE_BEFORE, 'nothing is written before the approval');
    await run.screenshot('4-edit-awaiting-approval');
    await approve.click();
    await frame.locator('article.item.assistant').filter({ hasText: ANSWER_EDIT }).waitFor({ timeout: UI_TIMEOUT });
    await idle(frame);
    await waitFor('greeting.ts to change on disk', async () => readFileSync(file, 'utf8') === FILE_AFTER, UI_TIMEOUT);
    assert.equal(await frame.locator('article.card.tool.status-done').count(), 2);
  });

  run.step(5, 'auto-compaction', async () => {
    const frame = await chat();
    await send(frame, PROMPT_LONG);
    await frame.locator('article.item.assistant').filter({ hasText: 'That is the whole design.' }).waitFor({ timeout: UI_TIMEOUT });
    await idle(frame);
    assert.equal(await frame.locator('section.item.compaction').count(), 0, 'no compaction before the threshold is crossed');
    // The next request is over the threshold: the pipeline compacts before the model call.
    await send(frame, PROMPT_AFTER);
    const divider = frame.locator('section.item.compaction');
    await divider.first().waitFor({ timeout: 60_000 });
    await divider.first().locator('.compaction-text', { hasText: 'recursive-summarization · auto' }).waitFor({ timeout: UI_TIMEOUT });
    await frame.locator('article.item.assistant').filter({ hasText: ANSWER_AFTER }).waitFor({ timeout: UI_TIMEOUT });
    await idle(frame);
    assert.ok(script.summaryRequests >= 1, 'the summarizer called the API');
    // What the model saw after the compaction: the summary, not the long answer.
    const lastBody = JSON.stringify(loopback!.messageRequests.at(-1)!.body.messages);
    assert.ok(lastBody.includes('Hello from Splitpoint'), 'the summary reached the model');
    assert.ok(!lastBody.includes('That is the whole design.'), 'the archived long answer did not');
    // One more short turn so the compacted history has turns for the inspector to cut between.
    await send(frame, 'One more question.');
    await frame.locator('article.item.assistant').filter({ hasText: 'echo: One more question.' }).waitFor({ timeout: UI_TIMEOUT });
    await idle(frame);
  });

  run.step(6, 'inspector', async () => {
    await runCommand(page, 'Splitpoint: Open Inspector');
    const frame = await inspector();
    const timeline = frame.locator('.timeline[role="listbox"]');
    await timeline.waitFor({ timeout: UI_TIMEOUT });
    // After the auto-compaction the current split point and one past compaction are shown.
    await frame.locator('[data-marker="current-split"]').waitFor({ timeout: UI_TIMEOUT });
    await frame.locator('.history-item').first().waitFor({ timeout: UI_TIMEOUT });
    const rowsBefore = Number(await timeline.getAttribute('data-count'));
    assert.ok(rowsBefore >= 4, `the timeline lists the history (${rowsBefore} rows)`);
    // The current tail starts right after the summary: the first prompt the auto-compaction kept.
    const currentTail = frame.locator('.timeline .row', { has: frame.locator('[data-marker="current-tail"]') });
    await currentTail.filter({ hasText: PROMPT_AFTER }).waitFor({ timeout: UI_TIMEOUT });

    for (const strategy of ['sliding-window', 'turn-window']) {
      await frame.locator(`section.strategy[data-strategy="${strategy}"] button[data-action="preview"]`).click();
      const plan = frame.locator(`section.plan-summary[data-strategy="${strategy}"]`);
      await plan.waitFor({ timeout: UI_TIMEOUT });
      const archived = Number(await plan.locator('[data-stat="archived"]').innerText());
      assert.ok(archived > 0, `${strategy} archives something (${archived})`);
      await frame.locator('[data-marker="preview-split"]').waitFor({ timeout: UI_TIMEOUT });
      await frame.locator('[data-marker="preview-tail"]').waitFor({ timeout: UI_TIMEOUT });
      await waitFor(
        `${strategy}: archived rows marked in the timeline`,
        async () => (await frame.locator('.timeline .row.archived').count()) > 0,
        UI_TIMEOUT,
      );
      await run.screenshot(`6-inspector-preview-${strategy}`);
    }

    // Apply sliding-window (no summary needed), then undo it.
    const historyBefore = await frame.locator('.history-item').count();
    await frame.locator('section.strategy[data-strategy="sliding-window"] button[data-action="apply"]').click();
    await frame.locator('.notice', { hasText: 'Applied sliding-window' }).waitFor({ timeout: UI_TIMEOUT });
    await waitFor('the timeline to shrink', async () => Number(await timeline.getAttribute('data-count')) < rowsBefore, UI_TIMEOUT);
    await waitFor('a new past compaction', async () => (await frame.locator('.history-item').count()) === historyBefore + 1, UI_TIMEOUT);
    await frame.locator('.history-item .history-strategy', { hasText: 'sliding-window' }).first().waitFor({ timeout: UI_TIMEOUT });
    await run.screenshot('6-inspector-applied');

    const undo = frame.locator('button[data-action="undo"]');
    await waitFor('Undo to be enabled', async () => undo.isEnabled(), UI_TIMEOUT);
    await undo.click();
    await frame.locator('.notice', { hasText: 'Restored the history from the transcript.' }).waitFor({ timeout: UI_TIMEOUT });
    await waitFor('the timeline to be restored', async () => Number(await timeline.getAttribute('data-count')) === rowsBefore, UI_TIMEOUT);
    // The tail pointer is back on the auto-compaction's tail, not on the undone one's.
    await currentTail.filter({ hasText: PROMPT_AFTER }).waitFor({ timeout: UI_TIMEOUT });
    // The chat marks the inspector's compaction as undone (and shows no divider for the undo itself).
    const chatFrame = await chat();
    await chatFrame.locator('section.item.compaction.undone', { hasText: 'sliding-window' }).waitFor({ timeout: UI_TIMEOUT });
    await chatFrame.locator('.item.notice', { hasText: 'Undid the last compaction' }).waitFor({ timeout: UI_TIMEOUT });
    assert.equal(
      await chatFrame.locator('section.item.compaction').count(),
      2,
      'dividers: the auto-compaction and the undone sliding-window',
    );
  });

  run.step(7, 'transcript-tab', async () => {
    const frame = await chat();
    // The auto-compaction's divider (the first one) links to its transcript.
    await frame
      .locator('section.item.compaction')
      .first()
      .getByRole('button', { name: /^Open transcript / })
      .click();
    const tab = editorTab(page, /^transcript_\d+_.*\.jsonl$/);
    await tab.first().waitFor({ timeout: UI_TIMEOUT });
    await page
      .locator('.editor-instance .monaco-editor .view-lines', { hasText: '"type":"splitpoint.transcript"' })
      .first()
      .waitFor({ timeout: UI_TIMEOUT });
    // And that is a transcript of this session, in the workspace's .transcripts folder.
    const files = readdirSync(join(workspace, '.transcripts')).filter((f) => /^transcript_.*\.jsonl$/.test(f));
    assert.ok(files.length >= 2, `transcripts written (${files.join(', ')})`);
    const label = await tab.first().locator('.label-name').innerText();
    assert.ok(files.includes(label.trim()), `the tab (${label}) is one of the transcripts`);
  });

  run.step(8, 'reload-window', async () => {
    const before = await chat();
    const prompts = await before.locator('article.item.user').allInnerTexts();
    const dividers = await before.locator('section.item.compaction').count();
    assert.ok(prompts.length >= 2, 'there is a conversation to lose');
    // A real window reload: the extension host restarts and everything is read back from disk.
    await reloadWindow();
    // Show the chat with the view's focus command, which only ever opens it. Not a click on the
    // activity-bar entry: that toggles, and VS Code restores the Splitpoint sidebar on its own a
    // moment after the entry appears, so a click that landed after the restore closed the view.
    await runCommand(page, 'Splitpoint: Focus on Chat View');
    const after = await chat();
    await after.locator('.toolbar .title-text', { hasText: PROMPT_READ }).waitFor({ timeout: UI_TIMEOUT });
    await waitFor('the chat to be restored', async () => (await after.locator('article.item.user').count()) === prompts.length, UI_TIMEOUT);
    assert.deepEqual(await after.locator('article.item.user').allInnerTexts(), prompts);
    assert.equal(await after.locator('section.item.compaction').count(), dividers);
  });

  run.step(9, 'inspector-restored-after-reload', async () => {
    // The inspector tab survived the reload of step 8 (a WebviewPanelSerializer revives it when it is
    // shown) and shows the current session again, with its split point and past compactions.
    const tab = editorTab(page, /^Splitpoint Inspector$/);
    await tab.first().waitFor({ timeout: UI_TIMEOUT });
    await tab.first().click();
    const frame = await inspector();
    const timeline = frame.locator('.timeline[role="listbox"]');
    await timeline.waitFor({ timeout: UI_TIMEOUT });
    await frame.locator('[data-marker="current-split"]').waitFor({ timeout: UI_TIMEOUT });
    await frame.locator('.history-item').first().waitFor({ timeout: UI_TIMEOUT });
    assert.ok(Number(await timeline.getAttribute('data-count')) >= 4, 'the restored timeline lists the history');
  });

  run.step(10, 'inspect-recorded-claude-code-session', async () => {
    // A real Claude Code session (test/fixtures/real-sessions/), opened through the command and VS Code's own file
    // picker (code-server's simple dialog: a path box), is shown as recorded: Claude Code's compaction
    // with the context it replaced archived above, the current context (its summary and what followed).
    const file = REAL_SESSION;
    const recorded = importSession(readFileSync(file, 'utf8'), file);
    assert.equal(recorded.compactions.length, 1, 'the fixture holds one compaction by Claude Code');
    await runCommand(page, 'Splitpoint: Inspect Session File…');
    const picker = page.locator('.quick-input-widget .quick-input-box input');
    await picker.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    // The simple dialog fills in its start folder a moment after it shows, overwriting a path typed
    // before that (seen in runs): type the file until it stays there for a poll interval.
    await waitFor(
      'the file path to stay in the picker',
      async () => {
        if ((await picker.inputValue()) === file) return true;
        await picker.fill(file);
        return false;
      },
      UI_TIMEOUT,
      500,
    );
    await picker.press('Enter');
    const frame = await inspector();
    await frame.locator('[data-field="readonly-source"]', { hasText: 'claude-code-cipher-box-a.jsonl' }).waitFor({ timeout: UI_TIMEOUT });
    const marker = frame.locator('[data-marker="recorded-compaction"]');
    await marker.waitFor({ timeout: UI_TIMEOUT });
    const text = await marker.innerText();
    assert.match(text, /Compaction 1 · Claude Code · auto/);
    assert.ok(text.includes(recorded.compactions[0].preTokens!.toLocaleString('en-US')), `recorded pre-tokens in "${text}"`);
    const timeline = frame.locator('.timeline[role="listbox"]');
    await waitFor(
      'the current context',
      async () => Number(await timeline.getAttribute('data-count')) === recorded.messages.length,
      UI_TIMEOUT,
    );
    assert.equal(await frame.locator('[data-archive-toggle="1"]').getAttribute('aria-expanded'), 'false', 'archived history collapsed');
    await frame.locator('[data-stat="recorded"]').waitFor({ timeout: UI_TIMEOUT });
    // Against the recorded model's window (200K for Claude), not this workspace's 16K setting.
    assert.match(await frame.locator('[data-stat="used"]').innerText(), /^o200k estimate: [\d,]+ of 200,000 tokens/);
    assert.equal(await frame.locator('[data-field="window-source"]').innerText(), "the recorded model's window");
    // Time travel to just before Claude Code compacted: the rows are the context it replaced.
    await frame.locator('#sp-context').selectOption('1');
    await frame
      .locator('[data-field="time-travel"]', { hasText: 'before compaction 1 (Claude Code, auto' })
      .waitFor({ timeout: UI_TIMEOUT });
    const before = recorded.compactions[0].before.length;
    await waitFor(
      'the context before the compaction',
      async () => Number(await timeline.getAttribute('data-count')) === before,
      UI_TIMEOUT,
    );
    await run.screenshot('10-time-travel');
    await frame.locator('[data-action="time-travel-back"]').click();
    await waitFor(
      'the current context again',
      async () => Number(await timeline.getAttribute('data-count')) === recorded.messages.length,
      UI_TIMEOUT,
    );
    await frame.locator('[data-archive-toggle="1"]').click();
    await frame.locator('.history-row').first().waitFor({ timeout: UI_TIMEOUT });
  });

  run.step(11, 'workspace-base-url-ignored', async () => {
    // The whole conversation (prompts, tool calls, summaries, count_tokens, a reload) went to the
    // user's base URL; the one in the workspace's .vscode/settings.json got nothing, so no key.
    assert.ok(loopback!.messageRequests.length >= 5, 'the user base URL served the conversation');
    assert.equal(hostile!.requests.length, 0, 'no request reached the workspace base URL');
    // Transcripts went where the user's settings put them (the default), not to the workspace's folder.
    assert.equal(existsSync(join(base, 'elsewhere')), false, 'no transcript in the workspace-chosen folder');
    // Asked once, before the first request only (remembered across the reload).
    assert.equal(await page.locator('.monaco-dialog-box').count(), 0);
  });

  run.step(12, 'pin-in-chat', async () => {
    // Pin a prompt of the current history from the chat (the pin button shows on hover): the chat marks
    // it, and the inspector (back on the current session) marks its row.
    const frame = await chat();
    const prompt = frame.locator('article.item.user').filter({ hasText: PROMPT_AFTER });
    await prompt.hover();
    await prompt.getByRole('button', { name: /^Pin your message/ }).click();
    await frame.locator('article.item.user.is-pinned').filter({ hasText: PROMPT_AFTER }).waitFor({ timeout: UI_TIMEOUT });
    await prompt.getByRole('button', { name: /^Unpin your message/ }).waitFor({ timeout: UI_TIMEOUT });
    await editorTab(page, /^Splitpoint Inspector$/)
      .first()
      .click();
    const inspectorFrame = await inspector();
    await inspectorFrame.locator('[data-action="show-current"]').click();
    const pinnedRow = inspectorFrame.locator('.timeline .row.pinned').filter({ hasText: PROMPT_AFTER });
    await pinnedRow.waitFor({ timeout: UI_TIMEOUT });
    await pinnedRow.locator('[data-marker="pinned"]').waitFor({ timeout: UI_TIMEOUT });
    assert.equal(await inspectorFrame.locator('.timeline .row.pinned').count(), 1, 'one pinned row');
  });

  run.step(13, 'preview-keeps-pin', async () => {
    // sliding-window (maxEvents 2) would archive that prompt; pinned, the preview keeps it and counts it.
    const frame = await inspector();
    await frame.locator('section.strategy[data-strategy="sliding-window"] button[data-action="preview"]').click();
    const plan = frame.locator('section.plan-summary[data-strategy="sliding-window"]');
    await plan.locator('[data-stat="pinned"]').waitFor({ timeout: UI_TIMEOUT });
    assert.match(await plan.locator('[data-stat="pinned"]').innerText(), /^1 · [\d,]+ tok$/);
    assert.ok(Number(await plan.locator('[data-stat="archived"]').innerText()) > 0, 'the preview archives something');
    const pinnedRow = frame.locator('.timeline .row.pinned').filter({ hasText: PROMPT_AFTER });
    await waitFor('the pinned row kept in the preview', async () => (await pinnedRow.getAttribute('class'))?.includes(' kept'), UI_TIMEOUT);
    assert.ok(!(await pinnedRow.getAttribute('class'))?.includes('archived'), 'the pinned row is not archived');
    await frame.locator('button[data-action="clear-preview"]').click();
  });

  run.step(14, 'split-here-preview', async () => {
    // "Compact everything before this" on a chosen message, from the keyboard (Shift+S on the focused
    // timeline row; the row's detail offers the same as "Compact before this"): the split-at preview
    // splits right before it (a prompt: already a safe boundary) and still keeps the pin.
    // First a medium answer (the history stays under the auto-compact threshold), so that a summary
    // of everything before the chosen prompt saves tokens. These are the first model requests since
    // the reload of step 8.
    const chatFrame = await chat();
    await send(chatFrame, PROMPT_MEDIUM);
    await chatFrame.locator('article.item.assistant').filter({ hasText: 'That is the whole test plan.' }).waitFor({ timeout: UI_TIMEOUT });
    await idle(chatFrame);
    await send(chatFrame, PROMPT_CHOSEN);
    await chatFrame
      .locator('article.item.assistant')
      .filter({ hasText: `echo: ${PROMPT_CHOSEN}` })
      .waitFor({ timeout: UI_TIMEOUT });
    await idle(chatFrame);
    assert.equal(
      await chatFrame.locator('section.item.compaction').count(),
      2,
      'no auto-compaction: still the auto one and the undone sliding-window',
    );
    await editorTab(page, /^Splitpoint Inspector$/)
      .first()
      .click();
    const frame = await inspector();
    const chosen = frame.locator('.timeline .row').filter({ hasText: PROMPT_CHOSEN }).first();
    await chosen.waitFor({ timeout: UI_TIMEOUT });
    const index = Number(await chosen.getAttribute('data-index'));
    await chosen.click();
    const detail = frame.locator('section.detail');
    await detail.locator('button[data-action="split-here"]', { hasText: 'Compact before this' }).waitFor({ timeout: UI_TIMEOUT });
    assert.equal(
      await detail.locator('button[data-action="split-summary"]').getAttribute('aria-pressed'),
      'true',
      'with an LLM summary by default',
    );
    await page.keyboard.press('Shift+S');
    const plan = frame.locator('section.plan-summary[data-strategy="split-at"]');
    await plan.locator('[data-stat="split"]').waitFor({ timeout: UI_TIMEOUT });
    assert.equal(await plan.locator('[data-stat="split"]').innerText(), `#${index}`);
    assert.match(await plan.locator('[data-stat="pinned"]').innerText(), /^1 · /);
    assert.ok(Number(await plan.locator('[data-stat="archived"]').innerText()) > 0, 'the split archives the messages before it');
    await frame.locator('[data-marker="preview-split"]').waitFor({ timeout: UI_TIMEOUT });
    assert.equal(await frame.locator('[data-marker="preview-split"]').getAttribute('data-split-index'), String(index));
    // Everything before the chosen prompt is archived in the preview, except the pinned prompt.
    await waitFor(
      'the rows before the split marked archived',
      async () => (await frame.locator('.timeline .row.archived').count()) > 0,
      UI_TIMEOUT,
    );
    assert.ok(!(await chosen.getAttribute('class'))?.includes('archived'), 'the chosen prompt is kept');
  });

  run.step(15, 'edit-draft-summary', async () => {
    // Apply the split with an LLM summary: the draft opens as a markdown editor tab; the text edited
    // there (one line of the summary rewritten) is what is committed and what the model gets next.
    const frame = await inspector();
    const summariesBefore = script.summaryRequests;
    await frame.locator('section.strategy[data-strategy="split-at"] button[data-action="apply"]').click();
    await frame.locator('section.strategy[data-strategy="split-at"] button[data-action="confirm-apply"]').click();
    const tab = editorTab(page, /^split-at summary .*\.md$/);
    await tab.first().waitFor({ timeout: UI_TIMEOUT });
    assert.ok(script.summaryRequests > summariesBefore, 'the summarizer wrote the draft');
    const editor = page.locator('.editor-instance .monaco-editor', { hasText: 'Artifact ledger' }).first();
    const line = editor.locator('.view-line', { hasText: UNEDITED_LINE_START }).first();
    await line.waitFor({ timeout: UI_TIMEOUT });
    // Triple click selects the whole line (all of its wrapped parts); typing replaces it.
    await line.click({ clickCount: 3 });
    await page.keyboard.type(`${UNEDITED_LINE_START} ${EDITED_SUMMARY}`);
    await page.keyboard.press('Enter');
    await editor.locator('.view-lines', { hasText: 'the greeting before any refactor.' }).waitFor({ timeout: UI_TIMEOUT });
    await run.screenshot('15-draft-edited');
    const applyAction = page.locator('.editor-actions .action-label[aria-label*="Apply Summary"]').first();
    await applyAction.waitFor({ timeout: UI_TIMEOUT });
    await applyAction.click();
    await tab.first().waitFor({ state: 'detached', timeout: UI_TIMEOUT });
    // The inspector: the tail starts at the chosen prompt (before it: the summary and the pin), and the
    // compaction record says the summary was edited. The draft's tab covered the inspector's, so its
    // webview was recreated: find it again.
    const shown = await inspector();
    await shown
      .locator('.timeline .row', { has: shown.locator('[data-marker="current-tail"]') })
      .filter({ hasText: PROMPT_CHOSEN })
      .waitFor({ timeout: UI_TIMEOUT });
    const record = shown.locator('.history-item', { has: shown.locator('.history-strategy', { hasText: 'split-at' }) }).first();
    await record.locator('.history-draft summary', { hasText: 'edited before it was applied' }).click();
    const final = record.locator('[data-part="final"]', { hasText: EDITED_SUMMARY });
    await final.waitFor({ timeout: UI_TIMEOUT });
    await final.scrollIntoViewIfNeeded();
    await run.screenshot('15-split-applied');
    const chatFrame = await chat();
    await chatFrame.locator('section.item.compaction', { hasText: 'split-at' }).first().waitFor({ timeout: UI_TIMEOUT });
    const requestsBefore = loopback!.messageRequests.length;
    await send(chatFrame, PROMPT_NEXT);
    await chatFrame
      .locator('article.item.assistant')
      .filter({ hasText: `echo: ${PROMPT_NEXT}` })
      .waitFor({ timeout: UI_TIMEOUT });
    await idle(chatFrame);
    // The loopback server's next Messages request: the edited summary, not the draft's line it replaced.
    assert.equal(loopback!.messageRequests.length, requestsBefore + 1, 'one request for the new prompt');
    const next = JSON.stringify(loopback!.messageRequests.at(-1)!.body.messages);
    assert.ok(next.includes(PROMPT_NEXT), 'the request is the new prompt');
    assert.ok(next.includes(EDITED_SUMMARY), 'the edited summary reached the model');
    assert.ok(!next.includes(UNEDITED_LINE), 'the unedited draft line did not');
    assert.ok(next.includes(PROMPT_AFTER), 'the pinned prompt reached the model');
    assert.ok(!next.includes('That is the whole test plan.'), 'the answer before the split did not');
  });
});
