// What an import produces, the formats it knows, and the error it throws.
import type { Message } from '../conversation/conversation';
import { SplitpointError } from '../base/errors';

export type SessionFormat = 'splitpoint-jsonl' | 'anthropic-json' | 'claude-code-jsonl' | 'codex-rollout-jsonl';

/** Human-readable name of each supported format (for error messages and pickers). */
export const SESSION_FORMATS: Readonly<Record<SessionFormat, string>> = {
  'splitpoint-jsonl': 'Splitpoint JSONL',
  'anthropic-json': 'Anthropic Messages JSON (an array of messages, or an object with "messages")',
  'claude-code-jsonl': 'Claude Code session JSONL (~/.claude/projects)',
  'codex-rollout-jsonl': 'Codex CLI rollout JSONL (~/.codex/sessions)',
};

export const SPLITPOINT_HEADER_TYPE = 'splitpoint.header';
export const SPLITPOINT_FORMAT_VERSION = 1;
/** Version 2 adds recorded compactions (`splitpoint.compaction` lines) and the import's metadata in the header. */
export const SPLITPOINT_SESSION_VERSION = 2;

/** Optional fields of the Splitpoint JSONL header line; unknown extra fields survive a round trip. */
export interface SplitpointHeaderFields {
  sessionId?: string;
  /** Epoch ms. */
  createdAt?: number;
  [extra: string]: unknown;
}

/** The header line as written: `{"type":"splitpoint.header","version":1,...}`. */
export interface SplitpointHeader extends SplitpointHeaderFields {
  type: typeof SPLITPOINT_HEADER_TYPE;
  version: typeof SPLITPOINT_FORMAT_VERSION | typeof SPLITPOINT_SESSION_VERSION;
}

/**
 * A compaction that the recording agent did (Claude Code `compact_boundary` + `isCompactSummary`;
 * Codex `compacted` + `replacement_history`), in Splitpoint's own terms: the context it replaced
 * (archived, still shown) and what replaced it (the summary, or the replacement history).
 */
export interface RecordedCompaction {
  /** The format of the recording it came from. */
  source: SessionFormat;
  /** 'auto' (the agent's budget trigger), 'manual' (/compact), or 'unknown' when not recorded. */
  trigger: 'auto' | 'manual' | 'unknown';
  /** Tokens the agent recorded just before compacting (Claude Code `compactMetadata.preTokens`), if any. */
  preTokens: number | null;
  /** 1-based line of the compaction marker in the recorded file. */
  line: number;
  /** Epoch ms, when recorded. */
  at?: number;
  /** What the model saw just before the compaction: the context it replaced (messages, in order). */
  before: Message[];
  /**
   * What replaced it: the first messages of the next context (the summary message, or Codex's whole
   * replacement history). The context after the compaction is `summary` followed by what came next.
   */
  summary: Message[];
}

export interface ImportResult {
  format: SessionFormat;
  /**
   * The current context: what the model saw at the end of the recording (after the last recorded
   * compaction: its summary plus what followed; the whole history when there was none).
   */
  messages: Message[];
  /** Recorded compactions, oldest first (empty when the agent never compacted). */
  compactions: RecordedCompaction[];
  /**
   * Prompts a person typed that a rollback later took out of the conversation (Codex `thread_rolled_back`;
   * Claude Code: a rewind or an edit, which leaves the prompt on an abandoned branch). In no context (the
   * model does not read them after the rollback), yet typed: genuinePromptCount counts them. Set only when
   * there is one; in the order typed.
   */
  rolledBackPrompts?: Message[];
  /** The model's context window, when the recording says (Codex `token_count` events). */
  contextWindow?: number;
  /** The model of the last recorded call, when known. */
  model?: string;
  /** Things repaired or skipped, as `FILE:LINE: what happened` sentences. */
  warnings: string[];
  /** The header line of a Splitpoint JSONL file, when it has one. */
  header?: SplitpointHeader;
}

/** A file that cannot be imported. `line` is 1-based (undefined for whole-file problems). */
export class ImportError extends SplitpointError {
  readonly file: string;
  readonly line: number | undefined;
  readonly field: string | undefined;
  /** What is wrong, without the location prefix. */
  readonly detail: string;

  constructor(file: string, line: number | undefined, field: string | undefined, detail: string) {
    super(`${file}${line !== undefined ? `:${line}` : ''}: ${field ? `${field}: ` : ''}${detail}`);
    this.name = 'ImportError';
    this.file = file;
    this.line = line;
    this.field = field;
    this.detail = detail;
  }
}
