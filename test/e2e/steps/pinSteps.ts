// The main suite's pin steps: a prompt pinned from the chat is marked in the inspector, and a preview
// that would archive it keeps it instead.
import assert from 'node:assert/strict';
import { PROMPT_AFTER } from '../script';
import { editorTab, waitFor } from '../workbench';
import { chat, inspector, UI_TIMEOUT, type VscodeSession } from './session';

/** Step 12 (pin-in-chat): a prompt pinned from the chat is marked there and in the inspector. */
export async function pinInChat(s: VscodeSession): Promise<void> {
  // Pin a prompt of the current history from the chat (the pin button shows on hover): the chat marks
  // it, and the inspector (back on the current session) marks its row.
  const frame = await chat(s.page);
  const prompt = frame.locator('article.item.user').filter({ hasText: PROMPT_AFTER });
  await prompt.hover();
  await prompt.getByRole('button', { name: /^Pin your message/ }).click();
  await frame.locator('article.item.user.is-pinned').filter({ hasText: PROMPT_AFTER }).waitFor({ timeout: UI_TIMEOUT });
  await prompt.getByRole('button', { name: /^Unpin your message/ }).waitFor({ timeout: UI_TIMEOUT });
  await editorTab(s.page, /^Splitpoint Inspector$/)
    .first()
    .click();
  const inspectorFrame = await inspector(s.page);
  await inspectorFrame.locator('[data-action="show-current"]').click();
  const pinnedRow = inspectorFrame.locator('.timeline .row.pinned').filter({ hasText: PROMPT_AFTER });
  await pinnedRow.waitFor({ timeout: UI_TIMEOUT });
  await pinnedRow.locator('[data-marker="pinned"]').waitFor({ timeout: UI_TIMEOUT });
  assert.equal(await inspectorFrame.locator('.timeline .row.pinned').count(), 1, 'one pinned row');
}

/** Step 13 (preview-keeps-pin): a sliding-window preview that would archive the pinned prompt keeps it and counts it. */
export async function previewKeepsPin(s: VscodeSession): Promise<void> {
  // sliding-window (maxEvents 2) would archive that prompt; pinned, the preview keeps it and counts it.
  const frame = await inspector(s.page);
  await frame.locator('section.strategy[data-strategy="sliding-window"] button[data-action="preview"]').click();
  const plan = frame.locator('section.plan-summary[data-strategy="sliding-window"]');
  await plan.locator('[data-stat="pinned"]').waitFor({ timeout: UI_TIMEOUT });
  assert.match(await plan.locator('[data-stat="pinned"]').innerText(), /^1 · [\d,]+ tok$/);
  assert.ok(Number(await plan.locator('[data-stat="archived"]').innerText()) > 0, 'the preview archives something');
  const pinnedRow = frame.locator('.timeline .row.pinned').filter({ hasText: PROMPT_AFTER });
  await waitFor('the pinned row kept in the preview', async () => (await pinnedRow.getAttribute('class'))?.includes(' kept'), UI_TIMEOUT);
  assert.ok(!(await pinnedRow.getAttribute('class'))?.includes('archived'), 'the pinned row is not archived');
  await frame.locator('button[data-action="clear-preview"]').click();
}
