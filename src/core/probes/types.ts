// Probes: what a compaction lost, asked as questions (issue 22). Types shared by generation
// (generate.ts), the offline score (score.ts: which expected answers the request the model would
// receive still contains) and the online check (ask.ts: one request to a model, its JSON answers
// scored deterministically). Pure and deterministic: the same input gives the same probes.
import type { Message } from '../conversation/conversation';

export type ProbeKind = 'artifact' | 'recall' | 'decision' | 'continuation';

export const PROBE_KINDS: readonly ProbeKind[] = ['artifact', 'recall', 'decision', 'continuation'];

export interface Probe {
  /** Stable id (`p-` + kind + a short hash of question and sources): same input, same id. */
  id: string;
  kind: ProbeKind;
  /** The question as a model is asked it (never containing an expected answer). */
  question: string;
  /** Any one of these present (after normalisation, see score.ts) answers the probe; exact strings where the fact is exact. */
  expected: string[];
  /** Whether `expected` holds exact facts (paths, commands, exit codes, error lines, numbers, identifiers). */
  exact: boolean;
  /** Ids of the messages the fact comes from (the first is the one to pin). */
  sources: string[];
  /** The later conversation (after the split) refers to the fact again: such probes come first. */
  referencedLater: boolean;
}

export interface ProbeInput {
  /** The messages the compaction archives (or a plan would archive), oldest first. */
  archived: readonly Message[];
  /** What comes after the split: the kept tail and, for a recorded compaction, what followed (priority, continuation). */
  later?: readonly Message[];
}

export interface ProbeOptions {
  /** At most this many probes (default 30), spread over the kinds. */
  max?: number;
}

/** One probe scored on what the model would receive. */
export interface ScoredProbe extends Probe {
  answerable: boolean;
}

export interface ProbeScore {
  probes: ScoredProbe[];
  /** Answerable probes over all probes; null when there are none. */
  recall: number | null;
  recallByKind: Record<ProbeKind, number | null>;
}

/** How the model answered one probe, scored: exact probes are right or wrong; the others are uncertain unless clearly right. */
export interface ProbeAnswer {
  id: string;
  answer: string;
  verdict: 'correct' | 'wrong' | 'uncertain' | 'unanswered';
}
