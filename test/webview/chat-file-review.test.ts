// File review in the chat, in headless Chromium: a pending edit's card keeps its compact diff and
// offers "Open diff" (posts openDiff with its id); the pending-edits list shows every waiting edit,
// each openable; a prompt with a file checkpoint offers "Restore files to before this prompt": the
// preview lists the files the host says would change back (each opens its diff), then Restore posts
// restoreFiles and the host's answer closes the panel; a failed restore shows why.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChatItem } from '../../src/protocol';
import { chatState } from './fixtures';
import { WebviewHarness } from './harness';

const edit = (id: string, path: string): ChatItem => ({
  kind: 'tool',
  id,
  name: 'edit_file',
  input: JSON.stringify({ path, old_string: '41', new_string: '42' }),
  status: 'awaiting-approval',
  diff: { path, unified: `--- a/${path}\n+++ b/${path}\n@@ -1 +1 @@\n-41\n+42\n`, isNewFile: false },
});

describe('file review in the chat', () => {
  let h: WebviewHarness;
  before(async () => {
    h = await WebviewHarness.start();
  });
  after(async () => {
    await h?.close();
  });

  test('a pending edit keeps its compact diff and "Open diff" posts openDiff; the pending list opens each edit', async () => {
    const p = await h.open();
    await p.deliver({
      type: 'state',
      state: chatState([{ kind: 'user', id: 'c1', text: 'Fix it', messageId: 'u1' }, edit('tu_1', 'app.ts')]),
    });
    await p.settle();
    const card = p.page.locator('article.card').first();
    assert.match((await card.locator('.diff, pre').first().textContent()) ?? '', /-41/);
    await card.getByRole('button', { name: 'Open the diff of app.ts in the editor' }).click();
    assert.deepEqual(await p.intents(), [{ type: 'openDiff', toolUseId: 'tu_1' }]);
    await p.clearPosted();

    assert.equal(await p.page.locator('.pending-edits').count(), 0, 'no list before the host sends one');
    await p.deliver({
      type: 'proposals',
      items: [
        { toolUseId: 'tu_1', path: 'app.ts', title: 'Edit app.ts' },
        { toolUseId: 'tu_2', path: 'src/b.ts', title: 'Create src/b.ts' },
      ],
    });
    await p.settle();
    const list = p.page.getByRole('region', { name: 'Edits waiting for approval' });
    assert.match((await list.textContent()) ?? '', /2 edits wait for approval/);
    await list.getByRole('button', { name: 'Open diff of src/b.ts' }).click();
    assert.deepEqual(await p.intents(), [{ type: 'openDiff', toolUseId: 'tu_2' }]);
    await p.deliver({ type: 'proposals', items: [] });
    await p.settle();
    assert.equal(await p.page.locator('.pending-edits').count(), 0, 'settled: the list goes');
    // A malformed list from the host is ignored, not rendered.
    await p.deliver({ type: 'proposals', items: [{ toolUseId: 1 }] } as never);
    await p.settle();
    assert.equal(await p.page.locator('.pending-edits').count(), 0);
  });

  test('"Restore files to before this prompt": preview of the files, each diff openable, then restore; only prompts with a checkpoint offer it', async () => {
    const p = await h.open();
    const items: ChatItem[] = [
      { kind: 'user', id: 'c1', text: 'First', messageId: 'u1', checkpoint: true },
      { kind: 'assistant', id: 'a1', text: 'Done.', streaming: false, messageId: 'r1' },
      { kind: 'user', id: 'c2', text: 'Just a question', messageId: 'u2' },
    ];
    await p.deliver({ type: 'state', state: chatState(items) });
    await p.settle();
    const restoreButtons = p.page.getByRole('button', { name: 'Restore files to before this prompt' });
    assert.equal(await restoreButtons.count(), 1, 'only the prompt with a checkpoint');
    await restoreButtons.click();
    assert.deepEqual(await p.intents(), [{ type: 'previewRestore', messageId: 'u1' }]);
    await p.settle();
    const panel = p.page.getByRole('group', { name: 'Restore files to before this prompt' });
    assert.match((await panel.textContent()) ?? '', /Comparing the files/);

    await p.clearPosted();
    await p.deliver({
      type: 'restorePlan',
      messageId: 'u1',
      files: [
        { path: 'app.ts', since: 'modified' },
        { path: 'src/new.ts', since: 'created' },
        { path: 'gone.md', since: 'deleted' },
      ],
    });
    await p.settle();
    const text = (await panel.textContent())?.replace(/\s+/g, ' ') ?? '';
    assert.match(text, /Restoring changes 3 files back/);
    assert.match(text, /src\/new\.ts \(created since: will be deleted\)/);
    assert.match(text, /gone\.md \(deleted since: will be recreated\)/);
    await panel.getByRole('button', { name: 'Diff of app.ts' }).click();
    await panel.getByRole('button', { name: 'Restore 3 files' }).click();
    assert.deepEqual(await p.intents(), [
      { type: 'openRestoreDiff', messageId: 'u1', path: 'app.ts' },
      { type: 'restoreFiles', messageId: 'u1' },
    ]);

    await p.deliver({
      type: 'restorePlan',
      messageId: 'u1',
      files: [{ path: 'app.ts', since: 'modified' }],
      error: 'The workspace changed since this restore was previewed; preview it again.',
    });
    await p.settle();
    assert.match((await panel.textContent()) ?? '', /changed since this restore was previewed/);

    await p.deliver({ type: 'restorePlan', messageId: 'u1', files: null });
    await p.settle();
    assert.equal(await panel.count(), 0, 'the host finished: the panel closes');
    assert.equal(await restoreButtons.count(), 1, 'the button is back');

    await restoreButtons.click();
    await p.deliver({ type: 'restorePlan', messageId: 'u1', files: [] });
    await p.settle();
    assert.match((await panel.textContent()) ?? '', /nothing to restore/);
    await panel.getByRole('button', { name: 'Close' }).click();
    await p.settle();
    assert.equal(await panel.count(), 0);
  });
});
