// Reading a session's compaction records: which compaction the current history comes from, and which
// one an undo would revert. An undo is recorded too (trigger 'undo'); it cancels the compaction before it.
import type { CompactionRecord } from '../session/session';

/** The compaction the current history comes from, if any (each undo cancels the compaction before it). */
export function compactionInEffect(compactions: readonly CompactionRecord[]): CompactionRecord | undefined {
  const inEffect: CompactionRecord[] = [];
  for (const c of compactions) {
    if (c.trigger === 'undo') inEffect.pop();
    else inEffect.push(c);
  }
  return inEffect[inEffect.length - 1];
}

export type UndoTarget = { ok: true; compaction: CompactionRecord } | { ok: false; message: string };

/** The compaction an undo would revert: the most recent one, unless it was already undone (one undo level). */
export function undoTarget(compactions: readonly CompactionRecord[]): UndoTarget {
  const last = [...compactions].reverse().find((c) => c.trigger !== 'undo');
  if (!last) return { ok: false, message: 'There is no compaction to undo.' };
  if (compactions[compactions.length - 1] !== last) return { ok: false, message: 'The last compaction was already undone.' };
  return { ok: true, compaction: last };
}

export function canUndo(compactions: readonly CompactionRecord[]): boolean {
  return undoTarget(compactions).ok;
}
