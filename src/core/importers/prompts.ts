// What a person typed in an imported session: the genuine prompts of every context (archived and current),
// each counted once, plus the prompts a rollback later removed (ImportResult.rolledBackPrompts).
import { isTurnStart, type Message } from '../conversation/conversation';
import type { ImportResult } from './types';

export interface GenuinePromptCount {
  /** Every prompt a person typed, including the rolled-back ones. */
  total: number;
  /** Of those, the prompts a rollback (Codex) or a rewind or edit (Claude Code) removed from the conversation. */
  rolledBack: number;
}

/**
 * Genuine prompts of the whole session, each counted once: the turn starts of every context, leaving out
 * the copies that a compaction's summary carries into the next context (Codex replacement histories repeat
 * earlier prompts under new ids; a prompt kept under its own id, as a Claude Code preservedSegment keeps
 * it, is the same message), plus the rolled-back prompts.
 */
export function genuinePromptCount(session: Pick<ImportResult, 'messages' | 'compactions' | 'rolledBackPrompts'>): GenuinePromptCount {
  const seen = new Set<string>();
  const contexts: Message[][] = [...session.compactions.map((c) => c.before), session.messages];
  contexts.forEach((context, k) => {
    const carried = new Set(k === 0 ? [] : session.compactions[k - 1].summary.map((m) => m.id));
    for (const m of context) if (isTurnStart(m) && !carried.has(m.id)) seen.add(m.id);
  });
  let rolledBack = 0;
  for (const m of session.rolledBackPrompts ?? []) {
    if (seen.has(m.id)) continue;
    seen.add(m.id);
    rolledBack++;
  }
  return { total: seen.size, rolledBack };
}
