// Previews in the inspector (headless Chromium): only the answer to the latest request is drawn, a
// growing history keeps the preview and refreshes it, parameter inputs honour their bounds and
// re-preview once after a pause, and Apply and Undo wait while the host is busy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planToView } from '../../src/inspector/planViews';
import type { InspectorToHost } from '../../src/protocol';
import {
  assertClean,
  EXAMPLE,
  exampleCtx,
  frames,
  inspectorPagesForFile,
  previewAndWait,
  scrollToRow,
  waitRowCount,
} from './inspector-support';

const { open } = inspectorPagesForFile();

test('stale plan answers are ignored: only the answer to the latest request is drawn', async () => {
  const { page, host, errors } = await open(exampleCtx());
  await host.showSession({ messages: EXAMPLE });
  await waitRowCount(page, EXAMPLE.length);
  host.autoAnswer = false;
  const since = host.posted.length;
  await page.click('[data-strategy="sliding-window"] [data-action=preview]');
  await page.click('[data-strategy="recent-turns"] [data-action=preview]');
  const a = await host.waitForPost(
    (m): m is Extract<InspectorToHost, { type: 'preview' }> => m.type === 'preview' && m.strategy === 'sliding-window',
    5_000,
    since,
  );
  const b = await host.waitForPost(
    (m): m is Extract<InspectorToHost, { type: 'preview' }> => m.type === 'preview' && m.strategy === 'recent-turns',
    5_000,
    since,
  );
  assert.ok(b.requestId > a.requestId);
  const planA = host.plan(a.strategy, a.params).plan;
  const planB = host.plan(b.strategy, b.params).plan;
  assert.notEqual(planA.splitIndex, planB.splitIndex, 'fixture: the two plans differ');

  await host.send({ type: 'plan', plan: planToView(planA, a.requestId, 1) });
  await frames(page);
  assert.equal(await page.getAttribute('.plan-summary', 'data-request-id'), '', 'the older answer is not drawn');
  assert.equal(await page.locator('[data-marker="preview-split"]').count(), 0);

  await host.send({ type: 'plan', plan: planToView(planB, b.requestId, 1) });
  await page.waitForSelector(`.plan-summary[data-request-id="${b.requestId}"]`);
  assert.equal(await page.getAttribute('[data-marker="preview-split"]', 'data-split-index'), String(planB.splitIndex));

  await host.send({ type: 'plan', plan: planToView(planA, a.requestId, 1) });
  await host.send({ type: 'planError', requestId: a.requestId, message: 'stale failure' });
  await frames(page);
  assert.equal(await page.getAttribute('.plan-summary', 'data-strategy'), 'recent-turns');
  assert.equal(await page.getAttribute('[data-marker="preview-split"]', 'data-split-index'), String(planB.splitIndex));
  assert.equal(await page.locator('.plan-summary [data-stat="error"]').count(), 0);

  // An error for the latest request is shown.
  const since2 = host.posted.length;
  await page.click('[data-strategy="recent-turns"] [data-action=preview]');
  const c = await host.waitForPost((m): m is Extract<InspectorToHost, { type: 'preview' }> => m.type === 'preview', 5_000, since2);
  await host.send({ type: 'planError', requestId: c.requestId, message: 'recent-turns: parameter perTurnMin must be <= perTurnMax' });
  await page.waitForSelector('.plan-summary [data-stat="error"]');
  assert.match((await page.textContent('.plan-summary [data-stat="error"]'))!, /perTurnMin/);
  await assertClean(page, host, errors);
  await page.close();
});

test('a growing history keeps the preview and refreshes it; the new rows appear at the end', async () => {
  const { page, host, errors } = await open(exampleCtx());
  const head = EXAMPLE.slice(0, 50);
  await host.showSession({ messages: head });
  await waitRowCount(page, head.length);
  const first = await previewAndWait(page, host, 'sliding-window');
  const since = host.posted.length;
  await host.showSession({ messages: EXAMPLE });
  await waitRowCount(page, EXAMPLE.length);
  const again = await host.waitForPost((m): m is Extract<InspectorToHost, { type: 'preview' }> => m.type === 'preview', 5_000, since);
  assert.equal(again.strategy, 'sliding-window');
  assert.ok(again.requestId > first.requestId);
  await page.waitForSelector(`.plan-summary[data-request-id="${again.requestId}"]`);
  const plan = host.plans.get(again.requestId)!;
  assert.notEqual(plan.splitIndex, first.plan.splitIndex);
  assert.equal(await page.getAttribute('[data-marker="preview-split"]', 'data-split-index'), String(plan.splitIndex));
  await scrollToRow(page, EXAMPLE.length - 1);
  assert.equal(await page.getAttribute(`[data-index="${EXAMPLE.length - 1}"]`, 'data-id'), EXAMPLE[EXAMPLE.length - 1].id);
  await assertClean(page, host, errors);
  await page.close();
});

test('parameter inputs honour min, max and integer; editing re-previews once after a pause; Clear preview', async () => {
  const { page, host, errors } = await open(exampleCtx());
  await host.showSession({ messages: EXAMPLE });
  await waitRowCount(page, EXAMPLE.length);
  const card = '[data-strategy="sliding-window"]';
  const input = `${card} input[data-param="maxEvents"]`;
  assert.equal(await page.getAttribute(input, 'min'), '1');
  assert.equal(await page.getAttribute(input, 'step'), '1');
  for (const [value, error] of [
    ['0', 'Must be at least 1.'],
    ['2.5', 'Must be a whole number.'],
    ['', 'Enter a number.'],
  ]) {
    await page.fill(input, value);
    assert.equal((await page.textContent(`${card} .param-error`))?.trim(), error);
    assert.equal(await page.getAttribute(input, 'aria-invalid'), 'true');
    assert.equal(await page.isDisabled(`${card} [data-action=preview]`), true);
    assert.equal(await page.isDisabled(`${card} [data-action=apply]`), true);
  }
  await page.click(`${card} [data-action=reset]`);
  assert.equal(await page.inputValue(input), '40');
  assert.equal(await page.locator(`${card} .param-error`).count(), 0);
  await page.fill('[data-strategy="recent-token-fraction"] input[data-param="fraction"]', '1.5');
  assert.equal((await page.textContent('[data-strategy="recent-token-fraction"] .param-error'))?.trim(), 'Must be at most 0.99.');
  await page.fill('[data-strategy="recent-token-fraction"] input[data-param="fraction"]', '0.5');
  assert.equal(await page.locator('[data-strategy="recent-token-fraction"] .param-error').count(), 0);

  // With a preview showing, typing re-previews once, after the pause, with the final value.
  const first = await previewAndWait(page, host, 'sliding-window');
  const since = host.posted.length;
  await page.click(input, { clickCount: 3 });
  await page.keyboard.type('25', { delay: 40 });
  const again = await host.waitForPost((m): m is Extract<InspectorToHost, { type: 'preview' }> => m.type === 'preview', 5_000, since);
  assert.deepEqual(again.params, { maxEvents: 25 });
  await page.waitForSelector(`.plan-summary[data-request-id="${again.requestId}"]`);
  await page.waitForTimeout(300);
  assert.equal(host.posted.slice(since).filter((m) => m.type === 'preview').length, 1, 'one preview for the whole edit');
  const plan = host.plans.get(again.requestId)!;
  assert.notEqual(plan.splitIndex, first.plan.splitIndex);
  assert.equal(await page.getAttribute('[data-marker="preview-split"]', 'data-split-index'), String(plan.splitIndex));

  // Clear preview: markers and summary go; later edits do not preview.
  await page.click('[data-action=clear-preview]');
  assert.equal(await page.locator('[data-marker="preview-split"]').count(), 0);
  assert.equal(await page.locator('[role=option].archived').count(), 0);
  assert.equal(await page.locator('.plan-summary').count(), 0);
  const since2 = host.posted.length;
  await page.fill(input, '12');
  await page.waitForTimeout(400);
  assert.equal(host.posted.slice(since2).filter((m) => m.type === 'preview').length, 0);
  await assertClean(page, host, errors);
  await page.close();
});

test('busy and notices: Apply and Undo wait while the host works; notices can be dismissed', async () => {
  const { page, host, errors } = await open(exampleCtx());
  await host.showSession({ messages: EXAMPLE, canUndo: true });
  await waitRowCount(page, EXAMPLE.length);
  await host.send({ type: 'busy', busy: true, label: 'Summarizing 50 messages…' });
  await page.waitForSelector('[data-field=busy]');
  assert.match((await page.textContent('[data-field=busy]'))!, /Summarizing 50 messages/);
  assert.equal(await page.isDisabled('[data-strategy="sliding-window"] [data-action=apply]'), true);
  assert.equal(await page.isDisabled('[data-action=undo]'), true);
  assert.equal(await page.isDisabled('[data-strategy="sliding-window"] [data-action=preview]'), false, 'preview still works');
  await host.send({ type: 'busy', busy: false });
  await frames(page);
  assert.equal(await page.isDisabled('[data-action=undo]'), false);
  await host.send({ type: 'notice', level: 'error', message: 'Summarization failed: the history is unchanged.' });
  await page.waitForSelector('.notice-error[role=alert]');
  assert.match((await page.textContent('.notice-error'))!, /history is unchanged/);
  await page.click('.notice-error button');
  assert.equal(await page.locator('.notice').count(), 0);
  await assertClean(page, host, errors);
  await page.close();
});
