// The agent's workspace tool set: the registry's tools, confined to one folder. Edits, writes and
// commands are shown to the user (a diff, or the command line) and run only when approved.
// A tool never throws at the agent: every failure is a ToolResult with isError, which the model sees.
// No `vscode` import: this runs in plain Node.
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { describeFsError } from './files';
import { DEFAULT_TOOL_LIMITS, type ToolLimits } from './limits';
import { findTool, READ_ONLY_TOOLS, WORKSPACE_TOOLS } from './registry';
import type { ToolEnvironment } from './tool';
import {
  CANCELLED_BY_USER,
  ToolError,
  type ToolCall,
  type ToolCallContext,
  type ToolDefinition,
  type ToolExecutor,
  type ToolResult,
} from './types';
import { resolveWorkspacePath, type ResolvedPath } from './workspacePath';

export interface WorkspaceToolsOptions {
  /** The workspace folder; every path is confined to it. */
  root: string;
  /** Untrusted workspace: only read_file, list_files, search and compact. */
  readOnly?: boolean;
  limits?: Partial<ToolLimits>;
  /** Shell for run_command (default: /bin/sh on POSIX, cmd.exe on Windows, as Node's `shell: true`). */
  shell?: string;
  /** Environment for commands (default process.env plus pager-free settings). */
  env?: NodeJS.ProcessEnv;
  /** search: the ripgrep binary (in VS Code, the one under vscode.env.appRoot); default: findRipgrep(). */
  ripgrepPath?: string;
}

export class WorkspaceTools implements ToolExecutor {
  readonly root: string;
  readonly readOnly: boolean;
  readonly limits: ToolLimits;

  constructor(private readonly options: WorkspaceToolsOptions) {
    this.root = resolve(options.root);
    this.readOnly = options.readOnly ?? false;
    this.limits = { ...DEFAULT_TOOL_LIMITS, ...options.limits };
  }

  definitions(): ToolDefinition[] {
    return WORKSPACE_TOOLS.filter((t) => !this.readOnly || t.readOnly).map((t) => t.definition);
  }

  /** Resolve a path the way every tool does (throws ToolError). */
  resolvePath(input: unknown, what = 'path'): ResolvedPath {
    return resolveWorkspacePath(this.root, input, what);
  }

  async execute(call: ToolCall, ctx: ToolCallContext): Promise<ToolResult> {
    if (ctx.signal.aborted) return { content: CANCELLED_BY_USER, isError: true };
    const tool = findTool(call.name);
    if (!tool)
      return {
        content: `Unknown tool: ${call.name}. Available tools: ${this.definitions()
          .map((d) => d.name)
          .join(', ')}.`,
        isError: true,
      };
    if (this.readOnly && !tool.readOnly) {
      return {
        content: `${call.name} is not available: this workspace is not trusted, so the agent is in read-only mode (available: ${READ_ONLY_TOOLS.join(', ')}).`,
        isError: true,
      };
    }
    const input = call.input;
    if (typeof input !== 'object' || input === null || Array.isArray(input))
      return { content: `${call.name}: input must be an object`, isError: true };
    const env: ToolEnvironment = {
      ctx,
      limits: this.limits,
      root: this.root,
      resolvePath: (p, what) => this.resolvePath(p, what),
      shell: this.options.shell,
      env: this.options.env,
      ripgrepPath: this.options.ripgrepPath,
    };
    try {
      env.root = realpathSync(this.root);
      return await tool.run(input as Record<string, unknown>, env);
    } catch (e) {
      if (e instanceof ToolError) return { content: `${call.name}: ${e.message}`, isError: true };
      if (ctx.signal.aborted) return { content: CANCELLED_BY_USER, isError: true };
      const err = e as NodeJS.ErrnoException;
      return { content: `${call.name} failed: ${describeFsError(err)}`, isError: true };
    }
  }
}
