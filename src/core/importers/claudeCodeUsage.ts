// Recorded usage of a Claude Code assistant line: what the API counted for the model call (ground truth).
import type { RecordedUsage } from '../conversation/conversation';
import { describe, isObject, type Json } from './json';

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
  return usage;
}
