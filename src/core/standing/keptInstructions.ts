// Prompts the user kept as instructions ("keep as instruction" on a chat prompt, or on an archived
// prompt in the inspector's ledger): stored in the session meta's `keptInstructions`, sent with every
// request in the standing section (outside the history, so no compaction can archive them). The
// prompt stays in the history too: the conversation reads as it happened, and undoing a keep loses
// nothing. Removable; at most MAX_KEPT, each at most MAX_KEPT_TEXT characters.
import { describe, isFiniteNumber, isRecord } from '../conversation/messageShape';
import type { InstructionSource } from './types';

export interface KeptInstruction {
  /** The prompt it came from. */
  messageId: string;
  text: string;
  /** When it was kept (epoch ms). */
  at: number;
}

export const MAX_KEPT = 50;

/** What these functions need of a SessionLog (structural: no import of the session module, no cycle). */
interface MetaHolder {
  readonly meta: { keptInstructions?: KeptInstruction[] };
  saveMeta(): void;
}
export const MAX_KEPT_TEXT = 16_000;

/** Check the meta field; wrong entries are dropped with a problem naming `keptInstructions[i].field`. */
export function parseKeptInstructions(value: unknown, field = 'keptInstructions'): { items: KeptInstruction[]; problems: string[] } {
  const problems: string[] = [];
  if (!Array.isArray(value)) return { items: [], problems: [`${field}: expected an array, got ${describe(value)}`] };
  const items: KeptInstruction[] = [];
  value.slice(0, MAX_KEPT).forEach((v: unknown, i) => {
    const at = `${field}[${i}]`;
    if (!isRecord(v)) problems.push(`${at}: expected an object { messageId, text, at }, got ${describe(v)}`);
    else if (typeof v.messageId !== 'string' || v.messageId === '')
      problems.push(`${at}.messageId: expected a message id, got ${describe(v.messageId)}`);
    else if (typeof v.text !== 'string' || v.text.trim() === '')
      problems.push(`${at}.text: expected a non-empty string, got ${describe(v.text)}`);
    else if (!isFiniteNumber(v.at)) problems.push(`${at}.at: expected a time in epoch ms, got ${describe(v.at)}`);
    else if (!items.some((k) => k.messageId === v.messageId))
      items.push({ messageId: v.messageId, text: v.text.slice(0, MAX_KEPT_TEXT), at: v.at });
  });
  if (value.length > MAX_KEPT)
    problems.push(`${field}: ${value.length} entries, more than ${MAX_KEPT}; only the first ${MAX_KEPT} are kept`);
  return { items, problems };
}

/** The session's kept instructions (copies, in the order they were kept). */
export function sessionKeptInstructions(session: MetaHolder): KeptInstruction[] {
  return (session.meta.keptInstructions ?? []).map((k) => ({ ...k }));
}

/** Keep a prompt's text as an instruction (persisted with the meta); false when it is already kept or the list is full. */
export function keepInstruction(session: MetaHolder, messageId: string, text: string, now = Date.now()): boolean {
  const list = session.meta.keptInstructions ?? [];
  const trimmed = text.trim();
  if (trimmed === '' || list.length >= MAX_KEPT || list.some((k) => k.messageId === messageId)) return false;
  session.meta.keptInstructions = [...list, { messageId, text: trimmed.slice(0, MAX_KEPT_TEXT), at: now }];
  session.saveMeta();
  return true;
}

/** Remove a kept instruction; false when there was none for that prompt. */
export function removeKeptInstruction(session: MetaHolder, messageId: string): boolean {
  const list = session.meta.keptInstructions ?? [];
  const next = list.filter((k) => k.messageId !== messageId);
  if (next.length === list.length) return false;
  if (next.length === 0) delete session.meta.keptInstructions;
  else session.meta.keptInstructions = next;
  session.saveMeta();
  return true;
}

/** The id a prompt kept from a ledger's instruction list stands under (the prompt itself is archived): stable per text. */
export function ledgerPromptId(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return `ledger-${h.toString(16).padStart(8, '0')}`;
}

/** Kept instructions as standing sources (always sent: the user typed them). */
export function keptInstructionSources(kept: readonly KeptInstruction[]): Omit<InstructionSource, 'truncated' | 'originalChars'>[] {
  return kept.map((k, i) => ({ name: `Kept from the chat (${i + 1})`, kind: 'chat', text: k.text, sent: true, messageId: k.messageId }));
}
