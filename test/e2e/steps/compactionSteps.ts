// The main suite's compaction steps: auto-compaction when a request crosses the threshold, then the
// inspector previewing two strategies, applying one and undoing it.
import assert from 'node:assert/strict';
import { ANSWER_AFTER, PROMPT_AFTER, PROMPT_LONG } from '../script';
import { runCommand, waitFor } from '../workbench';
import { chat, idle, inspector, send, UI_TIMEOUT, type VscodeSession } from './session';

/** Step 5 (auto-compaction): a long answer crosses the threshold; the next request is compacted first and the model sees the summary. */
export async function autoCompaction(s: VscodeSession): Promise<void> {
  const frame = await chat(s.page);
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
  assert.ok(s.script.summaryRequests >= 1, 'the summarizer called the API');
  // What the model saw after the compaction: the summary, not the long answer.
  const lastBody = JSON.stringify(s.loopback.messageRequests.at(-1)!.body.messages);
  assert.ok(lastBody.includes('Hello from Splitpoint'), 'the summary reached the model');
  assert.ok(!lastBody.includes('That is the whole design.'), 'the archived long answer did not');
  // One more short turn so the compacted history has turns for the inspector to cut between.
  await send(frame, 'One more question.');
  await frame.locator('article.item.assistant').filter({ hasText: 'echo: One more question.' }).waitFor({ timeout: UI_TIMEOUT });
  await idle(frame);
}

/** Step 6 (inspector): the inspector shows the split point and tail; previews sliding-window and turn-window, applies one and undoes it. */
export async function inspectorPreviewApplyUndo(s: VscodeSession): Promise<void> {
  await runCommand(s.page, 'Splitpoint: Open Inspector');
  const frame = await inspector(s.page);
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
    await s.run.screenshot(`6-inspector-preview-${strategy}`);
  }

  // Apply sliding-window (no summary needed), then undo it.
  const historyBefore = await frame.locator('.history-item').count();
  await frame.locator('section.strategy[data-strategy="sliding-window"] button[data-action="apply"]').click();
  await frame.locator('.notice', { hasText: 'Applied sliding-window' }).waitFor({ timeout: UI_TIMEOUT });
  await waitFor('the timeline to shrink', async () => Number(await timeline.getAttribute('data-count')) < rowsBefore, UI_TIMEOUT);
  await waitFor('a new past compaction', async () => (await frame.locator('.history-item').count()) === historyBefore + 1, UI_TIMEOUT);
  await frame.locator('.history-item .history-strategy', { hasText: 'sliding-window' }).first().waitFor({ timeout: UI_TIMEOUT });
  await s.run.screenshot('6-inspector-applied');

  const undo = frame.locator('button[data-action="undo"]');
  await waitFor('Undo to be enabled', async () => undo.isEnabled(), UI_TIMEOUT);
  await undo.click();
  await frame.locator('.notice', { hasText: 'Restored the history from the transcript.' }).waitFor({ timeout: UI_TIMEOUT });
  await waitFor('the timeline to be restored', async () => Number(await timeline.getAttribute('data-count')) === rowsBefore, UI_TIMEOUT);
  // The tail pointer is back on the auto-compaction's tail, not on the undone one's.
  await currentTail.filter({ hasText: PROMPT_AFTER }).waitFor({ timeout: UI_TIMEOUT });
  // The chat marks the inspector's compaction as undone (and shows no divider for the undo itself).
  const chatFrame = await chat(s.page);
  await chatFrame.locator('section.item.compaction.undone', { hasText: 'sliding-window' }).waitFor({ timeout: UI_TIMEOUT });
  await chatFrame.locator('.item.notice', { hasText: 'Undid the last compaction' }).waitFor({ timeout: UI_TIMEOUT });
  assert.equal(
    await chatFrame.locator('section.item.compaction').count(),
    2,
    'dividers: the auto-compaction and the undone sliding-window',
  );
}
