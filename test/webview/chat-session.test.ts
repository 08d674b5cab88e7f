// The chat view around the turns (headless Chromium): the compaction divider and the context meter,
// Retry after an error, the toolbar (API-key empty state, New chat, Compact, Inspector), the state
// restored after hide/show before the host answers, and screenshots in the dark and light themes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chatState, meter, richConversation } from './fixtures';
import type { TestWindow } from './harness';
import { assertClean, chatPagesForFile } from './chat-support';

const ARTIFACTS = resolve(import.meta.dirname ?? __dirname, '../../test-artifacts');

const { openWith } = chatPagesForFile();

test('a compaction divider shows before → after, strategy and trigger; Open transcript posts openTranscript, Undo compaction undoCompaction', async () => {
  const p = await openWith(richConversation());
  const divider = p.page.locator('.item.compaction');
  assert.equal(
    (await divider.textContent())?.replace(/\s+/g, ' ').trim(),
    'Compacted: 152,340 → 9,812 tokens · recursive-summarization · auto · 42 messages archived · Open transcript · Undo compaction',
  );
  await divider.getByRole('button', { name: /Open transcript/ }).click();
  await divider.getByRole('button', { name: 'Undo compaction' }).click();
  assert.deepEqual(await p.intents(), [
    { type: 'openTranscript', path: '/work/.transcripts/session-1/2026-11-22T10-00-00.jsonl' },
    { type: 'undoCompaction' },
  ]);
  await assertClean(p);
});

test('the context meter shows used / window and %, marks the auto-compact threshold and changes colour near it', async () => {
  const p = await openWith([], { context: meter(45_210, 200_000, 160_000) });
  const m = p.page.locator('.meter');
  assert.match((await m.textContent()) ?? '', /45,210 \/ 200,000 tokens · 23%.*auto-compact at 80%/);
  assert.equal(await m.getAttribute('class'), 'meter level-ok');
  const geometry = () =>
    p.page.evaluate(() => {
      const bar = document.querySelector('.meter-bar')!.getBoundingClientRect();
      const mark = document.querySelector('.meter-threshold')?.getBoundingClientRect();
      return { bar, mark: mark ? (mark.left + mark.width / 2 - bar.left) / bar.width : null };
    });
  const g = await geometry();
  assert.ok(g.mark !== null && Math.abs(g.mark - 0.8) < 0.02, `threshold mark at 80% of the bar (got ${g.mark})`);
  assert.equal(await p.page.locator('[role="meter"]').getAttribute('aria-valuenow'), '45210');

  await p.deliver({ type: 'context', context: meter(140_000, 200_000, 160_000) });
  await p.settle();
  assert.equal(await m.getAttribute('class'), 'meter level-warn');
  await p.deliver({ type: 'context', context: meter(170_000, 200_000, 160_000) });
  await p.settle();
  assert.equal(await m.getAttribute('class'), 'meter level-over');
  const colours = await p.page.evaluate(() => getComputedStyle(document.querySelector('.meter-fill')!).backgroundColor);
  assert.equal(colours, 'rgb(241, 76, 76)', 'over the threshold the bar takes the theme error colour');
  await p.deliver({ type: 'context', context: meter(10_000, 200_000, null) });
  await p.settle();
  assert.equal(await p.page.locator('.meter-threshold').count(), 0, 'no mark when auto-compact is off');
  assert.match((await m.textContent()) ?? '', /auto-compact off/);
  await assertClean(p);
});

test('an error that ended the turn offers Retry, which posts retry', async () => {
  const p = await openWith([
    { kind: 'user', id: 'u1', text: 'hi' },
    { kind: 'error', id: 'old', message: 'earlier failure', retryable: true },
    { kind: 'assistant', id: 'a1', text: 'recovered', streaming: false },
    { kind: 'error', id: 'e1', message: 'Overloaded (529)', retryable: true },
    { kind: 'notice', id: 'n1', message: 'Will not retry automatically.' },
  ]);
  assert.equal(await p.page.getByRole('button', { name: 'Retry' }).count(), 1, 'only the last error offers Retry');
  await p.page.getByRole('button', { name: 'Retry' }).click();
  assert.deepEqual(await p.intents(), [{ type: 'retry' }]);
  await assertClean(p);
});

test('toolbar: the API-key empty state, New chat, Compact with a focus prompt, Open inspector', async () => {
  const p = await openWith([], { hasApiKey: false });
  const empty = p.page.locator('.empty.api-key');
  assert.equal(await empty.count(), 1, 'without a key the view says so prominently');
  await empty.getByRole('button', { name: 'Set API key' }).click();
  await p.page.getByRole('button', { name: 'New chat' }).click();
  await p.page.getByRole('button', { name: 'Compact' }).click();
  const focus = p.page.getByRole('textbox', { name: 'Compaction focus (optional)' });
  await focus.fill('keep the tokenizer benchmark numbers');
  await focus.press('Enter');
  await p.page.getByRole('button', { name: 'Compact' }).click();
  await p.page.getByRole('button', { name: 'Compact now' }).click();
  await p.page.getByRole('button', { name: 'Inspector' }).click();
  assert.deepEqual(await p.intents(), [
    { type: 'setApiKey' },
    { type: 'newChat' },
    { type: 'compact', focus: 'keep the tokenizer benchmark numbers' },
    { type: 'compact' },
    { type: 'openInspector' },
  ]);
  await p.deliver({ type: 'state', state: chatState([], { hasApiKey: true }) });
  await p.settle();
  assert.equal(await p.page.locator('.empty.api-key').count(), 0);
  assert.equal(await p.page.locator('.empty.welcome').count(), 1);
  await p.deliver({ type: 'busy', busy: true, compacting: true });
  await p.settle();
  assert.equal(await p.page.locator('.status-line').textContent(), 'Compacting context…');
  assert.ok(await p.page.getByRole('button', { name: 'Compacting…' }).isDisabled());
  assert.equal(
    await p.page.locator('[role="status"][aria-live="polite"]').textContent(),
    'Compacting context…',
    'the live region announces it',
  );
  await assertClean(p);
});

test('state survives hide/show: after a reload the saved items render before the host answers', async () => {
  const p = await openWith(richConversation());
  await p.deliver({ type: 'delta', id: 'a2', text: ' (streamed tail)' });
  await p.page.getByRole('textbox', { name: 'Message' }).fill('half-written draft');
  await p.page.locator('article.card').filter({ hasText: 'read_file' }).locator('.card-header').click();
  await p.page.waitForFunction(() => {
    const s = (window as unknown as TestWindow).__vscodeTest.savedState() as
      { chat?: { items?: Array<{ text?: string }> }; ui?: { draft?: string } } | undefined;
    return s?.ui?.draft === 'half-written draft' && s.chat?.items?.some((i) => i.text?.endsWith('(streamed tail)'));
  });
  await p.page.reload();
  await p.page.waitForFunction(() => (window as unknown as TestWindow).__vscodeTest.posted.some((m) => m.type === 'ready'));
  // No 'state' delivered after the reload: everything below comes from the saved copy.
  const atReady = await p.page.evaluate(() => (window as unknown as TestWindow).__vscodeTest.rootTextAtReady);
  assert.match(atReady ?? '', /Make token counting faster/, "items were rendered before 'ready' was posted");
  assert.match(atReady ?? '', /Now I will run the tests\. \(streamed tail\)/);
  assert.equal(await p.page.locator('.item, .card').count(), richConversation().length);
  assert.equal(await p.page.getByRole('textbox', { name: 'Message' }).inputValue(), 'half-written draft');
  assert.equal(
    await p.page.locator('article.card').filter({ hasText: 'read_file' }).locator('.card-header').getAttribute('aria-expanded'),
    'true',
    'opened cards stay open',
  );
  assert.deepEqual(await p.posted(), [{ type: 'ready' }]);
  // The host's answer then replaces it.
  await p.deliver({ type: 'state', state: chatState([{ kind: 'user', id: 'u9', text: 'fresh session' }], { sessionId: 'session-2' }) });
  await p.settle();
  assert.deepEqual(await p.page.locator('.user-text').allTextContents(), ['fresh session']);
  await assertClean(p);
});

test('screenshots of a rendered conversation in dark and light themes', async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  for (const theme of ['dark', 'light'] as const) {
    const p = await openWith(
      richConversation(),
      { busy: true, context: meter(131_500, 200_000, 160_000) },
      { theme, width: 440, height: 1200 },
    );
    await p.page.locator('article.card').filter({ hasText: 'edit_file' }).locator('.card-header').click();
    await p.page.locator('.thinking-toggle').click();
    await p.page.getByRole('textbox', { name: 'Message' }).fill('Also add a benchmark for the cache hit rate');
    await p.page.locator('body').click({ position: { x: 2, y: 2 } });
    const jump = p.page.getByRole('button', { name: /Jump to latest/ });
    if (await jump.count()) await jump.click();
    await p.settle();
    await p.page.screenshot({ path: join(ARTIFACTS, `chat-${theme}.png`), animations: 'disabled' });
    const bg = await p.page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    assert.equal(bg, theme === 'dark' ? 'rgb(24, 24, 24)' : 'rgb(248, 248, 248)');
    await assertClean(p);
  }
});
