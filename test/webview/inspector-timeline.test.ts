// The inspector's timeline and detail pane in headless Chromium: a micro-compacted tool result shows
// what the model sees beside the original, read-only mode (no Apply or Undo, markup shown as text), an
// MCP result names its server, the timeline is a keyboard listbox, and the view state survives a
// reload of the webview.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Message } from '../../src/core/conversation/conversation';
import { STRATEGIES } from '../../src/core/strategies';
import {
  assertClean,
  EXAMPLE,
  exampleCtx,
  fmt,
  frames,
  inspectorPagesForFile,
  previewAndWait,
  scrollToRow,
  waitRowCount,
} from './inspector-support';

const { open } = inspectorPagesForFile();

test('clicking a micro-compacted tool result shows what the model sees and the original output', async () => {
  const { page, host, errors } = await open(exampleCtx());
  await host.showSession({ messages: EXAMPLE });
  await waitRowCount(page, EXAMPLE.length);
  const row = host.session.rows.find((r) => r.truncated)!;
  assert.ok(row, 'fixture has a truncated row');
  await scrollToRow(page, row.index);
  const badge = await page.textContent(`[data-index="${row.index}"] .badge-truncated`);
  assert.equal(badge?.trim(), `truncated · original ${fmt(row.truncated!.originalTokens)} tok`);
  const since = host.posted.length;
  await page.click(`[data-index="${row.index}"]`);
  assert.deepEqual(await host.waitForPost((m) => m.type === 'showMessage', 5_000, since), { type: 'showMessage', id: row.id });
  await page.waitForSelector(`.detail[data-detail-id="${row.id}"] [data-detail="original"]`);
  const original = EXAMPLE[row.index];
  const seen = host.effective[row.index];
  const texts = await page.evaluate(() => ({
    original: document.querySelector('[data-detail="original"]')!.textContent,
    effective: document.querySelector('[data-detail="effective"]')!.textContent,
  }));
  const firstResult = (m: Message) =>
    (m.content as Array<{ type: string; content?: unknown }>).find((b) => b.type === 'tool_result')!.content as string;
  assert.ok(texts.original!.includes(firstResult(original)), 'the full original output');
  assert.ok(texts.effective!.includes(firstResult(seen)), 'the placeholder the model sees');
  assert.match(texts.effective!, /\[Previous: used \w+\]/);
  assert.equal(await page.getAttribute(`[data-index="${row.index}"]`, 'aria-selected'), 'true');
  await assertClean(page, host, errors);
  await page.close();
});

test('read-only mode: Apply and Undo are gone, Preview works, the banner names the source, text is never HTML', async () => {
  const { page, host, errors } = await open(exampleCtx());
  const payload = `<img src=x onerror="document.title='pwned'"><b>bold</b> & <script>alert(1)</script>`;
  const messages: Message[] = [{ id: 'html', role: 'user', content: payload }, ...EXAMPLE.slice(1)];
  const source = '/home/dev/.claude/projects/demo/4f1c.jsonl';
  await host.showSession({ messages, readOnly: true, source, sessionId: 'file:4f1c', canUndo: true });
  await waitRowCount(page, messages.length);
  assert.equal(await page.locator('[data-action=apply]').count(), 0);
  assert.equal(await page.locator('[data-action=undo]').count(), 0);
  assert.equal(await page.locator('[data-action=preview]').count(), STRATEGIES.length);
  assert.equal((await page.textContent('[data-field=readonly-source]'))?.trim(), source);

  const { plan } = await previewAndWait(page, host, 'sliding-window');
  assert.equal(await page.getAttribute('[data-marker="preview-split"]', 'data-split-index'), String(plan.splitIndex));

  let since = host.posted.length;
  await page.click('[data-action=show-current]');
  assert.deepEqual(await host.waitForPost((m) => m.type === 'showCurrent', 5_000, since), { type: 'showCurrent' });
  since = host.posted.length;
  await page.click('[data-action=inspect-file]');
  assert.deepEqual(await host.waitForPost((m) => m.type === 'inspectFile', 5_000, since), { type: 'inspectFile' });

  // Markup in a message is text: in the row and in the detail pane.
  await scrollToRow(page, 0);
  assert.ok((await page.textContent('[data-index="0"] .preview'))!.includes('<b>bold</b>'));
  await page.click('[data-index="0"]');
  await page.waitForSelector('.detail[data-detail-id="html"] [data-detail="original"]');
  assert.equal(await page.textContent('[data-detail="original"]'), payload);
  assert.equal(await page.locator('.detail b, .detail img, .detail script, .timeline b, .timeline img').count(), 0);
  assert.notEqual(await page.title(), 'pwned');
  await assertClean(page, host, errors);
  await page.close();
});

test('the detail of an MCP tool result names the MCP server it came from', async () => {
  const { page, host, errors } = await open(exampleCtx());
  const messages: Message[] = [
    { id: 'u1', role: 'user', content: 'Echo through MCP' },
    { id: 'a1', role: 'assistant', content: [{ type: 'tool_use', id: 'tu1', name: 'mcp__everything__echo', input: { message: 'hi' } }] },
    { id: 'r1', role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu1', content: 'Echo: hi' }] },
    { id: 'a2', role: 'assistant', content: 'It echoed.' },
  ];
  await host.showSession({ messages });
  await waitRowCount(page, messages.length);
  await page.click('[data-index="2"]');
  await page.waitForSelector('.detail[data-detail-id="r1"] [data-detail="original"]');
  assert.equal((await page.textContent('.detail .tag-mcp'))?.trim(), 'MCP server everything · echo');
  await page.click('[data-index="0"]');
  await page.waitForSelector('.detail[data-detail-id="u1"] [data-detail="original"]');
  assert.equal(await page.locator('.detail .tag-mcp').count(), 0);
  await assertClean(page, host, errors);
  await page.close();
});

test('keyboard: the timeline is a listbox with arrows, Home/End, PageUp/PageDown and Enter', async () => {
  const { page, host, errors } = await open(exampleCtx());
  await host.showSession({ messages: EXAMPLE });
  await waitRowCount(page, EXAMPLE.length);
  const active = () => page.getAttribute('.timeline', 'aria-activedescendant');
  const visible = (i: number) =>
    page.evaluate((k) => {
      const lb = document.querySelector('.timeline')!.getBoundingClientRect();
      const r = document.getElementById(`sp-row-${k}`)?.getBoundingClientRect();
      return !!r && r.top >= lb.top - 0.5 && r.bottom <= lb.bottom + 0.5;
    }, i);
  assert.equal(await page.getAttribute('.timeline', 'role'), 'listbox');
  assert.match((await page.getAttribute('.timeline', 'aria-label'))!, /60 messages/);

  // Tab from the toolbar reaches the timeline (the minimap is a picture, not a tab stop).
  await page.focus('[data-action=inspect-file]');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.classList.contains('timeline')), true);
  assert.equal(await active(), 'sp-row-0');
  for (let k = 0; k < 3; k++) await page.keyboard.press('ArrowDown');
  assert.equal(await active(), 'sp-row-3');
  assert.equal(await page.getAttribute('#sp-row-3', 'aria-selected'), 'true');
  await page.keyboard.press('ArrowUp');
  assert.equal(await active(), 'sp-row-2');
  await page.keyboard.press('PageDown');
  const afterPage = Number((await active())!.slice('sp-row-'.length));
  assert.ok(afterPage >= 8, `PageDown moved a page (to ${afterPage})`);
  assert.ok(await visible(afterPage));
  await page.keyboard.press('PageUp');
  assert.equal(await active(), 'sp-row-2');
  await page.keyboard.press('End');
  assert.equal(await active(), `sp-row-${EXAMPLE.length - 1}`);
  await frames(page);
  assert.ok(await visible(EXAMPLE.length - 1), 'End scrolls the last row into view');
  await page.keyboard.press('ArrowDown');
  assert.equal(await active(), `sp-row-${EXAMPLE.length - 1}`, 'stays on the last row');
  await page.keyboard.press('Home');
  assert.equal(await active(), 'sp-row-0');
  await frames(page);
  assert.ok(await visible(0));
  await page.keyboard.press('ArrowDown');
  const since = host.posted.length;
  await page.keyboard.press('Enter');
  assert.deepEqual(await host.waitForPost((m) => m.type === 'showMessage', 5_000, since), { type: 'showMessage', id: EXAMPLE[1].id });
  await page.waitForSelector(`.detail[data-detail-id="${EXAMPLE[1].id}"] [data-detail="original"]`);
  // Tab leaves the listbox for the next control; the strategy controls are reachable.
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.classList.contains('timeline')), false);
  await page.focus('[data-strategy="recent-turns"] [data-action=preview]');
  await page.keyboard.press('Enter');
  await page.waitForSelector('.plan-summary[data-strategy="recent-turns"]');
  await assertClean(page, host, errors);
  await page.close();
});

test('view state (parameters, scroll position, selection) survives a reload of the webview', async () => {
  const { page, host, errors } = await open(exampleCtx());
  await host.showSession({ messages: EXAMPLE });
  await waitRowCount(page, EXAMPLE.length);
  await page.fill('[data-strategy="sliding-window"] input[data-param="maxEvents"]', '33');
  await page.evaluate(() => {
    document.querySelector('.timeline')!.scrollTop = 300;
  });
  await frames(page);
  await page.click('[data-index="16"]');
  await page.waitForTimeout(250);
  const ready = host.waitForPost((m) => m.type === 'ready', 10_000);
  await page.reload();
  await ready;
  await host.showSession({ messages: EXAMPLE });
  await waitRowCount(page, EXAMPLE.length);
  await frames(page);
  assert.equal(await page.inputValue('[data-strategy="sliding-window"] input[data-param="maxEvents"]'), '33');
  assert.equal(await page.evaluate(() => document.querySelector('.timeline')!.scrollTop), 300);
  assert.equal(await page.getAttribute('[data-index="16"]', 'aria-selected'), 'true');
  assert.equal(await page.locator('[data-strategy="sliding-window"].highlighted').count(), 1);
  await assertClean(page, host, errors);
  await page.close();
});
