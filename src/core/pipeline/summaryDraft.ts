// A summary draft: the text an LLM strategy's summarizer wrote, held before it is committed so the
// user can read and edit it (issue 13 §5). The pipeline asks a SummaryReviewer between summarizing
// and committing; the reviewer answers with the final text (edited or not) or discards the draft
// (the history stays unchanged).
import type { CompactionPlan } from './plan';
import type { CompactionRecord } from '../session/sessionTypes';

export interface SummaryDraft {
  id: string;
  strategy: string;
  trigger: CompactionRecord['trigger'];
  focus?: string;
  /** The summarizer's text, unedited. */
  text: string;
  plan: CompactionPlan;
  createdAt: number;
}

export type SummaryDecision = { apply: true; text: string } | { apply: false; message?: string };

/** Decides what happens to a draft; `signal` aborts the review (e.g. the agent was stopped). */
export type SummaryReviewer = (draft: SummaryDraft, signal?: AbortSignal) => Promise<SummaryDecision>;

/** Longest final text accepted (characters); a summary is at most a few thousand tokens. */
export const MAX_SUMMARY_TEXT = 200_000;

/** The final text to commit, or why it cannot be: empty after trimming, or over the cap. */
export function finalSummaryText(text: string): { ok: true; text: string } | { ok: false; message: string } {
  const t = text.trim();
  if (!t) return { ok: false, message: 'The edited summary is empty; nothing was applied and the history is unchanged.' };
  if (t.length > MAX_SUMMARY_TEXT)
    return { ok: false, message: `The edited summary is ${t.length} characters (at most ${MAX_SUMMARY_TEXT}); the history is unchanged.` };
  return { ok: true, text: t };
}
