// The review suite's edit review: an edit_file call opened in VS Code's native diff editor from its
// card, and approved from the editor title (the same approval as the card's).
import assert from 'node:assert/strict';
import { ANSWER_EDIT, FILE_AFTER, FILE_BEFORE, PROMPT_EDIT, WORKSPACE_FILE } from '../script';
import { editorTab, waitFor } from '../workbench';
import { chat, send, UI_TIMEOUT, workspaceFileText, type ReviewSession } from './session';

/** Step 2 (edit-approved-from-the-diff-editor): the card opens the proposal in the diff editor; approved from its title, the file changes. */
export async function editApprovedFromDiffEditor(s: ReviewSession): Promise<void> {
  const frame = await chat(s.page);
  await send(frame, PROMPT_EDIT);
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
  const tab = editorTab(s.page, /greeting\.ts ↔ proposed by edit_file/);
  await tab.waitFor({ timeout: UI_TIMEOUT });
  const diffEditor = s.page.locator('.monaco-diff-editor');
  await diffEditor.waitFor({ timeout: UI_TIMEOUT });
  await diffEditor.locator('.editor.original .view-lines', { hasText: 'Hello from the workspace' }).waitFor({ timeout: UI_TIMEOUT });
  await diffEditor.locator('.editor.modified .view-lines', { hasText: 'Hello from Splitpoint' }).waitFor({ timeout: UI_TIMEOUT });
  assert.equal(workspaceFileText(s), FILE_BEFORE, 'nothing is written before the approval');
  await s.run.screenshot('2-diff-editor');

  // Approve from the editor title: the same approval as the card's; the diff tab closes.
  await s.page.locator('.editor-actions .action-label[aria-label*="Approve Edit"]').first().click();
  await waitFor('greeting.ts to change on disk', async () => workspaceFileText(s) === FILE_AFTER, UI_TIMEOUT);
  await frame.locator('article.item.assistant').filter({ hasText: ANSWER_EDIT }).waitFor({ timeout: UI_TIMEOUT });
  await tab.waitFor({ state: 'detached', timeout: UI_TIMEOUT });
  await frame.locator('.app:not(.is-busy)').waitFor({ timeout: UI_TIMEOUT });
  assert.equal(await frame.locator('article.card.tool.status-done').count(), 1, 'the card shows the approved edit done');
  assert.equal(await frame.locator('.pending-edits').count(), 0, 'nothing waits any more');
}
