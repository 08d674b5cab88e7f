// The agent loop: prompt -> (compaction layers) -> streamed model call -> tool calls (with approval)
// -> tool results -> … until the model ends its turn. The session log is the single history; after
// every step it is a valid Messages API request, whatever happened (cancellation, API errors,
// rejected approvals, max_tokens). The UI follows along through AgentEvent.
// No `vscode` import: this runs in plain Node (the extension glue maps events to chat items).
import type Anthropic from '@anthropic-ai/sdk';
import {
  CharEstimateTokenizer,
  newMessageId,
  setSessionTodo,
  SplitpointError,
  systemWithStanding,
  todoTrailer,
  totalInputTokens,
  type CalibratedCounter,
  type CompactionPipeline,
  type ContentBlock,
  type ConversationRequest,
  type Disposable,
  type Message,
  type RecordedUsage,
  type SessionLog,
  type StandingContext,
  type TextTokenizer,
  type ToolResultBlock,
  type ToolUseBlock,
} from '../../core';
import type { AgentErrorInfo, AgentEvent, AgentRunResult, AgentRunStatus } from './agentEvents';
import { cacheStateFromUsage } from './cacheState';
import { toLlmError } from './anthropicClient';
import { defaultSystemPrompt, messageStreamParams, requestOverheadTokens } from './modelRequest';
import { streamModelReply } from './modelStream';
import { promptContent } from '../service/promptAttachments';
import type { PromptCachingSetting } from './promptCache';
import { normalizeBlocks, toolResultBlock } from './replyBlocks';
import { validUsage, type ValidUsage } from './replyUsage';
import { commitServerCompaction, keptReplyBlocks, reportFor, serverCallFor, serverEdited, ServerContextNotices } from './serverContextStep';
import { summaryConversation, type SentRequest } from './summaryConversation';
import { executeToolCalls, fileToolPaths, type ToolCallServices } from './toolCalls';
import { CANCELLED_BY_USER, type ApprovalGate, type ToolDefinition, type ToolExecutor } from '../tools';

// The loop's public surface includes its events and the request helpers hosts use before it exists.
export type { AgentErrorInfo, AgentEvent, AgentEventType, AgentRunResult, AgentRunStatus } from './agentEvents';
export { defaultSystemPrompt, requestOverheadTexts, requestOverheadTokens } from './modelRequest';

// Options -------------------------------------------------------------------------------------

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
  /** Prompt-cache breakpoints: their TTL, or 'off' (default '5m'). */
  promptCaching?: PromptCachingSetting;
  /**
   * What every request carries outside the history (instruction files, the user's instructions, the
   * task list): read before every model call and appended to the system prompt (issue 23).
   */
  standing?: () => StandingContext;
  /** A file tool (read_file, edit_file, write_file) was called with this workspace path (nested instruction files). */
  onFileTouched?: (path: string) => void;
  onEvent: (e: AgentEvent) => void;
  now?: () => number;
}

/** run() or retry() while a run is in progress. */
export class AgentBusyError extends SplitpointError {
  constructor() {
    super('The agent is already working on a request. Wait for it to finish or stop it first.');
    this.name = 'AgentBusyError';
  }
}

/** retry() when there is nothing to retry, or run() with an empty prompt. */
export class AgentStateError extends SplitpointError {
  constructor(message: string) {
    super(message);
    this.name = 'AgentStateError';
  }
}

export const DEFAULT_MAX_STEPS = 200;
export const MAX_TOKENS_NOT_EXECUTED = 'Not executed: the reply reached the max_tokens limit, so this tool call may be incomplete.';

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

export class AgentLoop implements Disposable {
  private readonly client: Anthropic;
  private readonly pipeline: CompactionPipeline;
  private readonly tools: ToolExecutor;
  private readonly toolCalls: ToolCallServices;
  private readonly calibration?: CalibratedCounter;
  private readonly tokenizer: TextTokenizer;
  private readonly onEvent: (e: AgentEvent) => void;
  private readonly now: () => number;
  private readonly subscriptions: Disposable[] = [];
  private current: RunState | null = null;
  private lastStopReason: string | null = null;
  private overheadCache: { key: string; tokens: number } | null = null;
  /** The last request sent, for the summary request that reuses its cached prefix. */
  private lastSent: SentRequest | undefined;
  private readonly serverNotices = new ServerContextNotices();
  private readonly standing?: () => StandingContext;
  private readonly onFileTouched?: (path: string) => void;
  /** The system prompt as last sent (the base prompt and the standing section). */
  private currentSystem: string;
  private currentTrailer = ''; // the task list, sent after the next request's last cache breakpoint
  readonly model: string;
  readonly maxTokens: number;
  readonly system: string;
  readonly maxSteps: number;
  readonly contextWindow?: number;
  readonly promptCaching: PromptCachingSetting;

  constructor(options: AgentLoopOptions) {
    this.client = options.client;
    this.model = options.model;
    this.maxTokens = options.maxTokens;
    this.pipeline = options.pipeline;
    this.tools = options.tools;
    this.toolCalls = {
      tools: options.tools,
      approvals: options.approvals,
      requestCompaction: (focus) => this.pipeline.requestCompaction('tool', focus),
      setTodo: (items) => setSessionTodo(this.pipeline.session, items),
      emit: (e) => this.emit(e),
    };
    this.calibration = options.calibration;
    this.tokenizer = options.tokenizer ?? new CharEstimateTokenizer();
    this.onEvent = options.onEvent;
    this.now = options.now ?? Date.now;
    this.system = options.system ?? defaultSystemPrompt({ readOnly: options.tools.readOnly });
    this.maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
    this.contextWindow = options.contextWindow;
    this.promptCaching = options.promptCaching ?? '5m';
    this.standing = options.standing;
    this.onFileTouched = options.onFileTouched;
    this.currentSystem = this.system;
    const runId = () => this.current?.runId;
    this.subscriptions.push(
      this.pipeline.onWillCompact((e) =>
        this.emit({ type: 'compaction-started', runId: runId(), strategy: e.strategy, trigger: e.trigger, summarizing: e.summarizing }),
      ),
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
    const system = this.currentTrailer === '' ? this.currentSystem : `${this.currentSystem}\n\n${this.currentTrailer}`;
    const key = `${system}\u0000${tools.map((t) => t.name).join(',')}`;
    if (this.overheadCache?.key === key) return this.overheadCache.tokens;
    const n = requestOverheadTokens(this.tokenizer, system, tools);
    this.overheadCache = { key, tokens: n };
    return n;
  }

  /**
   * The conversation's request for a summary that reuses its cached prefix: the last request as sent
   * (system, tools, messages with their breakpoints), then the history since; or why nothing of the
   * history is cached (see summaryConversation.ts).
   */
  summaryConversation(): ConversationRequest | { unusable: string } {
    const count = (messages: readonly Message[]) =>
      this.calibration ? this.calibration.countMessages(messages) : this.tokenizer.countText(JSON.stringify(messages));
    return summaryConversation({
      sent: this.lastSent,
      session: this.session.messages,
      rewriteVersion: this.session.rewriteVersion,
      effective: this.pipeline.effectiveMessages(),
      caching: this.pipeline.cacheTtl(this.promptCaching),
      now: this.now(),
      countMessages: count,
      overheadTokens: Math.round(this.rawOverheadTokens() * (this.calibration?.factor ?? 1)),
    });
  }

  /** Send a prompt and work until the model ends its turn. Rejects with AgentBusyError if a run is in progress. */
  /** `extra`: blocks after the prompt's text (@-mentioned files, images); with them the text may be empty. */
  async run(prompt: string, extra: readonly ContentBlock[] = []): Promise<AgentRunResult> {
    if (this.current) throw new AgentBusyError();
    if (typeof prompt !== 'string' || (prompt.trim() === '' && extra.length === 0)) throw new AgentStateError('The prompt is empty.');
    const content = promptContent(prompt, extra);
    const message: Message = { id: newMessageId('u'), role: 'user', content, createdAt: this.now() };
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
    const state: RunState = {
      runId: newMessageId('run'),
      controller: new AbortController(),
      steps: 0,
      inputTokens: 0,
      outputTokens: 0,
      stopReason: null,
    };
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
        this.warn(s, `Stopped after ${this.maxSteps} model calls in one run. Send a message to continue.`);
        return this.result(s, 'max_steps');
      }
      s.steps++;
      const step = s.steps;

      await this.tools.ready?.(signal); // e.g. MCP servers still starting (bounded)
      this.refreshSystem();
      const prepared = await this.pipeline.beforeModelCall(signal);
      if (signal.aborted) return this.result(s, 'cancelled');
      const estimatedRaw = this.calibration
        ? this.calibration.rawCountMessages(this.pipeline.effectiveMessages()) + this.rawOverheadTokens()
        : prepared.tokens;
      this.emit({
        type: 'request-started',
        runId: s.runId,
        step,
        estimatedTokens: prepared.tokens,
        truncatedResults: prepared.truncatedResults,
      });

      const tools = this.tools.definitions();
      const params = messageStreamParams({
        model: this.model,
        maxTokens: this.maxTokens,
        system: this.currentSystem,
        tools,
        messages: prepared.messages,
        caching: this.pipeline.cacheTtl(this.promptCaching),
        stableMessages: prepared.stableApiMessages,
        trailer: this.currentTrailer,
      });
      const sent: SentRequest = {
        params,
        sessionLength: this.session.messages.length,
        rewriteVersion: this.session.rewriteVersion,
        sentAt: this.now(),
      };
      this.lastSent = sent;
      const server = serverCallFor(this.pipeline.settings.autoCompact);
      const outcome = await streamModelReply(this.client, params, { runId: s.runId, step }, signal, (e) => this.emit(e), server?.request);
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
      const report = reportFor(server, reply);
      const usage = validUsage(reply.usage);
      if (usage) this.recordUsage(s, step, usage, estimatedRaw, serverEdited(report));
      if (usage && !serverEdited(report)) sent.inputTokens = totalInputTokens(usage);
      const content = keptReplyBlocks(normalizeBlocks(reply.content as unknown as ContentBlock[]), server);
      const uses = content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
      let assistant: Message | null = null;
      if (content.length > 0) {
        assistant = {
          id: newMessageId('a'),
          role: 'assistant',
          content,
          createdAt: this.now(),
          ...(usage ? { usage: recordedUsageOf(usage, reply.model) } : {}),
          ...(report ? { serverContext: report } : {}),
        };
        this.session.append(assistant);
        this.pipeline.noteEvent('message');
        this.emit({ type: 'assistant-message', runId: s.runId, step, message: assistant, stopReason: reply.stop_reason });
      }

      const notice = this.serverNotices.noticeFor(report);
      if (notice) this.emit({ type: 'notice', runId: s.runId, ...notice });

      if (reply.stop_reason === 'max_tokens') return this.endAtMaxTokens(s, uses);

      if (uses.length > 0) {
        const results = await executeToolCalls(this.toolCalls, s.runId, uses, signal);
        if (this.onFileTouched) for (const p of fileToolPaths(uses)) this.onFileTouched(p);
        this.appendResults(results);
        this.pipeline.noteEvent('tool-output');
        if (signal.aborted) return this.result(s, 'cancelled');
        if (report?.compaction === 'applied') await commitServerCompaction(this.pipeline, signal);
        await this.pipeline.runPendingCompaction(signal);
        if (signal.aborted) return this.result(s, 'cancelled');
        continue;
      }

      if (report?.compaction === 'applied') await commitServerCompaction(this.pipeline, signal);
      // pause_after_compaction: the reply is the compaction block alone; send the request again to continue.
      if (reply.stop_reason === 'pause_turn' || (reply.stop_reason as string) === 'compaction') continue;
      if (reply.stop_reason === 'refusal') this.warn(s, 'The model declined to continue with this request.');
      if (!assistant) this.warn(s, 'The model returned an empty reply.');
      return this.result(s, 'completed');
    }
  }

  /** The system prompt for the next request: the base prompt and the standing section as it is now. */
  private refreshSystem(): void {
    const standing = this.standing?.();
    this.currentSystem = systemWithStanding(this.system, standing);
    this.currentTrailer = todoTrailer(standing);
  }

  /** The reply was cut at max_tokens: its tool calls may be incomplete, so none runs; each is answered "Not executed". */
  private endAtMaxTokens(s: RunState, uses: ToolUseBlock[]): AgentRunResult {
    if (uses.length > 0) {
      this.appendResults(uses.map((u) => toolResultBlock(u.id, { content: MAX_TOKENS_NOT_EXECUTED, isError: true })));
      for (const u of uses) {
        this.emit({
          type: 'tool-result',
          runId: s.runId,
          toolUseId: u.id,
          name: u.name,
          output: MAX_TOKENS_NOT_EXECUTED,
          isError: true,
          cancelled: false,
        });
      }
    }
    this.warn(
      s,
      `The reply was cut off at the max_tokens limit (${this.maxTokens} tokens). Ask the model to continue, or raise the limit.`,
    );
    return this.result(s, 'max_tokens');
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

  private appendResults(results: ToolResultBlock[]): void {
    this.session.append({ id: newMessageId('r'), role: 'user', content: results, createdAt: this.now() });
  }

  private recordUsage(s: RunState, step: number, usage: ValidUsage, estimatedRaw: number, serverEdited = false): void {
    const input = totalInputTokens(usage);
    const output = usage.output_tokens;
    s.inputTokens += input;
    s.outputTokens += output;
    // A request the server edited reports what the model saw, not what was sent: nothing to calibrate against.
    if (!serverEdited) this.calibration?.observe(estimatedRaw, input);
    this.pipeline.noteCache(cacheStateFromUsage(usage, this.model));
    this.emit({
      type: 'usage',
      runId: s.runId,
      step,
      inputTokens: input,
      outputTokens: output,
      cacheReadInputTokens: usage.cache_read_input_tokens,
      cacheCreationInputTokens: usage.cache_creation_input_tokens,
      contextTokens: input + output,
      ...(this.contextWindow !== undefined ? { contextWindow: this.contextWindow } : {}),
      estimatedInputTokens: estimatedRaw,
    });
  }

  private result(s: RunState, status: AgentRunStatus, error?: AgentErrorInfo): AgentRunResult {
    const usage = { inputTokens: s.inputTokens, outputTokens: s.outputTokens };
    return { runId: s.runId, status, stopReason: s.stopReason, steps: s.steps, usage, ...(error ? { error } : {}) };
  }

  private warn(s: RunState, message: string): void {
    this.emit({ type: 'notice', runId: s.runId, level: 'warning', message });
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

/** What the API reported for a reply (validated), as stored on its assistant message (input excludes cache reads and writes). */
export function recordedUsageOf(u: ValidUsage, model: string | undefined): RecordedUsage {
  return {
    inputTokens: u.input_tokens,
    cacheReadTokens: u.cache_read_input_tokens,
    cacheCreationTokens: u.cache_creation_input_tokens,
    ...(u.cache_creation_1h_input_tokens !== undefined ? { cacheWrite1hTokens: u.cache_creation_1h_input_tokens } : {}),
    outputTokens: u.output_tokens,
    ...(model ? { model } : {}),
  };
}
