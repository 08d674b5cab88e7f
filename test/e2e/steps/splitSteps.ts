// The main suite's split steps: "Compact before this" on a chosen message previews a split there
// (keeping the pin), and applying it with an LLM summary opens the draft in an editor tab, where an
// edit made before applying is what the model gets in the next request.
import assert from 'node:assert/strict';
import { PROMPT_AFTER, PROMPT_MEDIUM } from '../script';
import { editorTab, waitFor } from '../workbench';
import { chat, idle, inspector, send, UI_TIMEOUT, type VscodeSession } from './session';

/** The message step 14 splits before. */
const PROMPT_CHOSEN = 'Split the history before this question.';
/** Typed into the summary draft (step 15): it must reach the model in the next request. */
const EDITED_SUMMARY = 'Edited in review: the user wants a test for the greeting before any refactor.';
const PROMPT_NEXT = 'Did my edited summary arrive?';
/** The line of the summarizer's draft (script.ts's SUMMARY_TEXT) that step 15 rewrites. */
const UNEDITED_LINE_START = '5. Pending work and next step:';
const UNEDITED_LINE = `${UNEDITED_LINE_START} none requested yet.`;

/** Step 14 (split-here-preview): Shift+S on a chosen timeline row previews a split right before it, keeping the pin. */
export async function splitHerePreview(s: VscodeSession): Promise<void> {
  // "Compact everything before this" on a chosen message, from the keyboard (Shift+S on the focused
  // timeline row; the row's detail offers the same as "Compact before this"): the split-at preview
  // splits right before it (a prompt: already a safe boundary) and still keeps the pin.
  // First a medium answer (the history stays under the auto-compact threshold), so that a summary
  // of everything before the chosen prompt saves tokens. These are the first model requests since
  // the reload of step 8.
  const chatFrame = await chat(s.page);
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
  await editorTab(s.page, /^Splitpoint Inspector$/)
    .first()
    .click();
  const frame = await inspector(s.page);
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
  await s.page.keyboard.press('Shift+S');
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
}

/** Step 15 (edit-draft-summary): the split applied with a summary draft edited in its editor tab; the edited text is what the model gets next. */
export async function editDraftSummary(s: VscodeSession): Promise<void> {
  // Apply the split with an LLM summary: the draft opens as a markdown editor tab; the text edited
  // there (one line of the summary rewritten) is what is committed and what the model gets next.
  const frame = await inspector(s.page);
  const summariesBefore = s.script.summaryRequests;
  await frame.locator('section.strategy[data-strategy="split-at"] button[data-action="apply"]').click();
  await frame.locator('section.strategy[data-strategy="split-at"] button[data-action="confirm-apply"]').click();
  const tab = editorTab(s.page, /^split-at summary .*\.md$/);
  await tab.first().waitFor({ timeout: UI_TIMEOUT });
  assert.ok(s.script.summaryRequests > summariesBefore, 'the summarizer wrote the draft');
  const editor = s.page.locator('.editor-instance .monaco-editor', { hasText: 'Artifact ledger' }).first();
  const line = editor.locator('.view-line', { hasText: UNEDITED_LINE_START }).first();
  await line.waitFor({ timeout: UI_TIMEOUT });
  // Triple click selects the whole line (all of its wrapped parts); typing replaces it.
  await line.click({ clickCount: 3 });
  await s.page.keyboard.type(`${UNEDITED_LINE_START} ${EDITED_SUMMARY}`);
  await s.page.keyboard.press('Enter');
  await editor.locator('.view-lines', { hasText: 'the greeting before any refactor.' }).waitFor({ timeout: UI_TIMEOUT });
  await s.run.screenshot('15-draft-edited');
  const applyAction = s.page.locator('.editor-actions .action-label[aria-label*="Apply Summary"]').first();
  await applyAction.waitFor({ timeout: UI_TIMEOUT });
  await applyAction.click();
  await tab.first().waitFor({ state: 'detached', timeout: UI_TIMEOUT });
  // The inspector: the tail starts at the chosen prompt (before it: the summary and the pin), and the
  // compaction record says the summary was edited. The draft's tab covered the inspector's, so its
  // webview was recreated: find it again.
  const shown = await inspector(s.page);
  await shown
    .locator('.timeline .row', { has: shown.locator('[data-marker="current-tail"]') })
    .filter({ hasText: PROMPT_CHOSEN })
    .waitFor({ timeout: UI_TIMEOUT });
  const record = shown.locator('.history-item', { has: shown.locator('.history-strategy', { hasText: 'split-at' }) }).first();
  await record.locator('.history-draft summary', { hasText: 'edited before it was applied' }).click();
  const final = record.locator('[data-part="final"]', { hasText: EDITED_SUMMARY });
  await final.waitFor({ timeout: UI_TIMEOUT });
  await final.scrollIntoViewIfNeeded();
  await s.run.screenshot('15-split-applied');
  const chatFrame = await chat(s.page);
  await chatFrame.locator('section.item.compaction', { hasText: 'split-at' }).first().waitFor({ timeout: UI_TIMEOUT });
  const requestsBefore = s.loopback.messageRequests.length;
  await send(chatFrame, PROMPT_NEXT);
  await chatFrame
    .locator('article.item.assistant')
    .filter({ hasText: `echo: ${PROMPT_NEXT}` })
    .waitFor({ timeout: UI_TIMEOUT });
  await idle(chatFrame);
  // The loopback server's next Messages request: the edited summary, not the draft's line it replaced.
  assert.equal(s.loopback.messageRequests.length, requestsBefore + 1, 'one request for the new prompt');
  const next = JSON.stringify(s.loopback.messageRequests.at(-1)!.body.messages);
  assert.ok(next.includes(PROMPT_NEXT), 'the request is the new prompt');
  assert.ok(next.includes(EDITED_SUMMARY), 'the edited summary reached the model');
  assert.ok(!next.includes(UNEDITED_LINE), 'the unedited draft line did not');
  assert.ok(next.includes(PROMPT_AFTER), 'the pinned prompt reached the model');
  assert.ok(!next.includes('That is the whole test plan.'), 'the answer before the split did not');
}
