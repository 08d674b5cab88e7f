// The main suite's steps about what lives on disk: a compaction's transcript opened in an editor tab,
// and a window reload after which the chat and the inspector come back from what was saved.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { PROMPT_READ } from '../script';
import { editorTab, runCommand, waitFor } from '../workbench';
import { chat, inspector, UI_TIMEOUT, type VscodeSession } from './session';

/**
 * Runs "Developer: Reload Window" and waits for the new workbench. The old document (workbench,
 * activity bar, webviews) stays until the navigation starts, so it is marked first and every wait
 * after this one sees only the reloaded window.
 */
async function reloadWindow(page: Page): Promise<void> {
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

/** Step 7 (transcript-tab): the auto-compaction's divider opens its transcript (in the workspace's .transcripts) in an editor tab. */
export async function transcriptTab(s: VscodeSession): Promise<void> {
  const frame = await chat(s.page);
  // The auto-compaction's divider (the first one) links to its transcript.
  await frame
    .locator('section.item.compaction')
    .first()
    .getByRole('button', { name: /^Open transcript / })
    .click();
  const tab = editorTab(s.page, /^transcript_\d+_.*\.jsonl$/);
  await tab.first().waitFor({ timeout: UI_TIMEOUT });
  await s.page
    .locator('.editor-instance .monaco-editor .view-lines', { hasText: '"type":"splitpoint.transcript"' })
    .first()
    .waitFor({ timeout: UI_TIMEOUT });
  // And that is a transcript of this session, in the workspace's .transcripts folder.
  const files = readdirSync(join(s.workspace, '.transcripts')).filter((f) => /^transcript_.*\.jsonl$/.test(f));
  assert.ok(files.length >= 2, `transcripts written (${files.join(', ')})`);
  const label = await tab.first().locator('.label-name').innerText();
  assert.ok(files.includes(label.trim()), `the tab (${label}) is one of the transcripts`);
}

/** Step 8 (reload-window): a real window reload restarts the extension host; the chat is read back from disk as it was. */
export async function reloadWindowRestoresChat(s: VscodeSession): Promise<void> {
  const before = await chat(s.page);
  const prompts = await before.locator('article.item.user').allInnerTexts();
  const dividers = await before.locator('section.item.compaction').count();
  assert.ok(prompts.length >= 2, 'there is a conversation to lose');
  // A real window reload: the extension host restarts and everything is read back from disk.
  await reloadWindow(s.page);
  // Show the chat with the view's focus command, which only ever opens it. Not a click on the
  // activity-bar entry: that toggles, and VS Code restores the Splitpoint sidebar on its own a
  // moment after the entry appears, so a click that landed after the restore closed the view.
  await runCommand(s.page, 'Splitpoint: Focus on Chat View');
  const after = await chat(s.page);
  await after.locator('.toolbar .title-text', { hasText: PROMPT_READ }).waitFor({ timeout: UI_TIMEOUT });
  await waitFor('the chat to be restored', async () => (await after.locator('article.item.user').count()) === prompts.length, UI_TIMEOUT);
  assert.deepEqual(await after.locator('article.item.user').allInnerTexts(), prompts);
  assert.equal(await after.locator('section.item.compaction').count(), dividers);
}

/** Step 9 (inspector-restored-after-reload): the inspector tab survives the reload and shows the current session again. */
export async function inspectorRestoredAfterReload(s: VscodeSession): Promise<void> {
  // The inspector tab survived the reload of step 8 (a WebviewPanelSerializer revives it when it is
  // shown) and shows the current session again, with its split point and past compactions.
  const tab = editorTab(s.page, /^Splitpoint Inspector$/);
  await tab.first().waitFor({ timeout: UI_TIMEOUT });
  await tab.first().click();
  const frame = await inspector(s.page);
  const timeline = frame.locator('.timeline[role="listbox"]');
  await timeline.waitFor({ timeout: UI_TIMEOUT });
  await frame.locator('[data-marker="current-split"]').waitFor({ timeout: UI_TIMEOUT });
  await frame.locator('.history-item').first().waitFor({ timeout: UI_TIMEOUT });
  assert.ok(Number(await timeline.getAttribute('data-count')) >= 4, 'the restored timeline lists the history');
}
