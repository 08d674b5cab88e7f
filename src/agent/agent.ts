// The agent loop: prompt -> (compaction layers) -> streamed model call -> tool calls (with approval)
// -> tool results -> … until the model ends its turn. The session log is the single history; after
// every step it is a valid Messages API request, whatever happened (cancellation, API errors,
// rejected approvals, max_tokens). The UI follows along through AgentEvent.
// No `vscode` import: this runs in plain Node (the extension glue maps events to chat items).
import type Anthropic from '@anthropic-ai/sdk';
import { newMessageId, type ApiMessage, type ContentBlock, type Message, type ToolResultBlock, type ToolUseBlock } from '../core/conversation';
import { totalInputTokens, type CalibratedCounter } from '../core/calibration';
import type { Disposable } from '../core/events';
import type { CompactionFailure, CompactionPipeline, CompactionTriggerSource } from '../core/pipeline';
import type { CompactionRecord, SessionLog } from '../core/session';
import type { LlmErrorKind } from '../core/summarize';
import { CharEstimateTokenizer, type TextTokenizer } from '../core/tokens';
import { toLlmError } from './anthropicClient';
import { CANCELLED_BY_USER, type ApprovalDecision, type ApprovalGate, type ApprovalRequest, type ToolDefinition, type ToolExecutor, type ToolResult } from './tools';

// ---------------------------------------------------------------------------------------------
// Events

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

// ---------------------------------------------------------------------------------------------
// Options

export interface AgentLoopOptions {
  /** The SDK client (its maxRetries/timeout are the host's choice). */
  client: Anthropic;
  model: string;
  maxTokens: number;
  /** System prompt (default: defaultSystemPrompt({ readOnly: tools.readOnly })). */
  system?: string;
  pipeline: CompactionPipeline;
  tools: ToolExecutor;
  approvals: ApprovalGate;
  /** Fed (local estimate, reported input) after every reply. */
  calibration?: CalibratedCounter;
  /** Counts the system prompt and tool definitions for the estimate (default: chars/4). */
  tokenizer?: TextTokenizer;
  /** The model's context window, reported in usage events. */
  contextWindow?: number;
  /** Most model calls per run (default 200). */
  maxSteps?: number;
  onEvent: (e: AgentEvent) => void;
  now?: () => number;
}

/** run() or retry() while a run is in progress. */
export class AgentBusyError extends Error {
  constructor() {
    super('The agent is already working on a request. Wait for it to finish or stop it first.');
    this.name = 'AgentBusyError';
  }
}

/** retry() when there is nothing to retry, or run() with an empty prompt. */
export class AgentStateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AgentStateError';
  }
}

export const DEFAULT_MAX_STEPS = 200;
export const MAX_TOKENS_NOT_EXECUTED = 'Not executed: the reply reached the max_tokens limit, so this tool call may be incomplete.';

/** Tokens a request spends outside its messages: the system prompt and the tool definitions. */
export function requestOverheadTokens(tokenizer: TextTokenizer, system: string, tools: readonly ToolDefinition[]): number {
  let n = tokenizer.countText(system);
  for (const t of tools) n += tokenizer.countText(t.name) + tokenizer.countText(t.description) + tokenizer.countText(JSON.stringify(t.input_schema));
  return n;
}

export function defaultSystemPrompt(o: { readOnly?: boolean; workspaceRoot?: string } = {}): string {
  const where = o.workspaceRoot ? ` The workspace folder is ${o.workspaceRoot}; all paths are relative to it.` : ' All paths are relative to the workspace folder.';
  const toolsText = o.readOnly
    ? `This workspace is not trusted, so you are in read-only mode: you can use read_file, list_files and search to investigate and explain, but you cannot edit files or run commands. Say what you would change instead.`
    : `Tools: read_file (numbered lines, ranges for big files), list_files, search (text or regex over the workspace), edit_file (replace an exact, unique snippet), write_file (create or overwrite a whole file), run_command (shell, non-interactive). Edits, writes and commands are shown to the user, who approves or rejects each one; if one is rejected, read the reason, adjust, and do not retry the same thing unchanged.`;
  return [
    `You are Splitpoint, a coding agent working in the user's workspace inside their editor.${where}`,
    toolsText,
    `Work in small, verifiable steps: look before you change anything (read the relevant code, search for usages), make focused edits that match the existing style, then check your work (build, tests) when you can. Prefer edit_file over write_file for existing files. Never invent file contents, APIs or results; if something is unclear, look it up or ask.`,
    `Tool results can be large; request only what you need (line ranges, narrow searches). Older tool results may later appear as "[Previous: used <tool>]" placeholders, and older history may be replaced by a summary: re-read a file if you need its current content.`,
    `The compact tool compacts the conversation history (older messages are summarized; a transcript keeps everything). Call it at a natural breakpoint when the context is filling up with material you no longer need, with a focus naming what must be preserved (open tasks, file paths, decisions, failing tests). It takes effect after the current batch of tool calls.`,
    `Be concise. When you finish, say briefly what you changed and how you verified it, or what is left to do.`,
  ].join('\n\n');
}

// ---------------------------------------------------------------------------------------------
// The loop

interface RunState {
  runId: string;
  controller: AbortController;
  steps: number;
  inputTokens: number;
  outputTokens: number;
  stopReason: string | null;
  promise?: Promise<AgentRunResult>;
}

type StepOutcome =
  | { kind: 'message'; message: Anthropic.Message }
  | { kind: 'aborted'; blocks: ContentBlock[] }
  | { kind: 'error'; error: AgentErrorInfo };

export class AgentLoop implements Disposable {
  private readonly client: Anthropic;
  private readonly pipeline: CompactionPipeline;
  private readonly tools: ToolExecutor;
  private readonly approvals: ApprovalGate;
  private readonly calibration?: CalibratedCounter;
  private readonly tokenizer: TextTokenizer;
  private readonly onEvent: (e: AgentEvent) => void;
  private readonly now: () => number;
  private readonly subscriptions: Disposable[] = [];
  private current: RunState | null = null;
  private lastStopReason: string | null = null;
  private overheadCache: { key: string; tokens: number } | null = null;
  readonly model: string;
  readonly maxTokens: number;
  readonly system: string;
  readonly maxSteps: number;
  readonly contextWindow?: number;

  constructor(options: AgentLoopOptions) {
    this.client = options.client;
    this.model = options.model;
    this.maxTokens = options.maxTokens;
    this.pipeline = options.pipeline;
    this.tools = options.tools;
    this.approvals = options.approvals;
    this.calibration = options.calibration;
    this.tokenizer = options.tokenizer ?? new CharEstimateTokenizer();
    this.onEvent = options.onEvent;
    this.now = options.now ?? Date.now;
    this.system = options.system ?? defaultSystemPrompt({ readOnly: options.tools.readOnly });
    this.maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
    this.contextWindow = options.contextWindow;
    const runId = () => this.current?.runId;
    this.subscriptions.push(
      this.pipeline.onWillCompact((e) => this.emit({ type: 'compaction-started', runId: runId(), strategy: e.strategy, trigger: e.trigger, summarizing: e.summarizing })),
      this.pipeline.onDidCompact((record) => this.emit({ type: 'compaction-finished', runId: runId(), record })),
      this.pipeline.onDidFail((failure) => this.emit({ type: 'compaction-failed', runId: runId(), failure })),
    );
  }

  get session(): SessionLog {
    return this.pipeline.session;
  }

  /** True while a run is in progress. */
  get busy(): boolean {
    return this.current !== null;
  }

  /** True when the history is waiting for a model reply (after an error, or a cancel before any reply). */
  get canRetry(): boolean {
    const msgs = this.session.messages;
    const last = msgs[msgs.length - 1];
    if (!last || this.current) return false;
    return last.role === 'user' || this.lastStopReason === 'pause_turn';
  }

  /** The tool definitions sent with every request. */
  toolDefinitions(): ToolDefinition[] {
    return this.tools.definitions();
  }

  /**
   * Uncalibrated token estimate of what every request carries besides the messages (system prompt
   * and tool definitions). Hosts can feed `raw × calibration.factor` to the pipeline's overheadTokens.
   */
  rawOverheadTokens(): number {
    const tools = this.tools.definitions();
    const key = `${this.system.length}:${tools.map((t) => t.name).join(',')}`;
    if (this.overheadCache?.key === key) return this.overheadCache.tokens;
    const n = requestOverheadTokens(this.tokenizer, this.system, tools);
    this.overheadCache = { key, tokens: n };
    return n;
  }

  /** Send a prompt and work until the model ends its turn. Rejects with AgentBusyError if a run is in progress. */
  async run(prompt: string): Promise<AgentRunResult> {
    if (this.current) throw new AgentBusyError();
    if (typeof prompt !== 'string' || prompt.trim() === '') throw new AgentStateError('The prompt is empty.');
    const message: Message = { id: newMessageId('u'), role: 'user', content: prompt, createdAt: this.now() };
    this.session.append(message);
    this.pipeline.noteEvent('message');
    return this.drive('prompt', message.id);
  }

  /** Continue from the current history (after an API error). Rejects when busy or when there is nothing to retry. */
  async retry(): Promise<AgentRunResult> {
    if (this.current) throw new AgentBusyError();
    if (!this.canRetry) throw new AgentStateError('There is nothing to retry: the last reply from the model is complete.');
    return this.drive('retry');
  }

  /**
   * Stop the current run: the stream is aborted (partial text kept, unfinished tool calls dropped),
   * a running command is killed, a pending approval resolves as rejected, and tool calls not yet run
   * are answered "Cancelled by the user.". Resolves with the run's result (undefined if idle).
   */
  stop(): Promise<AgentRunResult | undefined> {
    const run = this.current;
    if (!run) return Promise.resolve(undefined);
    run.controller.abort();
    return run.promise ?? Promise.resolve(undefined);
  }

  dispose(): void {
    void this.stop();
    for (const s of this.subscriptions.splice(0)) s.dispose();
  }

  // -------------------------------------------------------------------------------------------

  private drive(kind: 'prompt' | 'retry', promptMessageId?: string): Promise<AgentRunResult> {
    const state: RunState = { runId: newMessageId('run'), controller: new AbortController(), steps: 0, inputTokens: 0, outputTokens: 0, stopReason: null };
    this.current = state;
    const promise = (async () => {
      this.emit({ type: 'turn-started', runId: state.runId, kind, ...(promptMessageId ? { promptMessageId } : {}) });
      let result: AgentRunResult;
      try {
        result = await this.loop(state);
      } catch (e) {
        // A bug or an unexpected failure (e.g. the session could not be persisted): report it.
        const err = toLlmError(e);
        const info: AgentErrorInfo = { message: `The agent stopped unexpectedly: ${err.message}`, retryable: false, kind: err.kind };
        this.emit({ type: 'error', runId: state.runId, ...info });
        result = this.result(state, 'error', info);
      } finally {
        this.current = null;
      }
      this.lastStopReason = state.stopReason;
      this.emit({ type: 'turn-ended', runId: state.runId, result });
      return result;
    })();
    state.promise = promise;
    return promise;
  }

  private async loop(s: RunState): Promise<AgentRunResult> {
    const signal = s.controller.signal;
    for (;;) {
      if (signal.aborted) return this.result(s, 'cancelled');
      if (s.steps >= this.maxSteps) {
        this.emit({ type: 'notice', runId: s.runId, level: 'warning', message: `Stopped after ${this.maxSteps} model calls in one run. Send a message to continue.` });
        return this.result(s, 'max_steps');
      }
      s.steps++;
      const step = s.steps;

      const prepared = await this.pipeline.beforeModelCall(signal);
      if (signal.aborted) return this.result(s, 'cancelled');
      const estimatedRaw = this.calibration ? this.calibration.rawCountMessages(this.pipeline.effectiveMessages()) + this.rawOverheadTokens() : prepared.tokens;
      this.emit({ type: 'request-started', runId: s.runId, step, estimatedTokens: prepared.tokens, truncatedResults: prepared.truncatedResults });

      const outcome = await this.streamStep(s, step, prepared.messages, signal);
      if (outcome.kind === 'aborted') {
        const kept = this.keepPartial(outcome.blocks);
        this.emit({ type: 'assistant-interrupted', runId: s.runId, step, reason: 'cancelled', kept });
        return this.result(s, 'cancelled');
      }
      if (outcome.kind === 'error') {
        this.emit({ type: 'assistant-interrupted', runId: s.runId, step, reason: 'error', kept: null });
        this.emit({ type: 'error', runId: s.runId, ...outcome.error });
        return this.result(s, 'error', outcome.error);
      }

      const reply = outcome.message;
      s.stopReason = reply.stop_reason;
      this.recordUsage(s, step, reply, estimatedRaw);
      const content = normalizeBlocks(reply.content as unknown as ContentBlock[]);
      const uses = content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
      let assistant: Message | null = null;
      if (content.length > 0) {
        assistant = { id: newMessageId('a'), role: 'assistant', content, createdAt: this.now() };
        this.session.append(assistant);
        this.pipeline.noteEvent('message');
        this.emit({ type: 'assistant-message', runId: s.runId, step, message: assistant, stopReason: reply.stop_reason });
      }

      if (reply.stop_reason === 'max_tokens') {
        if (uses.length > 0) {
          this.appendResults(uses.map((u) => toolResultBlock(u.id, { content: MAX_TOKENS_NOT_EXECUTED, isError: true })));
          for (const u of uses) this.emit({ type: 'tool-result', runId: s.runId, toolUseId: u.id, name: u.name, output: MAX_TOKENS_NOT_EXECUTED, isError: true, cancelled: false });
        }
        this.emit({ type: 'notice', runId: s.runId, level: 'warning', message: `The reply was cut off at the max_tokens limit (${this.maxTokens} tokens). Ask the model to continue, or raise the limit.` });
        return this.result(s, 'max_tokens');
      }

      if (uses.length > 0) {
        const results = await this.executeTools(s, uses, signal);
        this.appendResults(results);
        this.pipeline.noteEvent('tool-output');
        if (signal.aborted) return this.result(s, 'cancelled');
        await this.pipeline.runPendingCompaction(signal);
        if (signal.aborted) return this.result(s, 'cancelled');
        continue;
      }

      if (reply.stop_reason === 'pause_turn') continue;
      if (reply.stop_reason === 'refusal') this.emit({ type: 'notice', runId: s.runId, level: 'warning', message: 'The model declined to continue with this request.' });
      if (!assistant) this.emit({ type: 'notice', runId: s.runId, level: 'warning', message: 'The model returned an empty reply.' });
      return this.result(s, 'completed');
    }
  }

  /** One streamed model call; events are emitted as the stream arrives. */
  private async streamStep(s: RunState, step: number, messages: ApiMessage[], signal: AbortSignal): Promise<StepOutcome> {
    const tools = this.tools.definitions();
    let snapshot: Anthropic.Message | undefined;
    const completed = new Set<number>();
    try {
      const stream = this.client.messages.stream(
        {
          model: this.model,
          max_tokens: this.maxTokens,
          system: this.system,
          ...(tools.length > 0 ? { tools: tools as Anthropic.Tool[] } : {}),
          messages: messages as Anthropic.MessageParam[],
        },
        { signal },
      );
      stream.on('streamEvent', (event, snap) => {
        snapshot = snap;
        switch (event.type) {
          case 'content_block_start':
            if (event.content_block.type === 'tool_use') {
              this.emit({ type: 'tool-call-started', runId: s.runId, step, index: event.index, toolUseId: event.content_block.id, name: event.content_block.name });
            }
            break;
          case 'content_block_delta':
            if (event.delta.type === 'text_delta') this.emit({ type: 'text-delta', runId: s.runId, step, index: event.index, text: event.delta.text });
            else if (event.delta.type === 'thinking_delta') this.emit({ type: 'thinking-delta', runId: s.runId, step, index: event.index, thinking: event.delta.thinking });
            break;
          case 'content_block_stop': {
            completed.add(event.index);
            const block = snap.content[event.index];
            if (block?.type === 'tool_use') this.emit({ type: 'tool-call-input', runId: s.runId, step, index: event.index, toolUseId: block.id, name: block.name, input: block.input });
            break;
          }
        }
      });
      const message = await stream.finalMessage();
      return { kind: 'message', message };
    } catch (e) {
      if (signal.aborted) return { kind: 'aborted', blocks: partialBlocks(snapshot, completed) };
      const err = toLlmError(e);
      const message = err.kind === 'prompt_too_long' ? `${err.message.replace(/\.?\s*$/, '.')} Compact the conversation, then retry.` : err.message;
      return {
        kind: 'error',
        error: {
          message,
          retryable: err.retryable,
          kind: err.kind,
          ...(err.status !== undefined ? { status: err.status } : {}),
          ...(err.retryAfterMs !== undefined ? { retryAfterMs: err.retryAfterMs } : {}),
        },
      };
    }
  }

  /** After a cancelled stream: append what is usable and close any finished tool calls. */
  private keepPartial(blocks: ContentBlock[]): Message | null {
    if (blocks.length === 0) return null;
    const message: Message = { id: newMessageId('a'), role: 'assistant', content: blocks, createdAt: this.now() };
    this.session.append(message);
    const uses = blocks.filter((b): b is ToolUseBlock => b.type === 'tool_use');
    if (uses.length > 0) this.appendResults(uses.map((u) => toolResultBlock(u.id, { content: CANCELLED_BY_USER, isError: true })));
    return message;
  }

  private async executeTools(s: RunState, uses: ToolUseBlock[], signal: AbortSignal): Promise<ToolResultBlock[]> {
    const results: ToolResultBlock[] = [];
    for (const use of uses) {
      let result: ToolResult;
      if (signal.aborted) {
        result = { content: CANCELLED_BY_USER, isError: true };
      } else {
        this.emit({ type: 'tool-running', runId: s.runId, toolUseId: use.id, name: use.name, input: use.input });
        try {
          result = await this.tools.execute(
            { id: use.id, name: use.name, input: use.input },
            {
              toolUseId: use.id,
              signal,
              requestApproval: (req) => this.requestApproval(s, { ...req, toolUseId: use.id }, signal),
              requestCompaction: (focus) => this.pipeline.requestCompaction('tool', focus),
              onOutput: (chunk) => this.emit({ type: 'tool-output', runId: s.runId, toolUseId: use.id, chunk }),
            },
          );
        } catch (e) {
          result = { content: `${use.name} failed unexpectedly: ${e instanceof Error ? e.message : String(e)}`, isError: true };
        }
      }
      if (result.content === '') result = { ...result, content: '(no output)' };
      this.emit({ type: 'tool-result', runId: s.runId, toolUseId: use.id, name: use.name, output: result.content, isError: result.isError, cancelled: signal.aborted && result.isError });
      results.push(toolResultBlock(use.id, result));
    }
    return results;
  }

  private async requestApproval(s: RunState, request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> {
    const cancelled: ApprovalDecision = { approved: false, reason: CANCELLED_BY_USER };
    if (signal.aborted) return cancelled;
    this.emit({ type: 'tool-awaiting-approval', runId: s.runId, request });
    let decision: ApprovalDecision;
    try {
      decision = await raceAbort(this.approvals.request(request, signal), signal, cancelled);
    } catch (e) {
      decision = { approved: false, reason: `the approval prompt failed (${e instanceof Error ? e.message : String(e)})` };
    }
    if (signal.aborted) decision = cancelled;
    this.emit({ type: 'tool-approval-resolved', runId: s.runId, toolUseId: request.toolUseId, approved: decision.approved, ...(decision.reason ? { reason: decision.reason } : {}) });
    return decision;
  }

  private appendResults(results: ToolResultBlock[]): void {
    this.session.append({ id: newMessageId('r'), role: 'user', content: results, createdAt: this.now() });
  }

  private recordUsage(s: RunState, step: number, reply: Anthropic.Message, estimatedRaw: number): void {
    const usage = reply.usage;
    const input = totalInputTokens(usage);
    const output = usage.output_tokens ?? 0;
    s.inputTokens += input;
    s.outputTokens += output;
    this.calibration?.observe(estimatedRaw, input);
    this.emit({
      type: 'usage',
      runId: s.runId,
      step,
      inputTokens: input,
      outputTokens: output,
      cacheReadInputTokens: usage.cache_read_input_tokens ?? 0,
      cacheCreationInputTokens: usage.cache_creation_input_tokens ?? 0,
      contextTokens: input + output,
      ...(this.contextWindow !== undefined ? { contextWindow: this.contextWindow } : {}),
      estimatedInputTokens: estimatedRaw,
    });
  }

  private result(s: RunState, status: AgentRunStatus, error?: AgentErrorInfo): AgentRunResult {
    return { runId: s.runId, status, stopReason: s.stopReason, steps: s.steps, usage: { inputTokens: s.inputTokens, outputTokens: s.outputTokens }, ...(error ? { error } : {}) };
  }

  private emit(e: AgentEvent): void {
    try {
      this.onEvent(e);
    } catch (err) {
      // A broken listener must not break the run (or the SDK's stream); it is reported, not hidden.
      console.error(`splitpoint: agent event listener failed on ${e.type}:`, err);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers

function toolResultBlock(toolUseId: string, r: ToolResult): ToolResultBlock {
  return { type: 'tool_result', tool_use_id: toolUseId, content: r.content === '' ? '(no output)' : r.content, ...(r.isError ? { is_error: true } : {}) };
}

/**
 * The reply's blocks as plain data for the session: SDK objects (lazy tool inputs, null citations)
 * become JSON values; whitespace-only text blocks, which the API rejects in requests, are dropped.
 */
function normalizeBlocks(blocks: readonly ContentBlock[]): ContentBlock[] {
  const out: ContentBlock[] = [];
  for (const b of blocks) {
    const n = normalizeBlock(b);
    if (n) out.push(n);
  }
  return out;
}

function normalizeBlock(b: ContentBlock): ContentBlock | null {
  const r = b as Record<string, unknown>;
  switch (b.type) {
    case 'text': {
      const text = String(r.text ?? '');
      if (text.trim() === '') return null;
      return Array.isArray(r.citations) && r.citations.length > 0 ? { type: 'text', text, citations: plain(r.citations) } : { type: 'text', text };
    }
    case 'thinking':
      return { type: 'thinking', thinking: String(r.thinking ?? ''), signature: String(r.signature ?? '') };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: String(r.data ?? '') };
    case 'tool_use':
      return { type: 'tool_use', id: String(r.id), name: String(r.name), input: plain(r.input ?? {}) };
    default:
      return plain(b) as ContentBlock;
  }
}

/** What can be kept of a reply cut off by stop(): text so far and tool calls that finished streaming. */
function partialBlocks(snapshot: Anthropic.Message | undefined, completed: ReadonlySet<number>): ContentBlock[] {
  if (!snapshot) return [];
  const kept: ContentBlock[] = [];
  let substantive = false;
  snapshot.content.forEach((raw, index) => {
    const b = raw as unknown as ContentBlock;
    if (b.type === 'text') {
      const n = normalizeBlock(b);
      if (n) {
        kept.push(n);
        substantive = true;
      }
    } else if (b.type === 'tool_use') {
      if (completed.has(index)) {
        kept.push(normalizeBlock(b)!);
        substantive = true;
      }
    } else if ((b.type === 'thinking' || b.type === 'redacted_thinking') && completed.has(index)) {
      kept.push(normalizeBlock(b)!);
    }
  });
  return substantive ? kept : [];
}

function plain(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value)) as unknown;
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
