// What the agent loop tells its host: the events of a run, in order, and how the run ended.
import type { CompactionFailure, CompactionRecord, CompactionTriggerSource, LlmErrorKind, Message } from '../../core';
import type { ApprovalRequest } from '../tools';

/** How a run ended. */
export type AgentRunStatus =
  /** The model ended its turn (end_turn, stop_sequence, refusal, or an empty reply). */
  | 'completed'
  /** stop() was called; the history was closed off validly. */
  | 'cancelled'
  /** An API error; see `error`. retry() continues from the history as it is. */
  | 'error'
  /** The reply was cut at max_tokens; unfinished tool calls were answered "Not executed". */
  | 'max_tokens'
  /** The run hit `maxSteps` model calls. */
  | 'max_steps';

export interface AgentErrorInfo {
  /** User-facing sentence. */
  message: string;
  /** True for overload, rate limits, 5xx, timeouts and dropped connections: retry() may succeed. */
  retryable: boolean;
  kind: LlmErrorKind;
  status?: number;
  retryAfterMs?: number;
}

export interface AgentRunResult {
  runId: string;
  status: AgentRunStatus;
  /** stop_reason of the last model reply (null if none arrived). */
  stopReason: string | null;
  /** Model calls made in this run. */
  steps: number;
  /** Totals over this run's replies (input includes cached input). */
  usage: { inputTokens: number; outputTokens: number };
  error?: AgentErrorInfo;
}

/**
 * Everything the UI needs to render a run, in order. `runId` ties events to the run that caused
 * them (compaction events carry it when they happen inside a run; undefined for compactions the
 * user started from the inspector between runs). `step` counts model calls within a run from 1.
 *
 * Typical sequence of one run:
 *   turn-started
 *   ( request-started
 *     text-delta / thinking-delta / tool-call-started / tool-call-input …   (provisional, streaming)
 *     assistant-message                (the reply as appended to the session: replaces the stream)
 *     usage
 *     ( tool-awaiting-approval → tool-approval-resolved )? tool-running tool-output* tool-result …
 *     compaction-started → compaction-finished | compaction-failed     (any time a compaction runs)
 *   )*
 *   turn-ended                         (always last; carries the AgentRunResult)
 * On stop() or an API error mid-stream, `assistant-interrupted` replaces `assistant-message`: with
 * reason 'cancelled' the partial text that was kept (or null); with reason 'error' nothing is kept
 * and the streamed deltas should be discarded. `error` and `notice` may appear at any point.
 */
export type AgentEvent =
  | { type: 'turn-started'; runId: string; kind: 'prompt' | 'retry'; promptMessageId?: string }
  | { type: 'turn-ended'; runId: string; result: AgentRunResult }
  /** A model call begins. `estimatedTokens`: the request's (micro-compacted) size estimate. */
  | { type: 'request-started'; runId: string; step: number; estimatedTokens: number; truncatedResults: number }
  /** Streamed text of content block `index` of the reply. */
  | { type: 'text-delta'; runId: string; step: number; index: number; text: string }
  | { type: 'thinking-delta'; runId: string; step: number; index: number; thinking: string }
  /** A tool_use block started streaming (its input follows). */
  | { type: 'tool-call-started'; runId: string; step: number; index: number; toolUseId: string; name: string }
  /** A tool_use block finished streaming: its complete input. */
  | { type: 'tool-call-input'; runId: string; step: number; index: number; toolUseId: string; name: string; input: unknown }
  /** The complete reply, as appended to the session. */
  | { type: 'assistant-message'; runId: string; step: number; message: Message; stopReason: string | null }
  /** The reply did not complete: `kept` is what was appended (partial text, finished tool calls), if anything. */
  | { type: 'assistant-interrupted'; runId: string; step: number; reason: 'cancelled' | 'error'; kept: Message | null }
  | { type: 'tool-awaiting-approval'; runId: string; request: ApprovalRequest }
  | { type: 'tool-approval-resolved'; runId: string; toolUseId: string; approved: boolean; reason?: string }
  | { type: 'tool-running'; runId: string; toolUseId: string; name: string; input: unknown }
  /** Live output of a running command. */
  | { type: 'tool-output'; runId: string; toolUseId: string; chunk: string }
  /** What the model will see for this call. `cancelled`: stop() ended or skipped it (output says so). */
  | { type: 'tool-result'; runId: string; toolUseId: string; name: string; output: string; isError: boolean; cancelled: boolean }
  | { type: 'compaction-started'; runId?: string; strategy: string; trigger: CompactionTriggerSource; summarizing: boolean }
  | { type: 'compaction-finished'; runId?: string; record: CompactionRecord }
  | { type: 'compaction-failed'; runId?: string; failure: CompactionFailure }
  /**
   * Usage of one reply. inputTokens includes cached input; contextTokens = inputTokens +
   * outputTokens (what the conversation now occupies); contextWindow when the host told us.
   */
  | {
      type: 'usage';
      runId: string;
      step: number;
      inputTokens: number;
      outputTokens: number;
      cacheReadInputTokens: number;
      cacheCreationInputTokens: number;
      contextTokens: number;
      contextWindow?: number;
      /** The local (uncalibrated) estimate of the request, as fed to calibration. */
      estimatedInputTokens: number;
    }
  | ({ type: 'error'; runId: string } & AgentErrorInfo)
  | { type: 'notice'; runId?: string; level: 'info' | 'warning'; message: string };

export type AgentEventType = AgentEvent['type'];
