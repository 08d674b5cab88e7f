// Adding facts to the ledger of the current compaction after it ran (issue 22: "act on what was lost"):
// a missed probe's question and expected answer, or a short text the user wants the model to keep. The
// compaction's summary or opener message is rewritten with the fact in its ledger section ("Facts kept
// on request"), the history as it stood written as a transcript first, and the compaction record's
// ledger updated: the next compaction merges it (the fact is carried on), an undo still reverts the
// compaction (the rewrite keeps the history's length, so the record's resultLength still holds), and
// the inspector shows it with the record's ledger.
import { errorMessage } from '../base/errors';
import { textOf, type Message } from '../conversation/conversation';
import type { ArtifactLedger } from '../ledger/ledger';
import { emptyLedger, LEDGER_HEADING, mergeFacts, parseLedger, renderLedger } from '../ledger/ledgerMerge';
import type { CompactionRecord, SessionLog } from '../session/session';
import type { TranscriptStore } from '../transcripts/transcripts';
import { undoTarget } from './compactionHistory';

/** A fact to keep: a short text, or a probe's question and its expected answer(s) (the first is written). */
export type LedgerFactInput = string | { question: string; expected: string | readonly string[] };

export type LedgerFactsOutcome =
  | {
      ok: true;
      /** The compaction whose ledger holds the facts now (its record, updated in place and saved). */
      record: CompactionRecord;
      /** The facts as written, the ones it already held left out (empty: nothing changed, nothing written). */
      added: string[];
      /** Where the history as it stood before the rewrite was saved (null when nothing changed). */
      transcriptPath: string | null;
    }
  | {
      ok: false;
      reason: 'no-compaction' | 'no-opener' | 'invalid' | 'busy' | 'transcript-failed' | 'conflict';
      message: string;
    };

/** Longest fact (characters) and most facts a ledger carries: facts are never folded, so they are bounded here. */
export const MAX_FACT_CHARS = 1_000;
export const MAX_LEDGER_FACTS = 100;

/** The fact's text (one line), or an error naming what is wrong with it. */
export function factText(f: LedgerFactInput): { ok: true; text: string } | { ok: false; message: string } {
  let text: string;
  if (typeof f === 'string') text = f;
  else if (f && typeof f === 'object' && typeof f.question === 'string') {
    const expected = typeof f.expected === 'string' ? f.expected : f.expected?.find((e) => typeof e === 'string' && e.trim() !== '');
    if (typeof expected !== 'string' || expected.trim() === '')
      return { ok: false, message: `The fact "${f.question}" has no expected answer.` };
    text = `${f.question.trim()} → ${expected.trim()}`;
  } else return { ok: false, message: "A fact is a text or a probe's {question, expected}." };
  text = text.replace(/\s*\n\s*/g, ' ').trim();
  if (text === '') return { ok: false, message: 'A fact cannot be empty.' };
  if (text.length > MAX_FACT_CHARS)
    return { ok: false, message: `A fact is at most ${MAX_FACT_CHARS} characters (this one has ${text.length}).` };
  return { ok: true, text };
}

/** `content` with its ledger section (from the ledger heading to the end) replaced by `ledger`, or the ledger appended. */
export function withLedgerSection(content: string, ledger: ArtifactLedger): string {
  const at = content.lastIndexOf(`\n\n${LEDGER_HEADING}`);
  const head = at >= 0 ? content.slice(0, at) : content.startsWith(LEDGER_HEADING) ? '' : content.trimEnd();
  return head === '' ? renderLedger(ledger) : `${head}\n\n${renderLedger(ledger)}`;
}

/**
 * Add `facts` to the ledger of the latest compaction (the one an undo would revert) and re-apply it: its
 * summary or opener message is rewritten (same id, same place) after the whole history is saved as a
 * transcript. Synchronous: nothing can append or rewrite between the snapshot and the commit.
 */
export function addLedgerFacts(session: SessionLog, transcripts: TranscriptStore, facts: readonly LedgerFactInput[]): LedgerFactsOutcome {
  const texts: string[] = [];
  for (const f of facts) {
    const t = factText(f);
    if (!t.ok) return { ok: false, reason: 'invalid', message: t.message };
    texts.push(t.text);
  }
  if (texts.length === 0) return { ok: false, reason: 'invalid', message: 'No fact to add.' };
  const target = undoTarget(session.meta.compactions);
  if (!target.ok)
    return {
      ok: false,
      reason: 'no-compaction',
      message: `No compaction to add a fact to: ${target.message.charAt(0).toLowerCase()}${target.message.slice(1)}`,
    };
  const record = target.compaction;
  const snapshot = session.snapshot();
  const index = record.syntheticId === null ? -1 : snapshot.messages.findIndex((m) => m.id === record.syntheticId);
  const opener = snapshot.messages[index];
  if (!opener || index >= record.resultLength || !opener.synthetic)
    return {
      ok: false,
      reason: 'no-opener',
      message: `Compaction ${record.id} has no summary or opener message in the history to carry a ledger.`,
    };
  const ledger: ArtifactLedger = parseLedger(record.ledger) ?? emptyLedger();
  const before = ledger.facts ?? [];
  const merged = mergeFacts(before, texts);
  const added = merged.slice(before.length);
  if (added.length === 0) return { ok: true, record, added, transcriptPath: null };
  if (merged.length > MAX_LEDGER_FACTS)
    return {
      ok: false,
      reason: 'invalid',
      message: `A ledger keeps at most ${MAX_LEDGER_FACTS} facts (this would make ${merged.length}).`,
    };
  const next: ArtifactLedger = { ...ledger, facts: merged };
  const rewritten: Message = { ...opener, content: withLedgerSection(textOf(opener), next) };
  let saved;
  try {
    saved = transcripts.saveTranscript(session.id, snapshot.messages, `ledger facts added to ${record.id}`);
  } catch (e) {
    return { ok: false, reason: 'transcript-failed', message: `The fact was not added: ${errorMessage(e)}` };
  }
  const messages = [...snapshot.messages];
  messages[index] = rewritten;
  let commit;
  try {
    commit = session.commitRewrite(snapshot, messages);
  } catch (e) {
    return { ok: false, reason: 'transcript-failed', message: `Could not write the session: ${errorMessage(e)}` };
  }
  if (!commit.ok) return { ok: false, reason: 'conflict', message: `The fact was not added: ${commit.reason}.` };
  record.ledger = next;
  session.saveMeta();
  return { ok: true, record, added, transcriptPath: saved.path };
}
