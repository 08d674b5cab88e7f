// The types of server-side context management that the message model and the plan context carry
// (a leaf module: serverContext.ts has the rules and their sources).

export type ServerStrategyName = 'server-clear-tool-uses' | 'server-compact';

/** The parts of the edits that are not numbers (so not strategy parameters): from the settings. */
export interface ServerContextOptions {
  /** clear_tool_uses_20250919 `exclude_tools`. */
  excludeTools?: readonly string[];
  /** compact_20260112 `instructions` (empty: the server's own prompt). */
  instructions?: string;
}

/** What the server reported doing for one model call (kept on the assistant message it produced). */
export interface ServerContextReport {
  strategy: ServerStrategyName;
  /** clear_tool_uses_20250919: tool uses cleared and input tokens saved (0 and 0: the edit did not apply). */
  clearedToolUses?: number;
  clearedInputTokens?: number;
  /** compact_20260112: 'applied' (a summary replaced earlier content) or 'failed' (a null-content block: a no-op). */
  compaction?: 'applied' | 'failed';
}
