// Pins in the chat view (headless Chromium): the pin toggle on a prompt and on an assistant message
// (hover and keyboard), what it posts, the marker that follows the host's 'pins', and what is not
// pinnable (streaming text, items without a session message, tool cards).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ChatItem } from '../../src/protocol';
import { chatState } from './fixtures';
import { WebviewHarness, type WebviewPage } from './harness';

const ARTIFACTS = resolve(import.meta.dirname ?? __dirname, '../../test-artifacts');

function conversation(): ChatItem[] {
  return [
    { kind: 'user', id: 'chat_u1', messageId: 'u_1', text: 'Always run the tests with --runInBand; never touch the lockfile.' },
    { kind: 'assistant', id: 'chat_a1', messageId: 'a_1', text: 'Understood: **--runInBand**, lockfile untouched.', streaming: false },
    { kind: 'tool', id: 'toolu_1', name: 'read_file', input: '{"path":"src/a.ts"}', status: 'done', output: 'export const a = 1;' },
    { kind: 'user', id: 'chat_u2', messageId: 'u_2', text: 'Now refactor the parser.' },
    { kind: 'user', id: 'chat_u3', text: 'A prompt the host has not tied to a message yet' },
    { kind: 'assistant', id: 'chat_a2', messageId: 'a_2', text: 'Working on it', streaming: true },
  ];
}

describe('chat pins in headless Chromium', () => {
  let h: WebviewHarness;
  before(async () => {
    h = await WebviewHarness.start();
  });
  after(async () => {
    await h?.close();
  });

  async function openPins(opts: Parameters<WebviewHarness['open']>[0] = {}): Promise<WebviewPage> {
    const p = await h.open(opts);
    await p.deliver({ type: 'state', state: chatState(conversation()) });
    await p.settle();
    await p.clearPosted();
    return p;
  }

  test('a pin button shows on hover over a prompt and posts pin with the session message id; the host’s pins mark it, and unpin follows', async () => {
    const p = await openPins();
    const prompt = p.page.locator('article.item.user').filter({ hasText: 'runInBand' });
    const button = prompt.getByRole('button', { name: /^Pin your message/ });
    assert.equal(await button.evaluate((b) => getComputedStyle(b).opacity), '0', 'hidden until hover');
    await prompt.hover();
    assert.equal(await button.evaluate((b) => getComputedStyle(b).opacity), '1', 'shown on hover');
    await button.click();
    assert.deepEqual(await p.intents(), [{ type: 'pin', id: 'u_1' }]);
    // Nothing is marked until the host says so.
    assert.equal(await p.page.locator('.item.is-pinned').count(), 0);
    await p.deliver({ type: 'pins', ids: ['u_1'] });
    await p.settle();
    assert.equal(await prompt.getAttribute('aria-label'), 'You (pinned)');
    const unpin = prompt.getByRole('button', { name: /^Unpin your message/ });
    assert.equal(await unpin.getAttribute('aria-pressed'), 'true');
    assert.equal((await unpin.textContent())?.trim(), 'Pinned');
    await p.page.mouse.move(0, 0);
    assert.equal(await unpin.evaluate((b) => getComputedStyle(b).opacity), '1', 'the marker stays without hover');
    assert.match((await p.page.locator('[role="status"]').textContent()) ?? '', /Message pinned\./);
    await p.clearPosted();
    await unpin.click();
    assert.deepEqual(await p.intents(), [{ type: 'unpin', id: 'u_1' }]);
    await p.deliver({ type: 'pins', ids: [] });
    await p.settle();
    assert.equal(await p.page.locator('.item.is-pinned').count(), 0);
    assert.deepEqual(p.pageErrors, []);
  });

  test('keyboard: Tab reaches the pin button of an assistant message (shown while focused) and Enter pins it', async () => {
    const p = await openPins();
    const answer = p.page.locator('article.item.assistant').filter({ hasText: 'lockfile untouched' });
    const button = answer.getByRole('button', { name: /^Pin the assistant’s message/ });
    await button.focus();
    assert.equal(await button.evaluate((b) => getComputedStyle(b).opacity), '1', 'visible on keyboard focus');
    await p.page.keyboard.press('Enter');
    assert.deepEqual(await p.intents(), [{ type: 'pin', id: 'a_1' }]);
    // Tab order: the first prompt's button comes before the assistant's.
    await p.page
      .locator('article.item.user')
      .first()
      .getByRole('button', { name: /^Pin your message/ })
      .focus();
    await p.page.keyboard.press('Tab');
    assert.equal(await p.page.evaluate(() => document.activeElement?.getAttribute('data-message-id')), 'a_1');
  });

  test('no pin button on streaming text, on an item without a session message, or on a tool card', async () => {
    const p = await openPins();
    const ids = await p.page.locator('.pin-button').evaluateAll((bs) => bs.map((b) => b.getAttribute('data-message-id')));
    assert.deepEqual(ids, ['u_1', 'a_1', 'u_2']);
  });

  test('pins delivered before the state still mark the items; a malformed pins message is dropped', async () => {
    const p = await h.open();
    await p.deliver({ type: 'pins', ids: ['u_2', 'a_1'] });
    await p.deliver({ type: 'state', state: chatState(conversation()) });
    await p.page.evaluate(() => window.postMessage({ type: 'pins', ids: [1, 2] }, '*'));
    await p.settle();
    const pinned = await p.page.locator('.pin-button.pinned').evaluateAll((bs) => bs.map((b) => b.getAttribute('data-message-id')));
    assert.deepEqual(pinned, ['a_1', 'u_2']);
    assert.deepEqual(p.pageErrors, []);
  });

  test('screenshot: a pinned prompt and the pin button on hover (dark theme)', async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    const p = await openPins({ theme: 'dark', width: 420, height: 520 });
    await p.deliver({ type: 'pins', ids: ['u_1'] });
    await p.settle();
    await p.page.locator('article.item.assistant').first().hover();
    await p.page.screenshot({ path: join(ARTIFACTS, 'chat-pins-dark.png'), animations: 'disabled' });
  });
});
