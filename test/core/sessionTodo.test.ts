// The task list's one shape check (the todo tool, the chat's edits and the session meta use it) and its
// place in the session meta: each problem names the field; a wrong list in a meta file is dropped with
// a warning naming file and field, the rest of the meta kept.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTodoItems, renderTodoLines, setSessionTodo, sessionTodo } from '../../src/core/session/sessionTodo';
import { parseSessionMeta } from '../../src/core/session/sessionMeta';
import { newSessionMeta, SessionLog } from '../../src/core/session/session';

test('parseTodoItems: ids default to the position, text is trimmed, every problem names its field', () => {
  assert.deepEqual(
    parseTodoItems([
      { text: ' first ', status: 'pending' },
      { id: 't1', text: 'second', status: 'done' },
    ]),
    { ok: false, error: 'items[1].id: "t1" is used by an earlier item' },
  );
  assert.deepEqual(
    parseTodoItems([
      { text: ' first ', status: 'pending' },
      { id: 7, text: 'second', status: 'in_progress' },
    ]),
    {
      ok: true,
      items: [
        { id: 't1', text: 'first', status: 'pending' },
        { id: '7', text: 'second', status: 'in_progress' },
      ],
    },
  );
  const cases: Array<[unknown, string]> = [
    [null, 'items: expected an array of { id?, text, status }, got null'],
    [[1], 'items[0]: expected an object { id?, text, status }, got number 1'],
    [[{ text: 'a', status: 'pending', owner: 'x' }], 'items[0].owner: unknown field (expected id, text, status)'],
    [[{ text: '  ', status: 'pending' }], 'items[0].text: expected a non-empty string, got "  "'],
    [[{ text: 'a', status: 'started' }], 'items[0].status: expected one of pending, in_progress, done, got "started"'],
    [[{ id: '', text: 'a', status: 'done' }], 'items[0].id: expected a string of 1-64 characters, got ""'],
  ];
  for (const [value, error] of cases) assert.deepEqual(parseTodoItems(value), { ok: false, error });
  assert.equal(renderTodoLines([{ id: 'a', text: 'x', status: 'in_progress' }]), '[~] x (id a)');
});

test('the session meta keeps the list; a wrong one is dropped with a warning naming file and field', () => {
  const good = { id: 's', title: 't', createdAt: 1, updatedAt: 2, compactions: [], todo: [{ id: 'a', text: 'x', status: 'done' }] };
  assert.deepEqual(parseSessionMeta(JSON.stringify(good), 's.meta.json', 's').meta.todo, [{ id: 'a', text: 'x', status: 'done' }]);
  const bad = parseSessionMeta(JSON.stringify({ ...good, todo: [{ text: 'x', status: 'maybe' }] }), 's.meta.json', 's');
  assert.equal(bad.meta.todo, undefined);
  assert.equal(bad.meta.title, 't');
  assert.deepEqual(bad.warnings, [
    's.meta.json:todo[0].status: expected one of pending, in_progress, done, got "maybe"; the task list is empty',
  ]);
  // Set through the session: persisted with the meta (one write), and unchanged lists write nothing.
  const writes: unknown[] = [];
  const session = new SessionLog(newSessionMeta('s2'), [], {
    append() {},
    rewrite() {},
    writeMeta: (m) => writes.push(structuredClone(m)),
  });
  assert.equal(setSessionTodo(session, [{ id: 'a', text: 'x', status: 'pending' }]), true);
  assert.equal(setSessionTodo(session, [{ id: 'a', text: 'x', status: 'pending' }]), false);
  assert.equal(writes.length, 1);
  assert.deepEqual(sessionTodo(session), [{ id: 'a', text: 'x', status: 'pending' }]);
});
