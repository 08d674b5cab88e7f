// The main suite's standing-context step (issue 23): the workspace's AGENTS.md is named in the chat
// header; the agent's task list (the todo tool, called twice in one turn) updates the chat's checklist
// while the turn is still running; after a compaction (sliding-window, applied from the inspector) the
// next request to the model still carries the instructions and the whole task list in its system prompt.
import assert from 'node:assert/strict';
import type { WireBlock } from '../../loopback/anthropic-server';
import { isSummaryRequest } from '../../helpers/summaryRequest';
import { trailerOf } from '../../helpers/standingText';
import { AGENTS_MD, ANSWER_PLAN, PROMPT_PLAN } from '../script';
import { editorTab, waitFor } from '../workbench';
import { chat, idle, inspector, send, UI_TIMEOUT, type VscodeSession } from './session';

const PROMPT_NEXT = 'Is the release plan still in front of you?';
const LIST_LINES = '[x] Tag the release (id r1)\n[~] Publish the package (id r2)';

function systemText(system: unknown): string {
  if (typeof system === 'string') return system;
  return Array.isArray(system) ? (system as WireBlock[]).map((b) => String(b.text ?? '')).join('\n') : '';
}

/** Step 17 (instructions-and-todo). */
export async function instructionsAndTodo(s: VscodeSession): Promise<void> {
  const frame = await chat(s.page);
  // The header names the instruction file in force.
  await frame.locator('.instructions-header li.instruction[data-name="AGENTS.md"][data-sent="true"]').waitFor({ timeout: UI_TIMEOUT });
  // The model plans with the todo tool, then marks the first item done in the same turn: the checklist
  // shows that while the turn runs (the final answer is still streaming).
  await send(frame, PROMPT_PLAN);
  const progress = frame.locator('.todo-checklist [data-stat="todo-progress"]');
  await progress.filter({ hasText: '1/2 done' }).waitFor({ timeout: 60_000 });
  assert.equal(await frame.locator('.app.is-busy').count(), 1, 'the checklist updated while the agent was still working');
  assert.deepEqual(await frame.locator('.todo-checklist .todo-item').evaluateAll((els) => els.map((e) => e.getAttribute('data-status'))), [
    'done',
    'in_progress',
  ]);
  await s.run.screenshot('todo-during-turn');
  await frame
    .locator('article.item.assistant')
    .filter({ hasText: ANSWER_PLAN.trim().slice(0, 40) })
    .waitFor({ timeout: 60_000 });
  await idle(frame);
  // Compact: sliding-window applied from the inspector (the chat's Compact button runs the configured
  // recursive-summarization, which on this short history would save nothing and is refused as a no-op;
  // the file watcher of code-server's user settings did not apply a changed strategy within 30 s).
  const chatCompactions = await frame.locator('section.item.compaction').count();
  await editorTab(s.page, /^Splitpoint Inspector$/)
    .first()
    .click();
  const insp = await inspector(s.page);
  const current = insp.locator('[data-action="show-current"]');
  if ((await current.count()) > 0 && (await current.first().isVisible())) await current.first().click();
  await insp.locator('.timeline .row', { hasText: PROMPT_PLAN }).first().waitFor({ timeout: UI_TIMEOUT });
  const appliedBefore = await insp.locator('.notice', { hasText: 'Applied sliding-window' }).count();
  await insp.locator('section.strategy[data-strategy="sliding-window"] button[data-action="apply"]').click();
  const confirm = insp.locator('section.strategy[data-strategy="sliding-window"] button[data-action="confirm-apply"]');
  await confirm.waitFor({ timeout: 2_000 }).then(
    () => confirm.click(),
    () => undefined,
  );
  // Earlier steps applied sliding-window too: wait for one more such notice than before.
  const applied = insp.locator('.notice', { hasText: 'Applied sliding-window' });
  await waitFor('the compaction applied', async () => (await applied.count()) > appliedBefore, UI_TIMEOUT);
  const chatFrame = await chat(s.page);
  await waitFor(
    'the compaction in the chat',
    async () => (await chatFrame.locator('section.item.compaction').count()) > chatCompactions,
    UI_TIMEOUT,
  );
  await idle(chatFrame);
  const before = s.loopback.messageRequests.length;
  await send(chatFrame, PROMPT_NEXT);
  await chatFrame
    .locator('article.item.assistant')
    .filter({ hasText: `echo: ${PROMPT_NEXT}` })
    .waitFor({ timeout: UI_TIMEOUT });
  await idle(chatFrame);
  const next = s.loopback.messageRequests.slice(before).find((r) => !isSummaryRequest(r.body));
  assert.ok(next, 'the next request reached the model');
  const system = systemText(next.body.system);
  assert.ok(system.includes(AGENTS_MD), 'the next request carries AGENTS.md in its system prompt');
  const trailer = trailerOf(next.body);
  assert.ok(
    trailer.includes(LIST_LINES),
    `the next request carries the whole task list after its cache breakpoints:\n${trailer.slice(-600)}`,
  );
  await s.run.screenshot('todo-after-compact');
}
