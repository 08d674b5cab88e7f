// Standing instructions in the chat view (headless Chromium, issue 23): the header naming the sources
// every request carries (sent, listed only in an untrusted workspace, cut), "Allow instruction files",
// and "Keep" on a prompt next to its pin: what each posts, and the marks that follow the host's list.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChatItem, InstructionInfo } from '../../src/protocol';
import { chatState } from './fixtures';
import { WebviewHarness, type WebviewPage } from './harness';

function conversation(): ChatItem[] {
  return [
    { kind: 'user', id: 'chat_u1', messageId: 'u_1', text: 'Always answer in British English.' },
    { kind: 'assistant', id: 'chat_a1', messageId: 'a_1', text: 'Understood.', streaming: false },
    { kind: 'user', id: 'chat_u2', messageId: 'u_2', text: 'Now refactor the parser.' },
  ];
}

const file = (name: string, sent: boolean, truncated = false): InstructionInfo => ({
  name,
  kind: 'file',
  sent,
  truncated,
  chars: truncated ? 15_986 : sent ? 120 : 0,
  originalChars: truncated ? 21_900 : 120,
});

describe('chat standing instructions in headless Chromium', () => {
  let h: WebviewHarness;
  before(async () => {
    h = await WebviewHarness.start();
  });
  after(async () => {
    await h?.close();
  });

  async function open(): Promise<WebviewPage> {
    const p = await h.open();
    await p.deliver({ type: 'state', state: chatState(conversation()) });
    await p.settle();
    await p.clearPosted();
    return p;
  }

  test('the header names the instruction files in force: sent, cut, listed only; nothing shows without any', async () => {
    const p = await open();
    assert.equal(await p.page.locator('.instructions-header').count(), 0, 'no header without instructions');
    await p.deliver({
      type: 'instructions',
      items: [file('AGENTS.md', true), file('CLAUDE.md', true, true), file('packages/api/AGENTS.md', true)],
      listedOnly: false,
    });
    await p.settle();
    const header = p.page.getByRole('region', { name: 'Standing instructions' });
    const names = await header.locator('.instruction-name').allTextContents();
    assert.deepEqual(names, ['AGENTS.md', 'CLAUDE.md', 'packages/api/AGENTS.md']);
    const cut = header.locator('li[data-name="CLAUDE.md"]');
    assert.match((await cut.textContent()) ?? '', /\(cut\)/);
    assert.equal(await cut.getAttribute('title'), 'CLAUDE.md (cut: 15,986 of 21,900 characters sent)');
    assert.equal(await header.getByRole('button', { name: 'Allow instruction files' }).count(), 0, 'trusted: nothing to allow');
    assert.deepEqual(p.pageErrors, []);
  });

  test('untrusted: files are marked "not sent" and "Allow instruction files" posts allowInstructions', async () => {
    const p = await open();
    await p.deliver({ type: 'instructions', items: [file('AGENTS.md', false)], listedOnly: true });
    await p.settle();
    const item = p.page.locator('.instructions-header li[data-name="AGENTS.md"]');
    assert.equal(await item.getAttribute('data-sent'), 'false');
    assert.match((await item.textContent()) ?? '', /\(not sent\)/);
    await p.page.getByRole('button', { name: 'Allow instruction files' }).click();
    assert.deepEqual(await p.intents(), [{ type: 'allowInstructions' }]);
    await p.deliver({ type: 'instructions', items: [file('AGENTS.md', true)], listedOnly: false });
    await p.settle();
    assert.equal(await item.getAttribute('data-sent'), 'true');
    assert.equal(await p.page.getByRole('button', { name: 'Allow instruction files' }).count(), 0);
  });

  test('"Keep" on a prompt (next to its pin) posts keepAsInstruction; the host\'s list marks it; × in the header removes it', async () => {
    const p = await open();
    const prompt = p.page.locator('article.item.user').filter({ hasText: 'British English' });
    const keep = prompt.getByRole('button', { name: /^Keep your message as an instruction/ });
    assert.equal(await keep.evaluate((b) => getComputedStyle(b).opacity), '0', 'hidden until hover');
    await prompt.hover();
    assert.equal(await keep.evaluate((b) => getComputedStyle(b).opacity), '1');
    await keep.click();
    assert.deepEqual(await p.intents(), [{ type: 'keepAsInstruction', messageId: 'u_1' }]);
    const kept: InstructionInfo = {
      name: 'Kept from the chat (1)',
      kind: 'chat',
      sent: true,
      truncated: false,
      chars: 32,
      originalChars: 32,
      messageId: 'u_1',
    };
    await p.deliver({ type: 'instructions', items: [file('AGENTS.md', true), kept], listedOnly: false });
    await p.settle();
    const marked = prompt.getByRole('button', { name: /^Stop keeping your message/ });
    assert.equal(await marked.getAttribute('aria-pressed'), 'true');
    assert.equal((await marked.textContent())?.trim(), 'Instruction');
    await p.page.mouse.move(0, 0);
    assert.equal(await marked.evaluate((b) => getComputedStyle(b).opacity), '1', 'the mark stays without hover');
    assert.match((await p.page.locator('[role="status"]').textContent()) ?? '', /Kept as an instruction/);
    // The other prompt is not marked; the assistant's message has no Keep button.
    assert.deepEqual(await p.page.locator('.keep-button').evaluateAll((bs) => bs.map((b) => b.getAttribute('data-message-id'))), [
      'u_1',
      'u_2',
    ]);
    assert.equal(await p.page.locator('.keep-button.kept').count(), 1);
    await p.clearPosted();
    await p.page.getByRole('button', { name: 'Stop sending Kept from the chat (1) as an instruction' }).click();
    assert.deepEqual(await p.intents(), [{ type: 'removeInstruction', messageId: 'u_1' }]);
    await p.clearPosted();
    await marked.click();
    assert.deepEqual(await p.intents(), [{ type: 'removeInstruction', messageId: 'u_1' }]);
  });

  test('a malformed instructions message is dropped without breaking the view', async () => {
    const p = await open();
    await p.page.evaluate(() => window.postMessage({ type: 'instructions', items: [{ name: 1 }], listedOnly: false }, '*'));
    await p.page.evaluate(() => window.postMessage({ type: 'instructions', items: [], listedOnly: 'no' }, '*'));
    await p.settle();
    assert.equal(await p.page.locator('.instructions-header').count(), 0);
    assert.deepEqual(p.pageErrors, []);
  });
});
