// The artifact ledger: a deterministic record (no model) of what the archived part of a session did —
// files touched, commands run, errors seen, the user's instructions — carried by every compaction so
// the agent keeps its "artifact trail". The loss report has the same shape: what leaves the model's
// view without surviving anywhere in the new context. Types here; extraction in ledgerExtract.ts.

export interface LedgerFile {
  /** Workspace-relative path as the tools saw it. */
  path: string;
  /** How many times the archived messages read, edited and created it. */
  read: number;
  edited: number;
  created: number;
  lastAction: 'read' | 'edited' | 'created';
}

export interface LedgerCommand {
  command: string;
  /** Exit status (of its last run) when the result says; null when unknown (timeout, killed, not recorded). */
  exitCode: number | null;
  /** How many times it ran, when more than once (a command run again moves to its newest place). */
  runs?: number;
}

export interface LedgerError {
  text: string;
  /** A later step succeeded at what failed (the same tool on the same target, or the same command). */
  resolved: boolean;
}

export interface ArtifactLedger {
  files: LedgerFile[];
  commands: LedgerCommand[];
  errors: LedgerError[];
  /** Genuine prompts: short ones verbatim, long ones clipped with a pointer to the transcript. */
  instructions: string[];
  /**
   * Facts the user asked to keep (a missed probe's question and answer, or a short text): added to the
   * ledger of a compaction after it ran (pipeline/ledgerFacts.ts), carried by every later one, never folded.
   */
  facts?: string[];
  /**
   * Code names the archived assistant text set in backticks (functions, types, decorators, flags),
   * newest last: what a written summary would carry and a file list does not. Folded first.
   */
  names?: string[];
  /** What the token budget folded away (counts), so the ledger says it is incomplete. */
  folded?: { files: number; commands: number; errors: number; instructions: number };
}

/** What a plan drops without it surviving anywhere in the new context (same shape as the ledger). */
export interface LossReport extends ArtifactLedger {
  images: number;
  thinkingBlocks: number;
}
