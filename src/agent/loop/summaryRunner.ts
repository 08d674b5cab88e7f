// The summarizer the pipeline calls for LLM-written summaries: the Anthropic API with the current
// key and model, cancellable both by the pipeline's signal and from the host (the progress
// notification's Cancel button).
import {
  errorMessage,
  summarize,
  SummarizationError,
  type CachingTextTokenizer,
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
  log: { warn(message: string): void };
}

export class SummaryRunner {
  private abortController: AbortController | undefined;

  constructor(private readonly deps: SummaryRunnerDeps) {}

  /** Summarize `input`; `signal` (the pipeline's) or abort() cancels it. */
  async run(input: SummarizerInput, focus: string | undefined, signal?: AbortSignal): Promise<SummaryResult> {
    let key: string | undefined;
    try {
      key = await this.deps.getApiKey();
    } catch (e) {
      // E.g. the key may not go to the configured base URL: nothing is sent, the compaction fails.
      return { ok: false, attempts: 0, error: new SummarizationError('failed', errorMessage(e)) };
    }
    if (!key) return { ok: false, attempts: 0, error: new SummarizationError('failed', new MissingApiKeyError().message) };
    const settings = this.deps.settings();
    const client = new AnthropicLlmClient({ apiKey: key, baseURL: settings.baseUrl, model: settings.model });
    return summarize(input, {
      client,
      tokenizer: this.deps.tokenizer,
      contextWindow: settings.contextWindow,
      maxSummaryTokens: Math.min(settings.maxOutputTokens, 4_096),
      focus,
      signal: this.mergeSignals(signal),
      onRetry: (r) => this.deps.log.warn(`Summary attempt ${r.attempt} failed (${r.error.message}); retrying in ${r.delayMs} ms`),
    });
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
