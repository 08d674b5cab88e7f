// The main suite's chat steps: the sidebar asking for a key, a streamed answer with a read_file card,
// and an edit the user approves before anything is written.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ANSWER_EDIT, ANSWER_READ, FILE_AFTER, FILE_BEFORE, PROMPT_EDIT, PROMPT_READ, WORKSPACE_FILE } from '../script';
import { waitFor } from '../workbench';
import { chat, idle, send, UI_TIMEOUT, type VscodeSession } from './session';

/** Step 1 (sidebar): the activity-bar entry opens the chat, which asks for an API key. */
export async function sidebarAsksForKey(s: VscodeSession): Promise<void> {
  const entry = s.page.locator('.activitybar a[aria-label="Splitpoint"]').first();
  await entry.waitFor({ timeout: 60_000 });
  await entry.click();
  const frame = await chat(s.page);
  // No key yet: the view asks for one.
  await frame.locator('section.empty.api-key').waitFor({ timeout: UI_TIMEOUT });
  assert.equal(await frame.locator('.toolbar .title-text').innerText(), 'New chat');
}

/** Step 3 (streamed-answer-and-tool-card): the first prompt names the chat; the answer streams in after a read_file card whose result reaches the API. */
export async function streamedAnswerAndToolCard(s: VscodeSession): Promise<void> {
  const frame = await chat(s.page);
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
  const bodies = s.loopback.messageRequests.map((r) => JSON.stringify(r.body.messages));
  assert.ok(
    bodies.some((b) => b.includes('tool_result') && b.includes('Hello from the workspace')),
    'the tool result reached the API',
  );
}

/** Step 4 (edit-approved): an edit_file call shows its diff and writes nothing until the user approves it. */
export async function editApproved(s: VscodeSession): Promise<void> {
  const frame = await chat(s.page);
  const file = join(s.workspace, WORKSPACE_FILE);
  await send(frame, PROMPT_EDIT);
  const approve = frame.getByRole('button', { name: 'Approve edit_file' });
  await approve.waitFor({ timeout: UI_TIMEOUT });
  const card = frame.locator('article.card.tool.status-awaiting-approval');
  await card.locator('.diff-body .dl.del', { hasText: 'Hello from the workspace' }).waitFor({ timeout: UI_TIMEOUT });
  await card.locator('.diff-body .dl.add', { hasText: 'Hello from Splitpoint' }).waitFor({ timeout: UI_TIMEOUT });
  assert.equal(readFileSync(file, 'utf8'), FILE_BEFORE, 'nothing is written before the approval');
  await s.run.screenshot('4-edit-awaiting-approval');
  await approve.click();
  await frame.locator('article.item.assistant').filter({ hasText: ANSWER_EDIT }).waitFor({ timeout: UI_TIMEOUT });
  await idle(frame);
  await waitFor('greeting.ts to change on disk', async () => readFileSync(file, 'utf8') === FILE_AFTER, UI_TIMEOUT);
  assert.equal(await frame.locator('article.card.tool.status-done').count(), 2);
}
