// The summarizer the pipeline calls for LLM-written summaries: the Anthropic API with the current
// key and model, cancellable both by the pipeline's signal and from the host (the progress
// notification's Cancel button). Given the conversation's agent, the summary request is the agent's
// own request with the summarize instruction appended (its cached prefix is read back, not paid in
// full); otherwise, or when that does not fit the window, the standalone summarizer request.
import {
  contextWindowFor,
  errorMessage,
  summarize,
  summaryTokenBound,
  SummarizationError,
  type CachingTextTokenizer,
  type ConversationRequest,
  type SummarizerInput,
  type SummaryResult,
} from '../../core';
import { AnthropicLlmClient } from './anthropicClient';
import type { HostSettings } from '../../settings/hostSettings';
import { MissingApiKeyError } from './missingApiKeyError';

export interface SummaryRunnerDeps {
  getApiKey: () => Promise<string | undefined>;
  settings: () => HostSettings;
  tokenizer: CachingTextTokenizer;
  log: { info?(message: string): void; warn(message: string): void };
}

/** The conversation whose cached prefix a summary reuses (the session's agent loop). */
export interface SummaryConversationSource {
  summaryConversation(): ConversationRequest | { unusable: string };
}

export class SummaryRunner {
  private abortController: AbortController | undefined;

  constructor(private readonly deps: SummaryRunnerDeps) {}

  /**
   * Summarize `input`; `signal` (the pipeline's) or abort() cancels it. With `agent` (the session's
   * loop), the request reuses the conversation's cached prefix.
   */
  async run(
    input: SummarizerInput,
    focus: string | undefined,
    signal?: AbortSignal,
    agent?: SummaryConversationSource,
  ): Promise<SummaryResult> {
    let key: string | undefined;
    try {
      key = await this.deps.getApiKey();
    } catch (e) {
      // E.g. the key may not go to the configured base URL: nothing is sent, the compaction fails.
      return { ok: false, attempts: 0, error: new SummarizationError('failed', errorMessage(e)) };
    }
    if (!key) return { ok: false, attempts: 0, error: new SummarizationError('failed', new MissingApiKeyError().message) };
    const settings = this.deps.settings();
    // splitpoint.summaryModel: another model than the session's writes the summary ('' = the session's).
    const model = settings.summary?.model || settings.model;
    const client = new AnthropicLlmClient({ apiKey: key, baseURL: settings.baseUrl, model });
    let conversation: ConversationRequest | { unusable: string } | undefined;
    try {
      conversation = agent?.summaryConversation();
      // The prompt cache is per model: another model reads nothing of the conversation's.
      if (conversation && 'model' in conversation && conversation.model !== model)
        conversation = {
          unusable:
            model === settings.model
              ? `the model changed since the last request (${conversation.model} -> ${model})`
              : `the summary model ${model} (splitpoint.summaryModel) cannot read ${conversation.model}'s prompt cache`,
        };
    } catch (e) {
      this.deps.log.warn(`The summary request cannot reuse the conversation (${errorMessage(e)}); sending a standalone one.`);
    }
    // splitpoint.summaryMaxTokens: a fixed bound, or (0) sized by the probes of what this summary archives.
    const bound = summaryTokenBound(input, {
      setting: settings.summary?.maxTokens ?? 0,
      maxOutputTokens: settings.maxOutputTokens,
      tokenizer: this.deps.tokenizer,
    });
    const result = await summarize(input, {
      client,
      conversation,
      tokenizer: this.deps.tokenizer,
      contextWindow: model === settings.model ? settings.contextWindow : (contextWindowFor(model) ?? settings.contextWindow),
      maxSummaryTokens: bound.tokens,
      focus,
      signal: this.mergeSignals(signal),
      onRetry: (r) => this.deps.log.warn(`Summary attempt ${r.attempt} failed (${r.error.message}); retrying in ${r.delayMs} ms`),
    });
    if (result.ok) this.deps.log.info?.(summaryLogLine(result));
    return result;
  }

  /** Cancel the summary in progress (if any). */
  abort(): void {
    this.abortController?.abort();
  }

  private mergeSignals(signal?: AbortSignal): AbortSignal {
    const ac = (this.abortController = new AbortController());
    if (!signal) return ac.signal;
    if (signal.aborted) ac.abort();
    else signal.addEventListener('abort', () => ac.abort(), { once: true });
    return ac.signal;
  }
}

/** One log line per summary: which request, why standalone, and what it read and wrote. */
export function summaryLogLine(r: Extract<SummaryResult, { ok: true }>): string {
  const u = r.usage;
  const usage = u
    ? `input ${u.inputTokens}, cache read ${u.cacheReadInputTokens}, cache write ${u.cacheCreationInputTokens}, output ${u.outputTokens}`
    : 'usage not reported';
  const why = r.standaloneReason ? ` (${r.standaloneReason})` : '';
  return `Summary request: ${r.request ?? 'standalone'}${why}; ${usage}; ${r.attempts} attempt${r.attempts === 1 ? '' : 's'}`;
}
