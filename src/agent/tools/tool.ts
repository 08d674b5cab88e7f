// What one workspace tool is: its definition for the model, whether it is safe in an untrusted
// workspace, and the handler that runs it. The registry (registry.ts) is a list of these.
import type { ToolLimits } from './limits';
import type { ToolCallContext, ToolDefinition, ToolResult } from './types';
import type { ResolvedPath } from './workspacePath';

/** What a handler gets besides its arguments. */
export interface ToolEnvironment {
  /** The call: its abort signal, the approval prompt, live output, compaction requests. */
  ctx: ToolCallContext;
  limits: ToolLimits;
  /** The workspace folder, symlinks resolved (what ResolvedPath.rel is relative to). */
  root: string;
  /** Resolve a path inside the workspace (throws ToolError). */
  resolvePath(input: unknown, what?: string): ResolvedPath;
  /** run_command: the shell and the environment (the options' own; runCommand supplies defaults). */
  shell?: string;
  env?: NodeJS.ProcessEnv;
  /** search: the rg binary (default: found by findRipgrep). */
  ripgrepPath?: string;
}

export interface WorkspaceTool {
  readonly definition: ToolDefinition;
  /** Offered in an untrusted workspace: reads, never changes files or runs anything. */
  readonly readOnly: boolean;
  /**
   * Run one call. `args` is already known to be an object. Throw ToolError for failures the model
   * should hear about; other errors are reported as "<tool> failed: <reason>".
   */
  run(args: Record<string, unknown>, env: ToolEnvironment): Promise<ToolResult> | ToolResult;
}

export function ok(content: string): ToolResult {
  return { content, isError: false };
}
