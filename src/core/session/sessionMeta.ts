// Session meta files (`<id>.meta.json`) are input like any other: a hand edit, a bad merge or another
// version may leave any shape. Each field is checked; a wrong one is replaced by a default (or a bad
// compaction record dropped) with a warning that names file and field, so Resume, Undo and the
// inspector never meet a wrong-shaped meta (no "compactions is not iterable").
import { errorMessage } from '../base/errors';
import { describe, isFiniteNumber, isRecord } from '../conversation/messageShape';
import type { CompactionRecord, SessionMeta } from './sessionTypes';
import { parseTodoItems } from './sessionTodo';
import { parseKeptInstructions } from '../standing/keptInstructions';

const TRIGGERS: readonly CompactionRecord['trigger'][] = ['auto', 'manual', 'tool', 'inspector', 'undo'];

export interface ParsedSessionMeta {
  meta: SessionMeta;
  /** `file:field: problem; what was used instead`, one per repaired field. */
  warnings: string[];
}

/** Parse and validate a meta file's text; never throws. `id` is the session the file belongs to. */
export function parseSessionMeta(text: string, file: string, id: string, now = Date.now()): ParsedSessionMeta {
  const warnings: string[] = [];
  const warn = (field: string, problem: string, fix: string) => warnings.push(`${file}:${field}: ${problem}; ${fix}`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    warn('(file)', `invalid JSON (${errorMessage(e)})`, 'using a new meta (title "New chat", no compactions)');
    return { meta: { id, title: 'New chat', createdAt: now, updatedAt: now, compactions: [] }, warnings };
  }
  if (!isRecord(value)) {
    warn('(file)', `expected an object, got ${describe(value)}`, 'using a new meta (title "New chat", no compactions)');
    return { meta: { id, title: 'New chat', createdAt: now, updatedAt: now, compactions: [] }, warnings };
  }
  if (value.id !== id) warn('id', `expected "${id}", got ${describe(value.id)}`, `using "${id}"`);
  const title =
    typeof value.title === 'string'
      ? value.title
      : (warn('title', `expected a string, got ${describe(value.title)}`, 'using "New chat"'), 'New chat');
  const createdAt = timeField(value.createdAt, 'createdAt', now, warn);
  const updatedAt = timeField(value.updatedAt, 'updatedAt', createdAt, warn);
  const compactions: CompactionRecord[] = [];
  if (!Array.isArray(value.compactions)) {
    warn('compactions', `expected an array, got ${describe(value.compactions)}`, 'no compactions are listed (undo is unavailable)');
  } else {
    value.compactions.forEach((c, i) => {
      const problem = compactionRecordProblem(c);
      if (problem) warn(`compactions[${i}]${problem.field}`, problem.message, 'record dropped (it cannot be undone)');
      else compactions.push(c as CompactionRecord);
    });
  }
  const pinned = pinnedField(value.pinned, warn);
  const todo = value.todo === undefined ? undefined : parseTodoItems(value.todo, 'todo');
  if (todo && !todo.ok) warn(todo.error.split(':')[0], todo.error.slice(todo.error.indexOf(':') + 2), 'the task list is empty');
  const todoField = todo?.ok && todo.items.length > 0 ? { todo: todo.items } : {};
  const kept = value.keptInstructions === undefined ? undefined : parseKeptInstructions(value.keptInstructions);
  for (const p of kept?.problems ?? []) warn(p.split(':')[0], p.slice(p.indexOf(':') + 2), 'that entry is not kept');
  const keptField = kept && kept.items.length > 0 ? { keptInstructions: kept.items } : {};
  const meta = { id, title, createdAt, updatedAt, compactions, ...(pinned ? { pinned } : {}), ...todoField, ...keptField };
  return { meta, warnings };
}

/** Most pins a meta may hold, and the longest id: a larger value is not a pin set Splitpoint wrote. */
export const MAX_PINS = 10_000;
export const MAX_PIN_ID_LENGTH = 200;

/** `pinned`: absent, or an array of message ids; wrong entries are dropped with a warning naming the index. */
function pinnedField(v: unknown, warn: (f: string, p: string, fix: string) => void): string[] | undefined {
  if (v === undefined) return undefined;
  if (!Array.isArray(v)) {
    warn('pinned', `expected an array of message ids, got ${describe(v)}`, 'no message is pinned');
    return undefined;
  }
  if (v.length > MAX_PINS) warn('pinned', `${v.length} ids, more than ${MAX_PINS}`, `only the first ${MAX_PINS} are kept`);
  const out: string[] = [];
  v.slice(0, MAX_PINS).forEach((id, i) => {
    if (typeof id === 'string' && id.length > 0 && id.length <= MAX_PIN_ID_LENGTH) {
      if (!out.includes(id)) out.push(id);
    } else warn(`pinned[${i}]`, `expected a message id (1-${MAX_PIN_ID_LENGTH} chars), got ${describe(id)}`, 'pin dropped');
  });
  return out;
}

function timeField(v: unknown, field: string, fallback: number, warn: (f: string, p: string, fix: string) => void): number {
  if (isFiniteNumber(v) && v >= 0) return v;
  warn(field, `expected a time in epoch ms, got ${describe(v)}`, `using ${fallback}`);
  return fallback;
}

/** The first wrong field of a compaction record (`.field` and what is wrong), or null if it is well-formed. */
export function compactionRecordProblem(c: unknown): { field: string; message: string } | null {
  if (!isRecord(c)) return { field: '', message: `expected an object, got ${describe(c)}` };
  const strings = ['id', 'strategy', 'transcriptPath'] as const;
  for (const k of strings) if (typeof c[k] !== 'string') return { field: `.${k}`, message: `expected a string, got ${describe(c[k])}` };
  const counts = ['at', 'tokensBefore', 'tokensAfter', 'archivedCount', 'truncatedCount', 'resultLength'] as const;
  for (const k of counts)
    if (!isFiniteNumber(c[k]) || (c[k] as number) < 0) return { field: `.${k}`, message: `expected a number >= 0, got ${describe(c[k])}` };
  if (!Number.isInteger(c.resultLength)) return { field: '.resultLength', message: `expected an integer, got ${describe(c.resultLength)}` };
  if (!TRIGGERS.includes(c.trigger as CompactionRecord['trigger']))
    return { field: '.trigger', message: `expected one of ${TRIGGERS.join(', ')}, got ${describe(c.trigger)}` };
  if (!isRecord(c.params) || Object.values(c.params).some((v) => !isFiniteNumber(v)))
    return { field: '.params', message: `expected an object of numbers, got ${describe(c.params)}` };
  for (const k of ['syntheticId', 'tailStartId'] as const)
    if (c[k] !== null && typeof c[k] !== 'string') return { field: `.${k}`, message: `expected a string or null, got ${describe(c[k])}` };
  for (const k of ['focus', 'draft', 'finalText'] as const)
    if (c[k] !== undefined && typeof c[k] !== 'string') return { field: `.${k}`, message: `expected a string, got ${describe(c[k])}` };
  if (c.transcriptSha256 !== undefined && (typeof c.transcriptSha256 !== 'string' || !/^[0-9a-f]{64}$/.test(c.transcriptSha256)))
    return { field: '.transcriptSha256', message: `expected 64 hex digits, got ${describe(c.transcriptSha256)}` };
  return null;
}
