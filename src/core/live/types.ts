// What the live view of other agents' sessions shows: a discovered session (one row of the list) and the
// live status of a followed session (issue 24, items 1 and 3). Plain data, no `vscode`.
import type { SessionFormat } from '../importers/types';
import type { CompactionScanCache } from './compactionScan';
import type { PeekMemo } from './peek';

/** The agent that writes a session file. */
export type AgentKind = 'claude-code' | 'codex' | 'splitpoint';

/** One session found on disk: what its head and tail say (see discover.ts for how each field is read). */
export interface DiscoveredSession {
  /** Absolute path of the session file. */
  file: string;
  agent: AgentKind;
  /** The working directory the agent ran in (as recorded in the file), when known. */
  cwd: string | null;
  /** The model of the last recorded call (or the last one named), when known. */
  model: string | null;
  /** The session's title (a rename, the agent's title or summary), else its first genuine prompt. */
  title: string | null;
  /** Epoch ms: the last line's timestamp, else the file's mtime. */
  lastActivity: number | null;
  /**
   * What the last recorded model call read (input + cache read + cache write, as recorded); null when no
   * call is recorded in the file's tail, or the agent compacted after it (the next call will tell).
   */
  contextTokens: number | null;
  /** The window the session runs with (recorded by Codex; Claude Code: from its model), when known. */
  contextWindow: number | null;
  /** Compactions the agent recorded in the whole file (counted on the raw bytes, see compactionScan.ts). */
  compactions: number;
  /** The agent is writing it right now (appended in the last few seconds, or its last line is unfinished). */
  writing: boolean;
  /** A reason this row could not be read fully (unknown format, permission…). */
  problem?: string;
}

export interface DiscoverOptions {
  /** The folders whose sessions are listed (the workspace folders; the CLI's --cwd). */
  cwds: readonly string[];
  /** The home folder (default: env.HOME, else os.homedir()). */
  home?: string;
  /** The environment that names the agents' folders: CLAUDE_CONFIG_DIR, CODEX_HOME, HOME (default: process.env). */
  env?: Record<string, string | undefined>;
  /** Folders of Splitpoint's own sessions (`<id>.jsonl` beside `<id>.meta.json`). */
  splitpointDirs?: readonly string[];
  /** The clock (epoch ms), for `writing`. */
  now?: () => number;
  /** At most this many sessions are read (the newest by mtime); default 200. */
  limit?: number;
  /** Where compaction counts are kept between calls (default: one cache per process). */
  compactionCache?: CompactionScanCache;
  /** Where each file's head-and-tail read is kept while the file is unchanged (default: one per process). */
  peekMemo?: PeekMemo;
  /** A larger file is listed with a problem saying it cannot be opened (default MAX_SESSION_FILE_BYTES, 256 MB). */
  maxOpenBytes?: number;
}

export interface DiscoverResult {
  /** Newest activity first. */
  sessions: DiscoveredSession[];
  /** Folders or files that could not be listed or read, one sentence each naming the path. */
  problems: string[];
}

/** What a user of that agent wants at a glance (issue 24 item 3), from an ImportResult. */
export interface LiveStatus {
  agent: AgentKind | 'unknown';
  model: string | null;
  /**
   * What the last recorded call read: input + cache read + cache write (recordedInputTokens), the figure
   * the inspector and `splitpoint inspect` show as the recorded input. Null when no call is recorded, or
   * when the agent compacted after the last call (the next call will tell).
   */
  contextTokens: number | null;
  contextWindow: number;
  /** Where contextWindow comes from (importers/window.ts: 'recorded', 'inferred-from-usage', 'model-table'). */
  windowSource: string;
  /** The agent's own auto-compact point in tokens, and how it was found. */
  compactAt: number | null;
  compactAtSource: string;
  /** Calls until that point at the recent growth rate (null: not growing / unknown). */
  callsToCompaction: number | null;
  /** Median growth of the context per call over the last calls since the last compaction (tokens). */
  growthPerCall: number | null;
  /** USD of every recorded call, priced as billed (cost/recordedCost.ts); null when none was recorded. */
  costSoFar: number | null;
  /** 'table', 'family-fallback' (a model the price table does not know: see priceNote) or 'user'. */
  priceSource: string | null;
  /** Set when a model was priced by a family fallback: the sentence that says so. */
  priceNote?: string;
  /** Recorded model calls in the whole session (every context). */
  calls: number;
  compactions: number;
  /**
   * The last recorded compaction: `index` is 1-based (compaction N, as `splitpoint plan --at N`),
   * `at` epoch ms, `archivedMessages` the messages it replaced, `archivedTokens` the tokens the agent
   * recorded just before it (Claude Code preTokens), else null.
   */
  lastCompaction: {
    index: number;
    trigger: string;
    preTokens: number | null;
    at: number | null;
    archivedMessages: number;
    archivedTokens: number | null;
  } | null;
  /** The replay configuration that models this agent ('claude-code-like' | 'codex-like'), if any. */
  agentConfig: string | null;
}

/** The status figures as they stood right after one recorded call (a line of `inspect --follow`). */
export interface LiveCall {
  /** 1-based number of the call in the session (every context). */
  call: number;
  /** The id of the assistant message the call produced. */
  messageId: string;
  model: string | null;
  /** Epoch ms of the call's message, when recorded. */
  at: number | null;
  contextTokens: number;
  contextWindow: number;
  /** contextTokens of contextWindow, in percent (one decimal). */
  percent: number;
  compactAt: number | null;
  callsToCompaction: number | null;
  growthPerCall: number | null;
  /** USD of the calls up to this one. */
  costSoFar: number;
}

export type { SessionFormat };
