// The shapes a session is stored as: its meta (title, compaction records) and load errors.
import type { ArtifactLedger } from '../ledger/ledger';
import type { KeptInstruction } from '../standing/keptInstructions';
import type { TodoItem } from '../standing/types';

export interface CompactionRecord {
  id: string;
  at: number;
  strategy: string;
  params: Record<string, number>;
  /** What started it: the budget trigger, the user, the model's compact tool, the inspector, undo. */
  trigger: 'auto' | 'manual' | 'tool' | 'inspector' | 'undo';
  /** Tokens of the next request before and after (micro-compacted, calibrated, with system and tools). */
  tokensBefore: number;
  tokensAfter: number;
  archivedCount: number;
  truncatedCount: number;
  transcriptPath: string;
  /** Id of the summary or placeholder message written, if any. */
  syntheticId: string | null;
  tailStartId: string | null;
  /** Length of the history right after this rewrite (messages after it were added later). */
  resultLength: number;
  focus?: string;
  /** A reviewed LLM summary: the summarizer's draft and the text the user applied (edited or not). */
  draft?: string;
  finalText?: string;
  /** SHA-256 (hex) of the transcript file as written; an undo refuses a transcript that no longer matches. */
  transcriptSha256?: string;
  /** The artifact ledger the compaction carried (the next compaction merges with it). */
  ledger?: ArtifactLedger;
}

export interface SessionMeta {
  id: string;
  title: string;
  createdAt: number;
  updatedAt: number;
  compactions: CompactionRecord[];
  /** Pinned message ids (compaction-resistant), in the order they were pinned; absent = none. */
  pinned?: string[];
  /** The agent's task list (the todo tool, the chat's checklist): outside the history, sent with every request. */
  todo?: TodoItem[];
  /** Prompts the user kept as instructions ("keep as instruction"): sent with every request, outside the history. */
  keptInstructions?: KeptInstruction[];
}

export interface SessionLoadError {
  file: string;
  line: number;
  message: string;
}
