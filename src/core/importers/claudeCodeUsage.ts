// Recorded usage of a Claude Code assistant line: what the API counted for the model call (ground truth).
import type { RecordedUsage } from '../conversation/conversation';
import { describe, isObject, type Json } from './json';

/** The largest count a call's usage may hold (as the agent's validation of replies). */
const MAX_CALL_TOKENS = 1_000_000_000;

const FIELDS = [
  ['inputTokens', 'input_tokens'],
  ['cacheReadTokens', 'cache_read_input_tokens'],
  ['cacheCreationTokens', 'cache_creation_input_tokens'],
  ['outputTokens', 'output_tokens'],
] as const;

/** The model of a call, unless Claude Code wrote the line itself (`<synthetic>`: no model call). */
export function recordedModel(message: Json): string | undefined {
  return typeof message.model === 'string' && message.model !== '' && message.model !== '<synthetic>' ? message.model : undefined;
}

/**
 * `message.usage` as RecordedUsage; undefined when the line has none or was not a model call. A usage
 * field that is present but not a non-negative number is reported as `FILE:LINE: field: …` and the usage
 * is not recorded; an absent cache field counts 0.
 */
export function recordedUsage(message: Json, where: string, warnings: string[]): RecordedUsage | undefined {
  const model = recordedModel(message);
  if (!isObject(message.usage) || model === undefined) return undefined;
  const raw = message.usage;
  const usage: RecordedUsage = { inputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0, outputTokens: 0, model };
  for (const [key, field] of FIELDS) {
    const v = raw[field];
    if (v === undefined || v === null) {
      if (field === 'input_tokens') return undefined;
      continue;
    }
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
      warnings.push(`${where}: message.usage.${field}: expected a non-negative number, got ${describe(v)}; usage not recorded`);
      return undefined;
    }
    usage[key] = v;
  }
  return withTtlSplit(usage, raw.cache_creation, where, warnings);
}

/**
 * The 1-hour part of the cache writes (`usage.cache_creation.ephemeral_1h_input_tokens`; the rest,
 * `ephemeral_5m_input_tokens`, is 5-minute): recorded when present and consistent, else left unknown
 * with a warning naming the field (the usage itself is kept: its counts are sound).
 */
function withTtlSplit(usage: RecordedUsage, split: unknown, where: string, warnings: string[]): RecordedUsage {
  if (split === undefined || split === null) return usage;
  const field = 'message.usage.cache_creation';
  if (!isObject(split)) {
    warnings.push(`${where}: ${field}: expected an object, got ${describe(split)}; cache TTL split not recorded`);
    return usage;
  }
  const counts: number[] = [];
  for (const name of ['ephemeral_1h_input_tokens', 'ephemeral_5m_input_tokens']) {
    const v = split[name] ?? 0;
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0 || v > MAX_CALL_TOKENS) {
      warnings.push(
        `${where}: ${field}.${name}: expected a whole number from 0 to ${MAX_CALL_TOKENS}, got ${describe(v)}; cache TTL split not recorded`,
      );
      return usage;
    }
    counts.push(v);
  }
  const [oneHour, fiveMinutes] = counts as [number, number];
  if (oneHour + fiveMinutes !== usage.cacheCreationTokens) {
    warnings.push(
      `${where}: ${field}: ephemeral_1h_input_tokens ${oneHour} + ephemeral_5m_input_tokens ${fiveMinutes} ` +
        `differ from cache_creation_input_tokens ${usage.cacheCreationTokens}; cache TTL split not recorded`,
    );
    return usage;
  }
  return { ...usage, cacheWrite1hTokens: oneHour };
}
