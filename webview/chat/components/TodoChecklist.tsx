// The agent's task list as a checklist above the composer: what the todo tool set, updated live while
// the agent works, and what every request carries outside the history (no compaction drops it). The
// user edits it too: toggle an item's status (pending -> in progress -> done), edit its text, add and
// remove items; each edit sends the whole list to the host.
import { useState } from 'preact/hooks';
import type { TodoItem, TodoStatus } from '../../../src/protocol';
import { useStore } from '../context';

const NEXT: Record<TodoStatus, TodoStatus> = { pending: 'in_progress', in_progress: 'done', done: 'pending' };
const MARK: Record<TodoStatus, string> = { pending: '☐', in_progress: '◐', done: '☑' };
const WORDS: Record<TodoStatus, string> = { pending: 'pending', in_progress: 'in progress', done: 'done' };

/** An id no item of `items` has (u1, u2, …). */
function freshId(items: readonly TodoItem[]): string {
  let n = items.length + 1;
  while (items.some((t) => t.id === `u${n}`)) n++;
  return `u${n}`;
}

export function TodoChecklist({ items }: { items: readonly TodoItem[] }) {
  const store = useStore();
  const [open, setOpen] = useState(true);
  const done = items.filter((t) => t.status === 'done').length;
  const replace = (id: string, change: Partial<TodoItem> | null) =>
    store.setTodo(change === null ? items.filter((t) => t.id !== id) : items.map((t) => (t.id === id ? { ...t, ...change } : t)));
  return (
    <section class="todo-checklist" aria-label="Task list" data-todo-count={items.length}>
      <div class="todo-head">
        <button type="button" class="todo-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
          Task list{' '}
          <span class="todo-progress" data-stat="todo-progress">
            {items.length === 0 ? 'empty' : `${done}/${items.length} done`}
          </span>
        </button>
        <span class="todo-note muted" title="Sent with every request, outside the history: no compaction drops it">
          kept outside compaction
        </span>
      </div>
      {open ? (
        <>
          <ul class="todo-items">
            {items.map((t) => (
              <TodoRow key={t.id} item={t} replace={replace} />
            ))}
          </ul>
          <AddTodo onAdd={(text) => store.setTodo([...items, { id: freshId(items), text, status: 'pending' }])} />
        </>
      ) : null}
    </section>
  );
}

function TodoRow({ item: t, replace }: { item: TodoItem; replace: (id: string, change: Partial<TodoItem> | null) => void }) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState('');
  const startEdit = () => {
    setDraft(t.text);
    setEditing(true);
  };
  const commitEdit = () => {
    const text = draft.trim();
    setEditing(false);
    if (text !== '' && text !== t.text) replace(t.id, { text });
  };
  return (
    <li class={`todo-item todo-${t.status}`} data-todo-id={t.id} data-status={t.status}>
      <button
        type="button"
        class="todo-status"
        data-action="todo-toggle"
        aria-label={`${t.text}: ${WORDS[t.status]}. Mark ${WORDS[NEXT[t.status]]}`}
        title={`${WORDS[t.status]} (click: ${WORDS[NEXT[t.status]]})`}
        onClick={() => replace(t.id, { status: NEXT[t.status] })}
      >
        {MARK[t.status]}
      </button>
      {editing ? (
        <input
          class="todo-edit"
          aria-label="Item text"
          value={draft}
          maxLength={1000}
          ref={(el) => el?.focus()}
          onInput={(e) => setDraft((e.target as HTMLInputElement).value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') commitEdit();
            if (e.key === 'Escape') setEditing(false);
          }}
          onBlur={commitEdit}
        />
      ) : (
        <span class="todo-text" onDblClick={startEdit}>
          {t.text}
        </span>
      )}
      <button type="button" class="todo-action" data-action="todo-edit" aria-label={`Edit "${t.text}"`} title="Edit" onClick={startEdit}>
        ✎
      </button>
      <button
        type="button"
        class="todo-action"
        data-action="todo-remove"
        aria-label={`Remove "${t.text}"`}
        title="Remove"
        onClick={() => replace(t.id, null)}
      >
        ✕
      </button>
    </li>
  );
}

function AddTodo({ onAdd }: { onAdd: (text: string) => void }) {
  const [adding, setAdding] = useState('');
  return (
    <form
      class="todo-add"
      onSubmit={(e) => {
        e.preventDefault();
        const text = adding.trim();
        if (text === '') return;
        onAdd(text);
        setAdding('');
      }}
    >
      <input
        class="todo-add-input"
        aria-label="New task"
        placeholder="Add a task…"
        value={adding}
        maxLength={1000}
        onInput={(e) => setAdding((e.target as HTMLInputElement).value)}
      />
      <button type="submit" class="todo-add-button" data-action="todo-add" disabled={adding.trim() === ''}>
        Add
      </button>
    </form>
  );
}
