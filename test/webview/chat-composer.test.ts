// The composer in headless Chromium: Enter sends, Shift+Enter adds a line, and while busy Send becomes
// Stop (the draft is kept); `@` asks the host for the workspace's files and opens a fuzzy picker
// driven from the keyboard (arrows, Enter / Tab, Escape), a pick becomes a chip and goes out as
// `mentions`; an image pasted or dropped (a real PNG / JPEG from the page's canvas encoder) shows as a
// thumbnail and goes out as an image the host accepts; a sent prompt shows its files and images, and
// only data: image URLs render.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChatToHost } from '../../src/protocol';
import { parseChatToHost } from '../../src/protocol/validation';
import { base64ImageInfo } from '../../src/core/index';
import { chatState } from './fixtures';
import type { WebviewPage } from './harness';
import { assertClean, chatPagesForFile } from './chat-support';

const FILES = [
  'README.md',
  'src/agent/agent.ts',
  'src/agent/controller.ts',
  'src/core/tokens.ts',
  'src/protocol.ts',
  'test/agent/agent.test.ts',
];

const { open, openWith } = chatPagesForFile();

async function openComposer(): Promise<WebviewPage> {
  const p = await open();
  await p.deliver({ type: 'state', state: chatState([]) });
  await p.settle();
  await p.clearPosted();
  return p;
}

const sends = async (p: WebviewPage) => (await p.intents()).filter((m): m is Extract<ChatToHost, { type: 'send' }> => m.type === 'send');

test('Enter sends, Shift+Enter adds a line; while busy Send becomes Stop, which posts stop', async () => {
  const p = await openWith([]);
  const box = p.page.getByRole('textbox', { name: 'Message' });
  await box.click();
  await box.press('Enter');
  assert.deepEqual(await p.intents(), [], 'an empty message is not sent');
  await box.pressSequentially('first line');
  await box.press('Shift+Enter');
  await box.pressSequentially('second line');
  await box.press('Enter');
  assert.deepEqual(await p.intents(), [{ type: 'send', text: 'first line\nsecond line' }]);
  assert.equal(await box.inputValue(), '', 'the box empties after sending');

  await p.deliver({ type: 'busy', busy: true, compacting: false });
  await p.settle();
  assert.equal(await p.page.getByRole('button', { name: 'Send message' }).count(), 0, 'no Send while busy');
  await box.pressSequentially('typed while busy');
  await box.press('Enter');
  assert.equal(await box.inputValue(), 'typed while busy', 'the draft is kept while busy');
  await p.page.getByRole('button', { name: 'Stop the agent' }).click();
  await box.press('Escape');
  assert.deepEqual((await p.intents()).slice(1), [{ type: 'stop' }, { type: 'stop' }]);
  assert.equal(await p.page.locator('.status-line').textContent(), 'Working…');

  await p.deliver({ type: 'busy', busy: false, compacting: false });
  await p.settle();
  await p.page.getByRole('button', { name: 'Send message' }).click();
  assert.deepEqual((await p.intents()).at(-1), { type: 'send', text: 'typed while busy' });
  // focusInput puts the caret in the box.
  await p.page.getByRole('button', { name: 'New chat' }).focus();
  await p.deliver({ type: 'focusInput' });
  assert.ok(await box.evaluate((el) => el === document.activeElement));
  await assertClean(p);
});

test('@ lists the files once, ranks them as typed; arrows move, Enter picks a chip; Escape closes; the send carries the mentions', async () => {
  const p = await openComposer();
  const box = p.page.getByRole('textbox', { name: 'Message' });
  await box.click();
  await box.pressSequentially('Explain @');
  assert.deepEqual(await p.intents(), [{ type: 'listFiles' }], 'the picker asked the host for the files');
  const picker = p.page.getByRole('listbox', { name: 'Workspace files' });
  assert.equal(await picker.locator('.mention-note').count(), 0);
  assert.match((await p.page.locator('.mention-picker').textContent()) ?? '', /Listing the workspace/);
  await p.deliver({ type: 'files', files: FILES, truncated: false });
  await p.settle();
  assert.equal(await picker.getByRole('option').count(), FILES.length);
  await box.pressSequentially('agts');
  const options = () => picker.getByRole('option').allTextContents();
  assert.deepEqual((await options()).slice(0, 2), ['src/agent/agent.ts', 'test/agent/agent.test.ts']);
  assert.equal(await picker.getByRole('option', { selected: true }).textContent(), 'src/agent/agent.ts');
  await box.press('ArrowDown');
  assert.equal(await picker.getByRole('option', { selected: true }).textContent(), 'test/agent/agent.test.ts');
  assert.equal(await box.getAttribute('aria-activedescendant'), 'mention-option-1');
  await box.press('ArrowUp');
  await box.press('ArrowUp'); // wraps to the last
  assert.equal(await picker.getByRole('option', { selected: true }).textContent(), (await options()).at(-1));
  await box.press('ArrowDown');
  await box.press('Enter');
  assert.equal(await picker.count(), 0, 'the picker closed');
  assert.equal(await box.inputValue(), 'Explain @src/agent/agent.ts ');
  assert.equal(await p.page.locator('.composer .mention-chip').textContent(), '@src/agent/agent.ts×');

  await box.pressSequentially('and @proto');
  assert.equal(await picker.getByRole('option', { selected: true }).textContent(), 'src/protocol.ts');
  await box.press('Escape');
  assert.equal(await picker.count(), 0, 'Escape closes the picker');
  await box.pressSequentially(' and @tok');
  await box.press('Tab');
  assert.equal(await box.inputValue(), 'Explain @src/agent/agent.ts and @proto and @src/core/tokens.ts ');
  assert.deepEqual(await p.page.locator('.composer .mention-chip').allTextContents(), ['@src/agent/agent.ts×', '@src/core/tokens.ts×']);
  await p.page.getByRole('button', { name: 'Remove @src/core/tokens.ts' }).click();
  await box.press('Enter');
  const [sent] = await sends(p);
  assert.deepEqual(sent, {
    type: 'send',
    text: 'Explain @src/agent/agent.ts and @proto and @src/core/tokens.ts ',
    mentions: ['src/agent/agent.ts'],
  });
  assert.deepEqual(parseChatToHost(sent), sent, 'the host accepts it');
  assert.equal((await p.intents()).filter((m) => m.type === 'listFiles').length, 3, 'asked again each time the picker opened');
  assert.equal(await p.page.locator('.composer .mention-chip').count(), 0, 'chips cleared after sending');
  assert.deepEqual(p.pageErrors, []);
});

test('a pasted PNG and a dropped JPEG show as thumbnails and are sent as images the host accepts; Send works with images alone', async () => {
  const p = await openComposer();
  const box = p.page.getByRole('textbox', { name: 'Message' });
  await box.click();
  // No named functions inside evaluate (the test bundler would wrap them in a helper the page lacks).
  await box.evaluate(async (el) => {
    const files: File[] = [];
    for (const [type, w, hgt, name] of [
      ['image/png', 300, 150, 'shot.png'],
      ['image/jpeg', 64, 48, 'photo.jpg'],
    ] as const) {
      const c = document.createElement('canvas');
      c.width = w;
      c.height = hgt;
      const g = c.getContext('2d')!;
      g.fillStyle = '#c33';
      g.fillRect(0, 0, w, hgt);
      const blob = await new Promise<Blob>((r) => c.toBlob((b) => r(b!), type));
      files.push(new File([blob], name, { type }));
    }
    const paste = new DataTransfer();
    paste.items.add(files[0]!);
    el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: paste, bubbles: true, cancelable: true }));
    const drop = new DataTransfer();
    drop.items.add(files[1]!);
    drop.items.add(new File(['plain text'], 'notes.txt', { type: 'text/plain' }));
    el.dispatchEvent(new DragEvent('drop', { dataTransfer: drop, bubbles: true, cancelable: true }));
  });
  await p.page.locator('.composer .image-thumb img').nth(1).waitFor();
  const thumbs = p.page.locator('.composer .image-thumb img');
  assert.equal(await thumbs.count(), 2);
  assert.match((await thumbs.first().getAttribute('src')) ?? '', /^data:image\/png;base64,iVBORw0KGgo/);
  assert.ok(await thumbs.first().evaluate((img) => (img as HTMLImageElement).naturalWidth === 300), 'the thumbnail loaded under the CSP');
  assert.match((await p.page.locator('#composer-hint').textContent()) ?? '', /notes\.txt is not a PNG, JPEG, GIF or WebP image/);
  const send = p.page.getByRole('button', { name: 'Send message' });
  assert.equal(await send.isDisabled(), false, 'images alone can be sent');
  await send.click();
  const [sent] = await sends(p);
  assert.ok(sent);
  assert.equal(sent.text, '');
  assert.deepEqual(
    sent.images?.map((i) => i.mediaType),
    ['image/png', 'image/jpeg'],
  );
  assert.deepEqual(base64ImageInfo(sent.images![0]!.data), { mediaType: 'image/png', width: 300, height: 150 });
  assert.deepEqual(base64ImageInfo(sent.images![1]!.data), { mediaType: 'image/jpeg', width: 64, height: 48 });
  assert.deepEqual(parseChatToHost(sent), sent, 'the host accepts it');
  assert.equal(await thumbs.count(), 0, 'thumbnails cleared after sending');
  assert.deepEqual(p.pageErrors, []);
});

test('a sent prompt shows its files and images; an image URL that is not a data: image is not rendered', async () => {
  const p = await open();
  const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
  await p.deliver({
    type: 'state',
    state: chatState([
      {
        kind: 'user',
        id: 'chat_u1',
        text: 'Look at this',
        files: ['src/a.ts'],
        images: [`data:image/png;base64,${png}`, 'https://evil.example/x.png', 'data:image/svg+xml;base64,PHN2Zz48L3N2Zz4='],
      },
    ]),
  });
  await p.settle();
  const prompt = p.page.locator('article.item.user');
  assert.equal(await prompt.locator('.mention-chip').textContent(), '@src/a.ts');
  assert.deepEqual(await prompt.locator('img').evaluateAll((imgs) => imgs.map((i) => i.getAttribute('src'))), [
    `data:image/png;base64,${png}`,
  ]);
  assert.deepEqual(p.unexpectedRequests(), [], 'nothing was fetched');
  assert.deepEqual(p.pageErrors, []);
});
