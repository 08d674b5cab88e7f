// The main suite's probe step (issue 22): a figure the agent stated is archived by a compaction,
// "Check this compaction" (its price on the divider's button) asks the probes of the loopback model,
// which answers from the request text (test/loopback/probeAnswers.ts): the figure is missed. Its
// source pinned from the card (the compaction is undone to bring it back), a second compaction keeps
// it, and the next check asks that probe again: answered.
import assert from 'node:assert/strict';
import type { FrameLocator } from 'playwright-core';
import type { ValidRequest } from '../../loopback/anthropic-server';
import { editorTab, waitFor } from '../workbench';
import { chat, idle, inspector, send, UI_TIMEOUT, type VscodeSession } from './session';

const PROMPT_FIGURE = 'How fast is the parser now?';
const FIGURE_ANSWER = 'The benchmark of the old parser took 1834 ms per run; the new one takes 912 ms per run.';
const FIGURE = '1834 ms';

/** The probe requests the loopback answered so far. */
const probeRequests = (s: VscodeSession): ValidRequest[] =>
  s.loopback.messageRequests.filter((r) => r.source === 'probes') as ValidRequest[];

/** Applies sliding-window from the inspector (no summary) and waits for its divider in the chat (not undone). */
async function slidingWindow(s: VscodeSession, dividers: number): Promise<FrameLocator> {
  await editorTab(s.page, /^Splitpoint Inspector$/)
    .first()
    .click();
  const frame = await inspector(s.page);
  const current = frame.locator('[data-action="show-current"]');
  if ((await current.count()) > 0) await current.click();
  await frame.locator('section.strategy[data-strategy="sliding-window"] button[data-action="apply"]').click();
  const chatFrame = await chat(s.page);
  const live = chatFrame.locator('section.item.compaction:not(.undone)', { hasText: 'sliding-window' });
  await waitFor('the sliding-window divider', async () => (await live.count()) === dividers, UI_TIMEOUT);
  return chatFrame;
}

/** Clicks the check on the last live divider (its label carries the price) and waits for its card. */
async function checkLast(frame: FrameLocator, cardsBefore: number): Promise<void> {
  const divider = frame.locator('section.item.compaction:not(.undone)').last();
  const button = divider.locator('button[data-action="check-compaction"]');
  assert.match((await button.innerText()).trim(), /^Check this compaction \(≈ \$\d+\.\d{2,4}\)$/, 'the price is shown before it runs');
  await button.click();
  await waitFor('the check card', async () => (await frame.locator('section.probe-card.done').count()) === cardsBefore + 1, UI_TIMEOUT);
}

/** Step 16 (check-compaction): a missed probe pinned from the card, and a second compaction keeps it. */
export async function checkCompactionPinAndKeep(s: VscodeSession): Promise<void> {
  const chatFrame = await chat(s.page);
  // The figure lives only in the agent's reply (the ledger carries prompts, not replies); small talk follows.
  s.loopback.queue.text(FIGURE_ANSWER);
  await send(chatFrame, PROMPT_FIGURE);
  await chatFrame.locator('article.item.assistant', { hasText: FIGURE }).waitFor({ timeout: UI_TIMEOUT });
  await idle(chatFrame);
  for (const p of ['Noted, first follow-up.', 'Noted, second follow-up.']) {
    await send(chatFrame, p);
    await chatFrame.locator('article.item.assistant', { hasText: `echo: ${p}` }).waitFor({ timeout: UI_TIMEOUT });
    await idle(chatFrame);
  }
  const before = await chatFrame.locator('section.item.compaction:not(.undone)', { hasText: 'sliding-window' }).count();
  let frame = await slidingWindow(s, before + 1);

  // Check: one probe request, the questions last; the figure is missed (the context lost it).
  const requests = probeRequests(s).length;
  await checkLast(frame, await frame.locator('section.probe-card.done').count());
  assert.equal(probeRequests(s).length, requests + 1, 'one probe request');
  const asked = JSON.stringify(probeRequests(s).at(-1)!.body.messages);
  assert.ok(!asked.includes(FIGURE_ANSWER), 'the compacted context no longer holds the figure');
  const card = frame.locator('section.probe-card.done').last();
  await s.run.screenshot('16-check-missed');
  const missed = card.locator('.probe-misses li.probe-miss:not([data-verdict="uncertain"])', { hasText: `Expected: ${FIGURE}` }).first();
  await missed.waitFor({ timeout: UI_TIMEOUT });
  const probeId = (await missed.getAttribute('data-probe-id'))!;

  // Pin its source: the compaction is undone (the source is back) and the message pinned.
  await missed.getByRole('button', { name: 'Pin source message' }).click();
  await missed.locator('.probe-done', { hasText: 'Source pinned' }).waitFor({ timeout: UI_TIMEOUT });
  await frame.locator('article.item.assistant.is-pinned', { hasText: FIGURE }).waitFor({ timeout: UI_TIMEOUT });

  // A second compaction keeps it; the next check asks the probe again and it is answered.
  frame = await slidingWindow(s, before + 1);
  await checkLast(frame, await frame.locator('section.probe-card.done').count());
  const kept = JSON.stringify(probeRequests(s).at(-1)!.body.messages);
  assert.ok(kept.includes(FIGURE_ANSWER), 'the second compaction kept the pinned source');
  const followed = frame.locator('section.probe-card.done').last().locator(`.probe-followed li[data-probe-id="${probeId}"]`);
  await followed.waitFor({ timeout: UI_TIMEOUT });
  assert.equal(await followed.getAttribute('data-answered'), 'true', 'the pinned probe is answered now');
  await followed.scrollIntoViewIfNeeded();
}
