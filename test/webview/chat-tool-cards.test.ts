// Tool cards in the chat view (headless Chromium): Approve and Reject (with or without a reason) on a
// call awaiting approval post what the host expects; finished cards cap their output, show the
// micro-compaction badge and the diff by kind; Tab reaches Approve and Space / Enter toggle a card.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChatItem } from '../../src/protocol';
import { richConversation } from './fixtures';
import { assertClean, chatPagesForFile } from './chat-support';

const { openWith } = chatPagesForFile();

test('Approve on an awaiting-approval card posts approve with the tool_use id', async () => {
  const p = await openWith(richConversation());
  const card = p.page.locator('article.card.status-awaiting-approval');
  assert.equal(await card.locator('.card-header').getAttribute('aria-expanded'), 'true', 'a card awaiting approval starts open');
  assert.match((await card.locator('pre.command').textContent()) ?? '', /npm test -- tokens/);
  await card.getByRole('button', { name: 'Approve run_command' }).click();
  assert.deepEqual(await p.intents(), [{ type: 'approve', toolUseId: 'toolu_run' }]);
  assert.match((await card.locator('.approval').textContent()) ?? '', /Approved/);
  assert.equal(await card.getByRole('button', { name: 'Approve run_command' }).count(), 0, 'no double approval');
  // The host moves the call on: the approval bar goes away.
  await p.deliver({ type: 'item', item: { ...(richConversation().at(-1) as Extract<ChatItem, { kind: 'tool' }>), status: 'running' } });
  await p.settle();
  assert.equal(await p.page.locator('.approval').count(), 0);
  assert.equal(await p.page.locator('.status-badge.s-running').count(), 1);
  await assertClean(p);
});

test('Reject posts reject without a reason; Reject with reason posts the typed reason', async () => {
  const awaiting = (id: string): ChatItem => ({
    kind: 'tool',
    id,
    name: 'write_file',
    input: '{"path":"a.txt"}',
    status: 'awaiting-approval',
  });
  const p = await openWith([awaiting('toolu_a'), awaiting('toolu_b')]);
  await p.page.getByRole('button', { name: 'Reject write_file' }).first().click();
  const second = p.page.locator('article.card').nth(1);
  await second.getByRole('button', { name: 'Reject with reason…' }).click();
  const reason = second.getByRole('textbox', { name: 'Reason for rejecting write_file' });
  // Focus moves in an effect after the render: wait for it (bounded), then assert.
  for (let i = 0; i < 40 && !(await reason.evaluate((el) => el === document.activeElement)); i++) await p.page.waitForTimeout(50);
  assert.ok(await reason.evaluate((el) => el === document.activeElement), 'the reason box takes focus');
  await reason.fill('  Use a temp dir instead  ');
  await reason.press('Enter');
  assert.deepEqual(await p.intents(), [
    { type: 'reject', toolUseId: 'toolu_a' },
    { type: 'reject', toolUseId: 'toolu_b', reason: 'Use a temp dir instead' },
  ]);
  await assertClean(p);
});

test('tool cards: capped output with Show all, the micro-compaction badge, diff lines by kind, input as JSON', async () => {
  const p = await openWith(richConversation());
  const read = p.page.locator('article.card').filter({ hasText: 'read_file' });
  assert.match((await read.locator('.trunc-badge').textContent()) ?? '', /^truncated by micro-compaction \(48,213 chars\)$/);
  assert.equal(await read.locator('.card-header').getAttribute('aria-expanded'), 'false', 'finished cards start collapsed');
  await read.locator('.card-header').click();
  assert.match((await read.locator('.section').first().textContent()) ?? '', /"path": "src\/core\/tokens\.ts"/);
  const out = read.locator('.output').last();
  const shown = (await out.locator('pre').textContent()) ?? '';
  assert.ok(shown.includes('line 60 of') && !shown.includes('line 61 of'), 'output capped at 60 lines');
  await out.getByRole('button', { name: /Show all/ }).click();
  assert.ok(((await out.locator('pre').textContent()) ?? '').includes('line 150 of tokens.ts'));

  const edit = p.page.locator('article.card').filter({ hasText: 'edit_file' });
  await edit.locator('.card-header').press('Enter');
  assert.deepEqual(await edit.locator('.dl.add').allTextContents(), [
    '+    const hit = this.cache.get(m.id);\n',
    '+    if (hit !== undefined) return hit;\n',
    '+    return this.remember(m);\n',
  ]);
  assert.deepEqual(await edit.locator('.dl.del').allTextContents(), ['-    return this.encode(m).length;\n']);
  assert.equal(await edit.locator('.dl.hunk').count(), 1);
  assert.equal(await edit.locator('.dl.meta').count(), 2);
  assert.equal((await edit.locator('.diff-stat').textContent())?.trim(), '+3 −1');
  await assertClean(p);
});

test('keyboard: Tab reaches Approve and Enter approves; Space and Enter toggle a card; focus is visible', async () => {
  const p = await openWith(richConversation());
  await p.page.locator('body').click({ position: { x: 2, y: 2 } });
  let reached = false;
  const visited: string[] = [];
  for (let i = 0; i < 80 && !reached; i++) {
    await p.page.keyboard.press('Tab');
    const label = await p.page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      return el ? (el.getAttribute('aria-label') ?? el.textContent?.trim().slice(0, 30) ?? el.tagName) : '';
    });
    visited.push(label);
    reached = label === 'Approve run_command';
  }
  assert.ok(reached, `Tab reaches Approve (visited: ${visited.join(' | ')})`);
  assert.ok(visited.includes('New chat') && visited.includes('Conversation'), 'toolbar and conversation are in the tab order');
  const outline = await p.page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
  assert.notEqual(outline, 'none', 'the focused button shows a focus ring');
  await p.page.keyboard.press('Enter');
  assert.deepEqual(await p.intents(), [{ type: 'approve', toolUseId: 'toolu_run' }]);
  assert.equal(await p.page.evaluate(() => document.activeElement?.classList.contains('card-header')), true, 'focus stays on the card');

  const header = p.page.locator('article.card').filter({ hasText: 'read_file' }).locator('.card-header');
  await header.focus();
  await p.page.keyboard.press('Space');
  assert.equal(await header.getAttribute('aria-expanded'), 'true');
  await p.page.keyboard.press('Enter');
  assert.equal(await header.getAttribute('aria-expanded'), 'false');
  await assertClean(p);
});
