// The LlmClient the summarizer uses, implemented over @anthropic-ai/sdk. SDK-level retries are off
// here: the summarizer retries itself so retry-after is honoured, progress is reported and the user
// can cancel between attempts.
import type Anthropic from '@anthropic-ai/sdk';
import { validUsage } from './replyUsage';
import { anthropicSdk } from './sdks';
import { LlmError, parsePromptTooLong, type ApiMessage, type LlmClient, type LlmRequest, type LlmResponse } from '../../core';

export interface AnthropicClientOptions {
  apiKey: string;
  baseURL?: string;
  model: string;
  /** Per-request timeout in ms (default 10 minutes, as the SDK). */
  timeoutMs?: number;
}

export class AnthropicLlmClient implements LlmClient {
  private readonly client: Anthropic;

  constructor(private readonly options: AnthropicClientOptions) {
    this.client = new (anthropicSdk())({ apiKey: options.apiKey, baseURL: options.baseURL, maxRetries: 0, timeout: options.timeoutMs });
  }

  async complete(request: LlmRequest): Promise<LlmResponse> {
    try {
      const message = await this.client.messages.create(
        {
          model: this.options.model,
          max_tokens: request.maxTokens,
          system: request.system as Anthropic.MessageCreateParams['system'],
          // A cached-prefix request carries the conversation's tools as sent; tool_choice stays unset, as
          // the conversation sends it (changing it would invalidate the cached messages).
          ...(request.tools && request.tools.length > 0 ? { tools: request.tools as Anthropic.ToolUnion[] } : {}),
          messages: request.messages as Anthropic.MessageParam[],
        },
        { signal: request.signal },
      );
      const text = message.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
      const usage = validUsage(message.usage);
      return {
        text,
        ...(usage
          ? {
              inputTokens: usage.input_tokens,
              cacheReadInputTokens: usage.cache_read_input_tokens,
              cacheCreationInputTokens: usage.cache_creation_input_tokens,
              outputTokens: usage.output_tokens,
            }
          : {}),
        stopReason: message.stop_reason,
      };
    } catch (e) {
      throw toLlmError(e);
    }
  }
}

/** A request to measure with count_tokens: the Messages request without max_tokens. */
export interface CountTokensRequest {
  model: string;
  system: string;
  tools: readonly Anthropic.Tool[];
  messages: readonly ApiMessage[];
}

/** count_tokens waits at most this long by default: it must never hold up the first reply for long. */
export const COUNT_TOKENS_TIMEOUT_MS = 10_000;

/**
 * The API's own count of a request's input tokens (`POST /v1/messages/count_tokens`), through the
 * SDK's `messages.countTokens`, without retries. Throws an LlmError on any failure, including an
 * answer that is not a positive number of tokens.
 */
export async function countRequestTokens(
  client: Anthropic,
  r: CountTokensRequest,
  o: { signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<number> {
  let counted: Anthropic.MessageTokensCount;
  try {
    counted = await client.messages.countTokens(
      {
        model: r.model,
        system: r.system,
        ...(r.tools.length > 0 ? { tools: r.tools as Anthropic.Tool[] } : {}),
        messages: r.messages as Anthropic.MessageParam[],
      },
      { signal: o.signal, timeout: o.timeoutMs ?? COUNT_TOKENS_TIMEOUT_MS, maxRetries: 0 },
    );
  } catch (e) {
    throw toLlmError(e);
  }
  const n = (counted as { input_tokens?: unknown }).input_tokens;
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0) {
    throw new LlmError('other', `count_tokens: input_tokens must be a positive number, got ${JSON.stringify(n)}`);
  }
  return n;
}

/** Classify an SDK error so callers know whether to retry, trim or give up. */
export function toLlmError(e: unknown): LlmError {
  if (e instanceof LlmError) return e;
  const sdk = anthropicSdk();
  if (e instanceof sdk.APIUserAbortError) return new LlmError('aborted', 'The request was cancelled.');
  if (e instanceof sdk.APIConnectionTimeoutError) return new LlmError('timeout', 'The request timed out.');
  if (e instanceof sdk.APIConnectionError) return new LlmError('server', `Could not reach the API: ${e.message}${causes(e)}`);
  if (e instanceof sdk.APIError) {
    const status = e.status;
    const retryAfterMs = retryAfter(e.headers);
    const message = apiMessage(e);
    if (status === 429) return new LlmError('rate_limit', `Rate limited: ${message}`, status, retryAfterMs);
    if (status === 529) return new LlmError('overloaded', `The API is overloaded: ${message}`, status, retryAfterMs);
    if (status !== undefined && status >= 500) return new LlmError('server', `API error ${status}: ${message}`, status, retryAfterMs);
    const tooLong = parsePromptTooLong(message);
    if (status === 400 && tooLong)
      return new LlmError('prompt_too_long', message, status, undefined, tooLong.promptTokens, tooLong.maxPromptTokens);
    if (status === undefined) return new LlmError('server', `API stream error: ${message}`);
    return new LlmError('other', `API error ${status}: ${message}`, status);
  }
  return new LlmError('other', e instanceof Error ? e.message : String(e));
}

/**
 * Why a connection failed, from the error's cause chain (the SDK says only "Connection error."; fetch
 * says "fetch failed"; the cause under those names the socket error), e.g. " (fetch failed: connect
 * ECONNREFUSED 127.0.0.1:8080)". Empty when there is no cause.
 */
function causes(e: Error): string {
  const parts: string[] = [];
  for (let c: unknown = e.cause, depth = 0; c !== undefined && c !== null && depth < 5; depth++) {
    const text = c instanceof Error ? c.message || c.name : String(c);
    const code = (c as { code?: unknown }).code;
    parts.push(typeof code === 'string' && !text.includes(code) ? `${text} [${code}]` : text);
    c = (c as { cause?: unknown }).cause;
  }
  return parts.length > 0 ? ` (${parts.join(': ')})` : '';
}

function apiMessage(e: InstanceType<typeof Anthropic.APIError>): string {
  const body = e.error as { error?: { message?: string } } | undefined;
  return body?.error?.message ?? e.message;
}

function retryAfter(headers: Headers | undefined): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms && Number.isFinite(Number(ms))) return Number(ms);
  const s = headers.get('retry-after');
  if (!s) return undefined;
  if (Number.isFinite(Number(s))) return Number(s) * 1000;
  const date = Date.parse(s);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}
