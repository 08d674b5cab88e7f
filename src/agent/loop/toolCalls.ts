// Running one reply's tool calls in order: each through the approval gate where the tool asks for
// it, with events for the UI, and a tool_result for every call, also when the run is stopped.
import type { TodoItem, ToolResultBlock, ToolUseBlock } from '../../core';
import type { AgentEvent } from './agentEvents';
import { toolResultBlock } from './replyBlocks';
import {
  CANCELLED_BY_USER,
  type ApprovalDecision,
  type ApprovalGate,
  type ApprovalRequest,
  type ToolExecutor,
  type ToolResult,
} from '../tools';

export interface ToolCallServices {
  tools: ToolExecutor;
  approvals: ApprovalGate;
  /** The compact tool's request (the pipeline runs it after this batch). */
  requestCompaction(focus: string | undefined): void;
  /** The todo tool's list (kept with the session, outside the history). */
  setTodo?(items: TodoItem[]): void;
  emit(e: AgentEvent): void;
}

/** Run every call in order; calls not started before a stop are answered "Cancelled by the user.". */
export async function executeToolCalls(
  svc: ToolCallServices,
  runId: string,
  uses: ToolUseBlock[],
  signal: AbortSignal,
): Promise<ToolResultBlock[]> {
  const results: ToolResultBlock[] = [];
  for (const use of uses) {
    let result: ToolResult;
    if (signal.aborted) {
      result = { content: CANCELLED_BY_USER, isError: true };
    } else {
      svc.emit({ type: 'tool-running', runId, toolUseId: use.id, name: use.name, input: use.input });
      try {
        result = await svc.tools.execute(
          { id: use.id, name: use.name, input: use.input },
          {
            toolUseId: use.id,
            signal,
            requestApproval: (req) => requestApproval(svc, runId, { ...req, toolUseId: use.id }, signal),
            requestCompaction: (focus) => svc.requestCompaction(focus),
            ...(svc.setTodo ? { setTodo: svc.setTodo } : {}),
            onOutput: (chunk) => svc.emit({ type: 'tool-output', runId, toolUseId: use.id, chunk }),
          },
        );
      } catch (e) {
        result = { content: `${use.name} failed unexpectedly: ${e instanceof Error ? e.message : String(e)}`, isError: true };
      }
    }
    if (result.content === '') result = { ...result, content: '(no output)' };
    const cancelled = signal.aborted && result.isError;
    svc.emit({ type: 'tool-result', runId, toolUseId: use.id, name: use.name, output: result.content, isError: result.isError, cancelled });
    results.push(toolResultBlock(use.id, result));
  }
  return results;
}

async function requestApproval(
  svc: ToolCallServices,
  runId: string,
  request: ApprovalRequest,
  signal: AbortSignal,
): Promise<ApprovalDecision> {
  const cancelled: ApprovalDecision = { approved: false, reason: CANCELLED_BY_USER };
  if (signal.aborted) return cancelled;
  svc.emit({ type: 'tool-awaiting-approval', runId, request });
  let decision: ApprovalDecision;
  try {
    decision = await raceAbort(svc.approvals.request(request, signal), signal, cancelled);
  } catch (e) {
    decision = { approved: false, reason: `the approval prompt failed (${e instanceof Error ? e.message : String(e)})` };
  }
  if (signal.aborted) decision = cancelled;
  const reason = decision.reason ? { reason: decision.reason } : {};
  svc.emit({ type: 'tool-approval-resolved', runId, toolUseId: request.toolUseId, approved: decision.approved, ...reason });
  return decision;
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal, onAbort: T): Promise<T> {
  if (signal.aborted) return Promise.resolve(onAbort);
  return new Promise<T>((resolve, reject) => {
    const abort = () => resolve(onAbort);
    signal.addEventListener('abort', abort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', abort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', abort);
        reject(e);
      },
    );
  });
}

/** The tools whose `path` tells which folder the agent works in (its nested instruction files join). */
const FILE_TOOLS = new Set(['read_file', 'edit_file', 'write_file']);

/** The workspace paths a reply's file tool calls named (read_file, edit_file, write_file). */
export function fileToolPaths(uses: readonly ToolUseBlock[]): string[] {
  const paths: string[] = [];
  for (const u of uses) {
    const path = FILE_TOOLS.has(u.name) ? (u.input as { path?: unknown } | null)?.path : undefined;
    if (typeof path === 'string') paths.push(path);
  }
  return paths;
}
