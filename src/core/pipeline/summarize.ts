// The summarizer: turns a plan's summarizer input into one summary text through any LLM client.
// It pre-trims its own input to fit the summarizer's window, retries transient failures with
// backoff (honouring retry-after), trims further on "prompt is too long", and is cancellable.
// Failure is a value: the caller leaves the history unchanged.
import {
  blocksOf,
  textOf,
  toolNamesById,
  toolResultText,
  type ApiMessage,
  type Message,
  type ToolResultBlock,
} from '../conversation/conversation';
import { errorMessage, SplitpointError } from '../base/errors';
import { isEmptyLedger, renderLedger } from '../ledger/ledgerMerge';
import type { SummarizerInput } from './plan';
import type { TextTokenizer } from '../counting/tokens';
import { cachedPrefixMessages, type ConversationRequest, type SystemTextBlock } from './summaryRequest';

/** What the summarizer needs from a model client (the Anthropic client implements it). */
export interface LlmClient {
  complete(request: LlmRequest): Promise<LlmResponse>;
}

export interface LlmRequest {
  /** A string, or the conversation's system blocks as sent (cached-prefix requests). */
  system: string | readonly SystemTextBlock[];
  /** The conversation's tool definitions as sent (cached-prefix requests); tool_choice is never changed. */
  tools?: readonly unknown[];
  messages: ApiMessage[];
  maxTokens: number;
  signal?: AbortSignal;
}

export interface LlmResponse {
  text: string;
  /** Uncached input (the API's input_tokens: neither read from nor written to the cache). */
  inputTokens?: number;
  cacheReadInputTokens?: number;
  cacheCreationInputTokens?: number;
  outputTokens?: number;
  stopReason?: string | null;
}

export type LlmErrorKind = 'rate_limit' | 'overloaded' | 'server' | 'prompt_too_long' | 'aborted' | 'timeout' | 'other';

/** A failed model call, classified so the summarizer knows whether to retry. */
export class LlmError extends SplitpointError {
  constructor(
    readonly kind: LlmErrorKind,
    message: string,
    readonly status?: number,
    /** From a retry-after header, in ms. */
    readonly retryAfterMs?: number,
    /** For prompt_too_long: the sizes the API reported ("N tokens > M maximum"). */
    readonly promptTokens?: number,
    readonly maxPromptTokens?: number,
  ) {
    super(message);
    this.name = 'LlmError';
  }

  get retryable(): boolean {
    return this.kind === 'rate_limit' || this.kind === 'overloaded' || this.kind === 'server' || this.kind === 'timeout';
  }
}

/**
 * Parse the API's "prompt is too long: N tokens > M maximum" message, or its sibling "input length
 * and `max_tokens` exceed context limit: I + X > L, decrease input length or `max_tokens` and try
 * again" (the input alone fits, but not with room for the answer). For the latter the prompt may
 * be at most L - X tokens, which is what `maxPromptTokens` reports.
 */
export function parsePromptTooLong(message: string): { promptTokens: number; maxPromptTokens: number } | null {
  const m = /prompt is too long:\s*(\d+)\s*tokens\s*>\s*(\d+)\s*maximum/i.exec(message);
  if (m) return { promptTokens: Number(m[1]), maxPromptTokens: Number(m[2]) };
  const c = /input length and `?max_tokens`? exceed context limit:\s*(\d+)\s*\+\s*(\d+)\s*>\s*(\d+)/i.exec(message);
  if (c) {
    const input = Number(c[1]);
    const room = Number(c[3]) - Number(c[2]);
    // When max_tokens alone fills the window, no trimming of the input can help.
    if (room > 0) return { promptTokens: input, maxPromptTokens: room };
  }
  return null;
}

export const SUMMARY_SYSTEM_PROMPT =
  `You are compacting the history of a coding agent's session so the agent can keep working after older messages are removed from its context. ` +
  `Write a summary that lets the agent continue exactly where it left off. ` +
  `Be specific: names, paths, commands, numbers and error messages matter more than prose. ` +
  `Never invent facts that are not in the conversation.`;

export const SUMMARY_INSTRUCTIONS = `Summarize the conversation above for continuity. Use these sections, in this order:

1. User requests and constraints: every request and constraint the user stated, verbatim where short.
2. Accomplished: what has been done so far.
3. Current state: where the work stands right now.
4. Files and artifacts: every file, command, URL or artifact read, created or changed, with what changed.
5. Errors and fixes: each error met and how it was fixed (or that it is still open).
6. Key decisions: decisions taken and why.
7. Pending work and next step: what remains, and the very next step the agent should take.

Reply with the summary only.`;

export interface SummarizeOptions {
  client: LlmClient;
  /** Counts the summarizer prompt's tokens for pre-trim. */
  tokenizer: TextTokenizer;
  /** The summarizer model's context window. */
  contextWindow: number;
  /** max_tokens for the summary itself. */
  maxSummaryTokens: number;
  focus?: string;
  signal?: AbortSignal;
  /** Retries for rate limits, overload and server errors (default 4). */
  maxRetries?: number;
  /** Backoff base in ms (default 1000; doubled per attempt, capped at 30 s). */
  backoffMs?: number;
  /** Injected for tests. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Called before each retry (for progress UI and logs). */
  onRetry?: (info: { attempt: number; delayMs: number; error: LlmError }) => void;
  /**
   * The conversation's request as its agent sent it. When given, the summary request is that request
   * with the summarize instruction appended as the last user turn (its cached prefix is read back);
   * when it would not fit the window, or the API refuses it, the standalone request is sent instead.
   * `{ unusable }`: the agent's reason why nothing of the conversation is cached (standalone request).
   */
  conversation?: ConversationRequest | { unusable: string };
}

/** 'cached-prefix': the conversation's request plus the instruction; 'standalone': SUMMARY_SYSTEM_PROMPT and a transcript. */
export type SummaryRequestKind = 'cached-prefix' | 'standalone';

/** What the summary's answered calls reported, summed (input is the uncached part, as the API reports it). */
export interface SummaryUsage {
  inputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
  outputTokens: number;
}

export type SummaryResult =
  | {
      ok: true;
      summary: string;
      attempts: number;
      promptTokens: number;
      droppedMessages: number;
      truncatedResults: number;
      /** Which request produced the summary (summarize() always sets it). */
      request?: SummaryRequestKind;
      /** Why a standalone request was sent although a conversation was given. */
      standaloneReason?: string;
      /** Usage of every answered call, when the client reported it. */
      usage?: SummaryUsage;
    }
  | { ok: false; error: SummarizationError; attempts: number };

export class SummarizationError extends SplitpointError {
  constructor(
    readonly reason: 'empty' | 'failed' | 'aborted' | 'too_long',
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'SummarizationError';
  }
}

/** Lines of an old tool output kept by the pre-trim (its tail: where errors and results usually are). */
const TRIMMED_TOOL_OUTPUT_LINES = 40;
const TRIMMED_TOOL_OUTPUT_CHARS = 4_000;

interface PromptParts {
  prior: string[];
  items: string[];
  overlap: string[];
  /** The rendered artifact ledger (never trimmed). */
  ledger?: string;
}

/** The ledger's prompt section: what the summarizer may rely on, and must not repeat. */
export const LEDGER_PROMPT_HEADING =
  '=== ARTIFACT LEDGER (extracted without a model; appended to your summary as is: use it, do not repeat it) ===';

/** Render messages as readable transcript text, one item per message. */
export function renderMessages(messages: readonly Message[], names: ReadonlyMap<string, string>, trimToolOutputs: boolean): string[] {
  return messages.map((m) => {
    const who = m.role === 'user' ? 'User' : 'Assistant';
    if (typeof m.content === 'string') return `${who}: ${m.content}`;
    const parts = blocksOf(m).map((b) => {
      if (b.type === 'tool_result') {
        const r = b as ToolResultBlock;
        let out = toolResultText(r);
        if (trimToolOutputs) out = trimToolOutput(out);
        return `[tool result${r.is_error ? ' (error)' : ''} from ${names.get(r.tool_use_id) ?? 'a tool'}]\n${out}`;
      }
      return textOf({ content: [b] });
    });
    return `${who}: ${parts.join('\n')}`;
  });
}

/** Keep the last lines of a long tool output, with a note of what was cut. */
export function trimToolOutput(text: string): string {
  const lines = text.split('\n');
  let kept = lines.length > TRIMMED_TOOL_OUTPUT_LINES ? lines.slice(-TRIMMED_TOOL_OUTPUT_LINES).join('\n') : text;
  if (kept.length > TRIMMED_TOOL_OUTPUT_CHARS) kept = kept.slice(-TRIMMED_TOOL_OUTPUT_CHARS);
  return kept.length < text.length ? `[… ${text.length - kept.length} earlier characters of output omitted …]\n${kept}` : text;
}

export function buildSummaryPrompt(parts: PromptParts, focus?: string): string {
  const sections: string[] = [];
  for (const p of parts.prior) sections.push(`=== PRIOR SUMMARY ===\n${p}`);
  if (parts.ledger) sections.push(`${LEDGER_PROMPT_HEADING}\n${parts.ledger}`);
  sections.push(`=== CONVERSATION TO SUMMARIZE ===\n${parts.items.join('\n\n')}`);
  if (parts.overlap.length > 0)
    sections.push(`=== MOST RECENT MESSAGES (kept verbatim after the summary; context only) ===\n${parts.overlap.join('\n\n')}`);
  let instructions = SUMMARY_INSTRUCTIONS;
  if (parts.prior.length > 0)
    instructions += '\nBuild on the prior summary: carry forward everything in it that still matters, updated with the conversation since.';
  if (focus && focus.trim()) instructions += `\n\nFocus: ${focus.trim()}`;
  sections.push(instructions);
  return sections.join('\n\n');
}

/**
 * Fit the prompt into `budget` tokens: first truncate old tool outputs, then drop the oldest items
 * (never prior summaries or the instructions). Returns the prompt and what was removed.
 */
export function pretrim(
  input: SummarizerInput,
  tokenizer: TextTokenizer,
  budget: number,
  focus?: string,
): { prompt: string; tokens: number; droppedMessages: number; truncatedResults: number } {
  const all = [...input.priorSummaries, ...input.toSummarize, ...input.overlap];
  const names = toolNamesById(all);
  const prior = input.priorSummaries.map((m) => textOf(m));
  const raw = renderMessages(input.toSummarize, names, false);
  const overlap = renderMessages(input.overlap, names, true);
  const ledger = input.ledger && !isEmptyLedger(input.ledger) ? renderLedger(input.ledger) : undefined;
  let prompt = buildSummaryPrompt({ prior, items: raw, overlap, ledger }, focus);
  let tokens = tokenizer.countText(prompt);
  if (tokens <= budget) return { prompt, tokens, droppedMessages: 0, truncatedResults: 0 };
  const trimmed = renderMessages(input.toSummarize, names, true);
  const items = trimmed;
  /** Messages from `from` on whose tool output was truncated (dropped ones are not counted twice). */
  const truncatedFrom = (from: number) => items.filter((t, i) => i >= from && t !== raw[i]).length;
  prompt = buildSummaryPrompt({ prior, items, overlap, ledger }, focus);
  tokens = tokenizer.countText(prompt);
  if (tokens <= budget) return { prompt, tokens, droppedMessages: 0, truncatedResults: truncatedFrom(0) };
  // Drop the oldest items: count each item once, subtract as we go (linear, not quadratic).
  // Per-item counts only estimate what removing an item saves (tokens merge across the "\n\n"
  // joins, and the omission note costs a few), so re-count the real prompt and drop more while it
  // is still over budget. The excess shrinks each round, so this takes few full counts.
  const itemTokens = items.map((t) => tokenizer.countText(t) + 1);
  let start = 0;
  const withNote = (from: number) =>
    from === 0
      ? items
      : [`[… ${from} older message${from === 1 ? '' : 's'} omitted to fit the summarizer's window …]`, ...items.slice(from)];
  for (;;) {
    let excess = tokens - budget;
    if (excess <= 0 || start >= items.length) break;
    do {
      excess -= itemTokens[start];
      start++;
    } while (excess > 0 && start < items.length);
    prompt = buildSummaryPrompt({ prior, items: withNote(start), overlap, ledger }, focus);
    tokens = tokenizer.countText(prompt);
  }
  return { prompt, tokens, droppedMessages: start, truncatedResults: truncatedFrom(start) };
}

const defaultSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(new LlmError('aborted', 'cancelled'));
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(new LlmError('aborted', 'cancelled'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** The cached-prefix request for `input`, or why the standalone one is sent instead. */
function cachedPrefixRequest(
  input: SummarizerInput,
  o: SummarizeOptions,
  ledger: string | undefined,
): { request: LlmRequest; tokens: number } | { unusable: string } {
  const c = o.conversation!;
  if ('unusable' in c) return { unusable: c.unusable };
  const built = cachedPrefixMessages(input, c, {
    systemPrompt: SUMMARY_SYSTEM_PROMPT,
    sections: SUMMARY_INSTRUCTIONS,
    ledger,
    ledgerHeading: LEDGER_PROMPT_HEADING,
    focus: o.focus,
  });
  if ('unusable' in built) return built;
  const tokens = c.tokens + o.tokenizer.countText(built.instruction);
  const room = o.contextWindow - o.maxSummaryTokens - 200;
  if (tokens > room)
    return {
      unusable: `the conversation with the instruction (~${tokens} tokens) leaves no room for the summary in the ${o.contextWindow}-token window`,
    };
  return {
    tokens,
    request: { system: c.system, tools: c.tools, messages: built.messages, maxTokens: o.maxSummaryTokens, signal: o.signal },
  };
}

function addUsage(total: SummaryUsage | undefined, res: LlmResponse): SummaryUsage | undefined {
  if (res.inputTokens === undefined && res.outputTokens === undefined) return total;
  const t = total ?? { inputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0, outputTokens: 0 };
  return {
    inputTokens: t.inputTokens + (res.inputTokens ?? 0),
    cacheReadInputTokens: t.cacheReadInputTokens + (res.cacheReadInputTokens ?? 0),
    cacheCreationInputTokens: t.cacheCreationInputTokens + (res.cacheCreationInputTokens ?? 0),
    outputTokens: t.outputTokens + (res.outputTokens ?? 0),
  };
}

const cancelled = (attempts: number, cause?: unknown): SummaryResult => ({
  ok: false,
  attempts,
  error: new SummarizationError('aborted', 'Summarization was cancelled.', cause),
});

/**
 * Generate a summary for `input`. Never throws: failures come back as `{ ok: false }`. With
 * `o.conversation`, the cached-prefix request is tried first; it falls back to the standalone request
 * (pre-trimmed, retried on "prompt is too long") when it does not fit, is refused as too long, or is
 * answered without text.
 */
export async function summarize(input: SummarizerInput, o: SummarizeOptions): Promise<SummaryResult> {
  const maxRetries = o.maxRetries ?? 4;
  const sleep = o.sleep ?? defaultSleep;
  // Leave room for the answer and the system prompt.
  let budget = Math.max(1_000, o.contextWindow - o.maxSummaryTokens - o.tokenizer.countText(SUMMARY_SYSTEM_PROMPT) - 200);
  let attempts = 0;
  let retries = 0;
  let trimRounds = 0;
  /** Set after a "prompt is too long": the prompt that was refused and the error. */
  let refused: { tokens: number; error: LlmError } | undefined;
  let usage: SummaryUsage | undefined;
  const ledger = input.ledger && !isEmptyLedger(input.ledger) ? renderLedger(input.ledger) : undefined;
  let prefix = o.conversation ? cachedPrefixRequest(input, o, ledger) : undefined;
  for (;;) {
    if (o.signal?.aborted) return cancelled(attempts);
    const cached = prefix && 'request' in prefix ? prefix : undefined;
    const trimmed = cached ? undefined : pretrim(input, o.tokenizer, budget, o.focus);
    if (trimmed && refused && trimmed.tokens >= refused.tokens) {
      // Nothing left to trim (what remains is prior summaries, overlap and instructions): sending
      // the same prompt again would only be refused again.
      return tooLong(attempts, trimRounds, refused.error);
    }
    attempts++;
    try {
      const res = await o.client.complete(
        cached?.request ?? {
          system: SUMMARY_SYSTEM_PROMPT,
          messages: [{ role: 'user', content: trimmed!.prompt }],
          maxTokens: o.maxSummaryTokens,
          signal: o.signal,
        },
      );
      usage = addUsage(usage, res);
      const summary = res.text.trim();
      if (cached && (!summary || res.stopReason === 'tool_use')) {
        // Text before a tool call is a preamble, not a summary.
        prefix = {
          unusable: summary
            ? 'the model answered the cached-prefix request with a tool call'
            : `the model answered the cached-prefix request without text (stop reason ${res.stopReason ?? 'unknown'})`,
        };
        continue;
      }
      if (!summary)
        return {
          ok: false,
          attempts,
          error: new SummarizationError('empty', 'The model returned an empty summary; the history was left unchanged.'),
        };
      return {
        ok: true,
        // The ledger is the engine's: appended to the summary as rendered, whatever the model wrote.
        summary: ledger ? `${summary}\n\n${ledger}` : summary,
        attempts,
        promptTokens: cached ? cached.tokens : trimmed!.tokens,
        droppedMessages: trimmed?.droppedMessages ?? 0,
        truncatedResults: trimmed?.truncatedResults ?? 0,
        request: cached ? 'cached-prefix' : 'standalone',
        ...(prefix && 'unusable' in prefix ? { standaloneReason: prefix.unusable } : {}),
        ...(usage ? { usage } : {}),
      };
    } catch (e) {
      const err = e instanceof LlmError ? e : new LlmError(o.signal?.aborted ? 'aborted' : 'other', errorMessage(e));
      // A client may report a cancelled request as some other failure: the signal decides.
      if (err.kind === 'aborted' || o.signal?.aborted) return cancelled(attempts, err);
      if (err.kind === 'prompt_too_long' && cached) {
        // Our estimate of the conversation was low: the standalone request is trimmed to fit.
        prefix = { unusable: `the API refused the cached-prefix request: ${err.message}` };
        continue;
      }
      if (err.kind === 'prompt_too_long' && trimRounds < 4) {
        trimRounds++;
        refused = { tokens: trimmed!.tokens, error: err };
        // Shrink by what the API reported (our tokenizer differs from the model's), with margin.
        // Scale what was actually sent, not the budget: the budget may not have been binding, and
        // shrinking it to a value still above the prompt would resend the same prompt.
        const ratio = err.promptTokens && err.maxPromptTokens ? err.maxPromptTokens / err.promptTokens : 0.75;
        budget = Math.max(500, Math.floor(Math.min(budget, trimmed!.tokens) * Math.min(0.9, ratio * 0.9)));
        continue;
      }
      if (err.kind === 'prompt_too_long') return tooLong(attempts, trimRounds, err);
      if (err.retryable && retries < maxRetries) {
        retries++;
        const backoff = Math.min(30_000, (o.backoffMs ?? 1_000) * 2 ** (retries - 1));
        const delayMs = err.retryAfterMs !== undefined ? Math.max(err.retryAfterMs, 0) : backoff;
        o.onRetry?.({ attempt: retries, delayMs, error: err });
        try {
          await sleep(delayMs, o.signal);
        } catch {
          return cancelled(attempts, err);
        }
        continue;
      }
      return { ok: false, attempts, error: new SummarizationError('failed', `Summarization failed: ${err.message}`, err) };
    }
  }
}

function tooLong(attempts: number, trimRounds: number, error: LlmError): SummaryResult {
  return {
    ok: false,
    attempts,
    error: new SummarizationError(
      'too_long',
      `The summarizer's input is still too long after ${trimRounds} trim${trimRounds === 1 ? '' : 's'}: ${error.message}`,
      error,
    ),
  };
}
