// Codex `token_count` events -> the usage of one model call (ground truth for the calibration).
import type { RecordedUsage } from '../conversation/conversation';
import { describe, isObject, type Json } from './json';

/** One recorded model call. */
export interface CodexCall {
  usage: RecordedUsage;
  /** Everything the call counted (input with cache + output): what Codex compares with its compaction limit. */
  totalTokens: number;
}

/**
 * Reads `token_count` events in file order. Codex writes one after each model call, and repeats it (same
 * totals) when only the rate limits changed or after a compaction recomputed the counts (`last` all zero):
 * repeats, zero counts and events without `info` are not calls and give null.
 *
 * Mapping (Codex's `input_tokens` includes `cached_input_tokens`): inputTokens = input - cached,
 * cacheReadTokens = cached, cacheCreationTokens = 0 (OpenAI does not bill cache writes), outputTokens =
 * `output_tokens`, which already includes `reasoning_output_tokens` (total_tokens = input + output), so
 * reasoning is not added again. Without `last_token_usage` (older rollouts) a call's usage is the
 * difference of two consecutive `total_token_usage` values.
 */
export class CodexUsageReader {
  private lastKey: string | undefined;
  private lastTotal: Json | undefined;

  /** `warn` gets a sentence about a malformed event (the event is then not a call). */
  read(payload: Json, model: string | undefined, warn: (what: string) => void): { call: CodexCall | null; contextWindow?: number } {
    const info = payload.info;
    if (info === null || info === undefined) return { call: null };
    if (!isObject(info)) {
      warn(`payload.info: expected an object, got ${describe(info)}; usage not recorded`);
      return { call: null };
    }
    const contextWindow = positive(info.model_context_window);
    const total = isObject(info.total_token_usage) ? info.total_token_usage : undefined;
    const last = isObject(info.last_token_usage) ? info.last_token_usage : undefined;
    const key = JSON.stringify(total ?? last ?? null);
    if (key === this.lastKey) return { call: null, contextWindow };
    this.lastKey = key;
    const previousTotal = this.lastTotal;
    this.lastTotal = total;
    const field = last ? 'payload.info.last_token_usage' : 'payload.info.total_token_usage';
    const source = last ?? total;
    if (!source) {
      warn(`payload.info: neither last_token_usage nor total_token_usage; usage not recorded`);
      return { call: null, contextWindow };
    }
    const count = (name: string): number | undefined => {
      const value = source[name] ?? (name === 'cached_input_tokens' ? 0 : undefined);
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
        warn(`${field}.${name}: expected a non-negative number, got ${describe(value)}; usage not recorded`);
        return undefined;
      }
      const before = !last && previousTotal && typeof previousTotal[name] === 'number' ? previousTotal[name] : 0;
      return Math.max(0, value - before);
    };
    const input = count('input_tokens');
    const cached = count('cached_input_tokens');
    const output = count('output_tokens');
    if (input === undefined || cached === undefined || output === undefined) return { call: null, contextWindow };
    if (input + output === 0) return { call: null, contextWindow };
    const usage: RecordedUsage = {
      inputTokens: Math.max(0, input - cached),
      cacheReadTokens: Math.min(cached, input),
      cacheCreationTokens: 0,
      outputTokens: output,
    };
    if (model !== undefined) usage.model = model;
    if (contextWindow !== undefined) usage.contextWindow = contextWindow;
    return { call: { usage, totalTokens: input + output }, contextWindow };
  }
}

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}
