// The review suite's checkpoint steps: the files restored to before a prompt from the chat (a preview
// of the files, one file's diff opened, then the restore), and the inspector's row action on a prompt
// offering the same restore.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { FILE_AFTER, FILE_BEFORE, PROMPT_EDIT, WORKSPACE_FILE } from '../script';
import { editorTab, notification, runCommand, waitFor } from '../workbench';
import { chat, inspector, send, UI_TIMEOUT, workspaceFileText, type ReviewSession } from './session';

/** Step 3 (restore-files-to-before-the-prompt): the prompt's restore previews the file and its diff, changes nothing, then restores it. */
export async function filesRestoredToBeforePrompt(s: ReviewSession): Promise<void> {
  const frame = await chat(s.page);
  const prompt = frame.locator('article.item.user').filter({ hasText: PROMPT_EDIT });
  // The checkpoint was taken before the approved edit was written.
  await prompt.getByRole('button', { name: 'Restore files to before this prompt' }).click();
  const panel = prompt.getByRole('group', { name: 'Restore files to before this prompt' });
  await panel.getByRole('button', { name: `Diff of ${WORKSPACE_FILE}` }).waitFor({ timeout: UI_TIMEOUT });
  assert.match((await panel.textContent()) ?? '', /changed since: will be restored/);
  // The preview's diff: the file now ↔ before the prompt.
  await panel.getByRole('button', { name: `Diff of ${WORKSPACE_FILE}` }).click();
  await editorTab(s.page, /greeting\.ts \(now ↔ before the prompt\)/).waitFor({ timeout: UI_TIMEOUT });
  const diffEditor = s.page.locator('.monaco-diff-editor');
  await diffEditor.locator('.editor.modified .view-lines', { hasText: 'Hello from the workspace' }).waitFor({ timeout: UI_TIMEOUT });
  await s.run.screenshot('3-restore-preview');
  assert.equal(workspaceFileText(s), FILE_AFTER, 'a preview changes nothing');

  await panel.getByRole('button', { name: 'Restore 1 file' }).click();
  await waitFor('greeting.ts to be back', async () => workspaceFileText(s) === FILE_BEFORE, UI_TIMEOUT);
  await notification(s.page, 'restored 1 file to before the prompt').first().waitFor({ timeout: UI_TIMEOUT });
  await frame
    .locator('.item.notice', { hasText: `Restored 1 file to before the prompt: ${WORKSPACE_FILE}` })
    .waitFor({ timeout: UI_TIMEOUT });
  await panel.waitFor({ state: 'detached', timeout: UI_TIMEOUT });
  // The checkpoint lives in the extension's storage, never in the workspace.
  assert.deepEqual(readdirSync(s.workspace).sort(), ['README.md', WORKSPACE_FILE]);
}

/** Step 4 (inspector-row-action-restores-files): after a second edit, the inspector's row action on that prompt restores its files from the chat. */
export async function inspectorRowActionRestoresFiles(s: ReviewSession): Promise<void> {
  // Edit again (the same prompt, answered with the same edit), approved on the card this time.
  const frame = await chat(s.page);
  await send(frame, PROMPT_EDIT);
  await frame.getByRole('button', { name: 'Approve edit_file' }).click();
  await waitFor('greeting.ts to change again', async () => workspaceFileText(s) === FILE_AFTER, UI_TIMEOUT);
  await frame.locator('.app:not(.is-busy)').waitFor({ timeout: UI_TIMEOUT });

  await runCommand(s.page, 'Splitpoint: Open Inspector');
  const insp = await inspector(s.page);
  // The newest prompt's row: open its detail and use the row action.
  const row = insp.locator('.timeline .row').filter({ hasText: 'Change the greeting' }).last();
  await row.waitFor({ timeout: UI_TIMEOUT });
  await row.click();
  await insp.locator('section.detail button[data-action="restore-files"]', { hasText: 'Restore files to before this' }).click();
  // The chat shows the preview for that prompt (the second one), then restores.
  const chatFrame = await chat(s.page);
  const prompt = chatFrame.locator('article.item.user').filter({ hasText: PROMPT_EDIT }).last();
  const panel = prompt.getByRole('group', { name: 'Restore files to before this prompt' });
  await panel.getByRole('button', { name: 'Restore 1 file' }).click();
  await waitFor('greeting.ts to be back again', async () => workspaceFileText(s) === FILE_BEFORE, UI_TIMEOUT);
}
