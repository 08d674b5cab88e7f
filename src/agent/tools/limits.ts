// How much a workspace tool reads, lists, searches, captures and waits for.

export interface ToolLimits {
  /** read_file: most bytes of numbered output returned. */
  maxReadOutputBytes: number;
  /** read_file: larger files are refused (use a line range after searching). */
  maxReadFileBytes: number;
  /** list_files: default and ceiling of max_entries. */
  defaultListEntries: number;
  maxListEntries: number;
  /** search: default and ceiling of max_results; files larger than maxSearchFileBytes are skipped. */
  defaultSearchResults: number;
  maxSearchResults: number;
  maxSearchFileBytes: number;
  /** search: ripgrep is killed after this long (results so far are returned with a note). */
  searchTimeoutMs: number;
  /** run_command: the last this-many bytes of output are kept. */
  maxCommandOutputBytes: number;
  defaultCommandTimeoutMs: number;
  maxCommandTimeoutMs: number;
  /** run_command: after SIGTERM, wait this long before SIGKILL. */
  killGraceMs: number;
}

export const DEFAULT_TOOL_LIMITS: ToolLimits = {
  maxReadOutputBytes: 100 * 1024,
  maxReadFileBytes: 10 * 1024 * 1024,
  defaultListEntries: 500,
  maxListEntries: 5_000,
  defaultSearchResults: 100,
  maxSearchResults: 1_000,
  maxSearchFileBytes: 1024 * 1024,
  searchTimeoutMs: 30_000,
  maxCommandOutputBytes: 30 * 1024,
  defaultCommandTimeoutMs: 120_000,
  maxCommandTimeoutMs: 600_000,
  killGraceMs: 2_000,
};
