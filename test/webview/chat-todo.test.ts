// The task list checklist in the chat view (headless Chromium): it follows the host's 'todo' messages
// (live, while the agent works), and the user's edits (toggle a status, edit a text, add, remove) each
// post the whole new list as 'setTodo', which the host's validator accepts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChatItem, TodoItem } from '../../src/protocol';
import { parseChatToHost } from '../../src/protocol/validation';
import { chatState } from './fixtures';
import { WebviewHarness, type WebviewPage } from './harness';

const LIST: TodoItem[] = [
  { id: 'p1', text: 'Read the failing test', status: 'done' },
  { id: 'p2', text: 'Fix add() in math.ts', status: 'in_progress' },
  { id: 'p3', text: 'Run the whole suite', status: 'pending' },
];

const ITEMS: ChatItem[] = [{ kind: 'user', id: 'chat_u1', messageId: 'u_1', text: 'Fix the add bug.' }];

describe('chat task list in headless Chromium', () => {
  let h: WebviewHarness;
  before(async () => {
    h = await WebviewHarness.start();
  });
  after(async () => {
    await h?.close();
  });

  async function open(list: TodoItem[]): Promise<WebviewPage> {
    const p = await h.open();
    await p.deliver({ type: 'state', state: { ...chatState(ITEMS), busy: true } });
    await p.deliver({ type: 'todo', items: list });
    await p.settle();
    await p.clearPosted();
    return p;
  }

  /** The last setTodo the page posted, checked by the host's validator (it must accept it as sent). */
  async function lastSetTodo(p: WebviewPage): Promise<TodoItem[]> {
    const posted = (await p.intents()).filter((m) => (m as { type: string }).type === 'setTodo');
    assert.ok(posted.length > 0, 'setTodo was posted');
    const msg = posted.at(-1);
    assert.deepEqual(parseChatToHost(msg), msg, 'the host accepts the edit as sent');
    return (msg as { items: TodoItem[] }).items;
  }

  const rows = (p: WebviewPage) =>
    p.page
      .locator('.todo-item')
      .evaluateAll((els) => els.map((e) => `${e.getAttribute('data-status')} ${e.querySelector('.todo-text')?.textContent ?? ''}`));

  test('the checklist shows the list and follows the host while the agent works; hidden while the list is empty', async () => {
    const p = await open([]);
    assert.equal(await p.page.locator('.todo-checklist').count(), 0);
    await p.deliver({ type: 'todo', items: LIST.slice(0, 2) });
    await p.settle();
    assert.deepEqual(await rows(p), ['done Read the failing test', 'in_progress Fix add() in math.ts']);
    assert.equal(await p.page.locator('[data-stat="todo-progress"]').textContent(), '1/2 done');
    // The agent's next todo call during the same turn replaces the list.
    await p.deliver({ type: 'todo', items: LIST.map((t) => ({ ...t, status: 'done' as const })) });
    await p.settle();
    assert.deepEqual(await rows(p), ['done Read the failing test', 'done Fix add() in math.ts', 'done Run the whole suite']);
    assert.equal(await p.page.locator('[data-stat="todo-progress"]').textContent(), '3/3 done');
    assert.match((await p.page.locator('.todo-note').textContent()) ?? '', /outside compaction/);
    assert.deepEqual(p.pageErrors, []);
  });

  test('toggle, edit, add and remove each post the whole list', async () => {
    const p = await open(LIST);
    // Toggle: pending -> in progress.
    await p.page.getByRole('button', { name: /^Run the whole suite: pending\. Mark in progress/ }).click();
    assert.deepEqual(
      (await lastSetTodo(p)).map((t) => t.status),
      ['done', 'in_progress', 'in_progress'],
    );
    await p.settle();
    // Edit a text (Enter commits).
    await p.page.getByRole('button', { name: 'Edit "Fix add() in math.ts"' }).click();
    const input = p.page.getByRole('textbox', { name: 'Item text' });
    await input.fill('Fix add() and sub() in math.ts');
    await input.press('Enter');
    assert.deepEqual((await lastSetTodo(p)).find((t) => t.id === 'p2')?.text, 'Fix add() and sub() in math.ts');
    await p.settle();
    // Add a task: a new id, pending.
    await p.page.getByRole('textbox', { name: 'New task' }).fill('Add a regression test');
    await p.page.getByRole('button', { name: 'Add', exact: true }).click();
    const added = await lastSetTodo(p);
    assert.equal(added.length, 4);
    assert.deepEqual(added[3], { id: 'u4', text: 'Add a regression test', status: 'pending' });
    await p.settle();
    // Remove one.
    await p.page.getByRole('button', { name: 'Remove "Read the failing test"' }).click();
    assert.deepEqual(
      (await lastSetTodo(p)).map((t) => t.id),
      ['p2', 'p3', 'u4'],
    );
    await p.settle();
    assert.deepEqual(await rows(p), [
      'in_progress Fix add() and sub() in math.ts',
      'in_progress Run the whole suite',
      'pending Add a regression test',
    ]);
    assert.deepEqual(p.pageErrors, []);
  });
});
