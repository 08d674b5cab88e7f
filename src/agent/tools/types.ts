// The tool contract between the agent and a tool set: definitions in the Messages API's `tools`
// shape, calls, results, the approval gate, and the context a call runs in.
import { SplitpointError, type TodoItem, type ToolResultBlock } from '../../core';

/** A tool definition in the Messages API's `tools` shape (structurally an `Anthropic.Tool`). */
export interface ToolDefinition {
  name: string;
  description: string;
  input_schema: { type: 'object'; properties: Record<string, unknown>; required?: string[]; additionalProperties?: boolean };
}

/** What the user is asked to approve. */
export interface ApprovalRequest {
  toolUseId: string;
  tool: string;
  /** One line for the prompt, e.g. "Edit src/a.ts" or "Run `npm test`". */
  title: string;
  /** edit_file / write_file: the change as a unified diff. */
  diff?: { path: string; unified: string; isNewFile: boolean };
  /** run_command: the command line. */
  command?: string;
  /** An explicit warning the approval card shows (e.g. the file is configuration that tooling executes). */
  warning?: string;
  /** A tool of an MCP server: the server and the tool's own name (the card offers "Always allow"). */
  mcp?: { server: string; tool: string };
  /** edit_file / write_file: the whole file now (null: new) and as proposed, for the host's diff editor. */
  proposal?: { absPath: string; original: string | null; proposed: string };
}

export interface ApprovalDecision {
  approved: boolean;
  /** Why it was rejected (told to the model). */
  reason?: string;
  /** Approved, and the user asked to allow this MCP tool from now on. */
  alwaysAllow?: boolean;
}

/** The host's approval UI. Must resolve (as rejected) when `signal` aborts; the agent also enforces that. */
export interface ApprovalGate {
  request(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision>;
}

export interface ToolCall {
  id: string;
  name: string;
  input: unknown;
}

export interface ToolResult {
  /** The text the model sees as the tool_result content (and the chat card shows). */
  content: string;
  isError: boolean;
  /** When set, the tool_result's content instead: text and image blocks (an MCP tool's result). */
  blocks?: Exclude<NonNullable<ToolResultBlock['content']>, string>;
}

/** What the agent hands a tool for one call. */
export interface ToolCallContext {
  toolUseId: string;
  /** Aborts when the user stops the run: commands are killed, approvals resolve as rejected. */
  signal: AbortSignal;
  /** Ask the user (the agent wraps its ApprovalGate: events, and rejection on abort). */
  requestApproval(req: Omit<ApprovalRequest, 'toolUseId'>): Promise<ApprovalDecision>;
  /** The compact tool: ask the pipeline to compact after this batch of tool calls. */
  requestCompaction?(focus: string | undefined): void;
  /** The todo tool: replace the session's task list (kept outside the history, sent with every request). */
  setTodo?(items: TodoItem[]): void;
  /** Live output of a running command (stdout and stderr as they arrive). */
  onOutput?(chunk: string): void;
}

/** What the agent needs from a tool set. */
export interface ToolExecutor {
  /** True when only read-only tools are offered and executable. */
  readonly readOnly: boolean;
  definitions(): ToolDefinition[];
  /** Resolves when the tool set is ready for a request (e.g. MCP servers that are starting); never rejects. */
  ready?(signal: AbortSignal): Promise<void>;
  /** Never rejects: failures come back as { isError: true }. */
  execute(call: ToolCall, ctx: ToolCallContext): Promise<ToolResult>;
}

export const CANCELLED_BY_USER = 'Cancelled by the user.';

/** A tool failed in a way the model should hear about (becomes an is_error tool_result). */
export class ToolError extends SplitpointError {
  constructor(message: string) {
    super(message);
    this.name = 'ToolError';
  }
}
