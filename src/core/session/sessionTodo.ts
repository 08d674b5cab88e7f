// The agent's task list (issue 23): one check of its shape for every reader (the todo tool's input,
// the chat's edits, the session meta), and where a session keeps it (its meta's `todo`). The list
// lives outside the history: no compaction sees it, every request carries it (standing context).
import { describe, isRecord } from '../conversation/messageShape';
import type { TodoItem, TodoStatus } from '../standing/types';
import type { SessionMeta } from './sessionTypes';

/** What the list needs of a session (its meta and how to persist it): structural, so no import cycle with session.ts. */
export interface TodoSession {
  readonly meta: SessionMeta;
  saveMeta(): void;
}

export const TODO_STATUSES: readonly TodoStatus[] = ['pending', 'in_progress', 'done'];
/** Most items a list may hold, and the longest item text / id: a larger list is not a plan, and it travels with every request. */
export const MAX_TODO_ITEMS = 100;
export const MAX_TODO_TEXT = 1_000;
export const MAX_TODO_ID = 64;

export type TodoParse = { ok: true; items: TodoItem[] } | { ok: false; error: string };

/**
 * Check a whole list: `[{ id?, text, status }]`. An item without an id gets `t<n>` (its position);
 * duplicate ids are an error. Each problem names the field (`items[2].status: …`).
 */
export function parseTodoItems(value: unknown, field = 'items'): TodoParse {
  const fail = (f: string, problem: string): TodoParse => ({ ok: false, error: `${f}: ${problem}` });
  if (!Array.isArray(value)) return fail(field, `expected an array of { id?, text, status }, got ${describe(value)}`);
  if (value.length > MAX_TODO_ITEMS) return fail(field, `${value.length} items, more than ${MAX_TODO_ITEMS}`);
  const items: TodoItem[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < value.length; i++) {
    const v: unknown = value[i];
    const at = `${field}[${i}]`;
    if (!isRecord(v)) return fail(at, `expected an object { id?, text, status }, got ${describe(v)}`);
    const extra = Object.keys(v).find((k) => k !== 'id' && k !== 'text' && k !== 'status');
    if (extra !== undefined) return fail(`${at}.${extra}`, 'unknown field (expected id, text, status)');
    if (typeof v.text !== 'string' || v.text.trim() === '')
      return fail(`${at}.text`, `expected a non-empty string, got ${describe(v.text)}`);
    if (v.text.length > MAX_TODO_TEXT) return fail(`${at}.text`, `${v.text.length} characters, more than ${MAX_TODO_TEXT}`);
    if (!TODO_STATUSES.includes(v.status as TodoStatus))
      return fail(`${at}.status`, `expected one of ${TODO_STATUSES.join(', ')}, got ${describe(v.status)}`);
    let id: string;
    if (v.id === undefined) {
      id = `t${i + 1}`;
      while (seen.has(id)) id = `${id}'`;
    } else if (typeof v.id === 'string' && v.id.trim() !== '' && v.id.length <= MAX_TODO_ID) id = v.id;
    else if (typeof v.id === 'number' && Number.isInteger(v.id)) id = String(v.id);
    else return fail(`${at}.id`, `expected a string of 1-${MAX_TODO_ID} characters, got ${describe(v.id)}`);
    if (seen.has(id)) return fail(`${at}.id`, `"${id}" is used by an earlier item`);
    seen.add(id);
    items.push({ id, text: v.text.trim(), status: v.status as TodoStatus });
  }
  return { ok: true, items };
}

/** The session's current task list (a copy; empty when none was set). */
export function sessionTodo(session: Pick<TodoSession, 'meta'>): TodoItem[] {
  return (session.meta.todo ?? []).map((t) => ({ ...t }));
}

/** Replace the session's task list and persist it with the meta (fires a meta change); false when unchanged. */
export function setSessionTodo(session: TodoSession, items: readonly TodoItem[]): boolean {
  const next = items.map((t) => ({ id: t.id, text: t.text, status: t.status }));
  if (JSON.stringify(next) === JSON.stringify(session.meta.todo ?? [])) return false;
  session.meta.todo = next;
  session.saveMeta();
  return true;
}

/** The list as the model and the user read it: one line per item, `[x]` done, `[~]` in progress, `[ ]` pending. */
export function renderTodoLines(items: readonly TodoItem[]): string {
  const mark = (s: TodoStatus) => (s === 'done' ? '[x]' : s === 'in_progress' ? '[~]' : '[ ]');
  return items.map((t) => `${mark(t.status)} ${t.text} (id ${t.id})`).join('\n');
}
