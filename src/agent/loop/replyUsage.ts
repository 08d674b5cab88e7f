// The token usage a reply reports, validated before anything adds it up: an endpoint (a proxy, a
// compatible server, a hostile one) may send negative numbers, strings ("lots" added to a number
// makes "0lots"), fractions, absurd sizes or no usage at all. Each count must be a whole number from
// 0 to MAX_CALL_TOKENS; the cache counts may be absent (0). The TTL split of the cache writes
// (`cache_creation.ephemeral_1h_input_tokens` / `ephemeral_5m_input_tokens`) may be absent; when present
// each is such a count, and it is recorded when the two add up to cache_creation_input_tokens. Anything
// else makes the usage unknown: the reply is kept, nothing is recorded or added to the totals for it.

/** No single model call reads or writes more tokens than this; a larger count is not a count. */
export const MAX_CALL_TOKENS = 1_000_000_000;

/** A reply's usage in the API's field names, every count a valid number. */
export interface ValidUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  /** The 1-hour part of cache_creation_input_tokens, when the reply reports the split. */
  cache_creation_1h_input_tokens?: number;
}

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && v <= MAX_CALL_TOKENS;

/** `usage` as reported (any value), or undefined when it is unknown (missing or not valid counts). */
export function validUsage(usage: unknown): ValidUsage | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const u = usage as Record<string, unknown>;
  const optional = (v: unknown): number | undefined => (v === undefined || v === null ? 0 : isCount(v) ? v : undefined);
  const read = optional(u.cache_read_input_tokens);
  const creation = optional(u.cache_creation_input_tokens);
  if (!isCount(u.input_tokens) || !isCount(u.output_tokens) || read === undefined || creation === undefined) return undefined;
  const oneHour = oneHourWrites(u.cache_creation, creation);
  if (oneHour === null) return undefined;
  return {
    input_tokens: u.input_tokens,
    output_tokens: u.output_tokens,
    cache_read_input_tokens: read,
    cache_creation_input_tokens: creation,
    ...(oneHour !== undefined ? { cache_creation_1h_input_tokens: oneHour } : {}),
  };
}

/**
 * The 1-hour writes of a `cache_creation` split: null (the usage is unknown) when it is not an object of
 * valid counts; undefined (no split recorded, the counts kept) when absent or when its two counts do not
 * add up to `creation` (an endpoint that reports a partial split says nothing reliable about the TTL).
 */
function oneHourWrites(split: unknown, creation: number): number | undefined | null {
  if (split === undefined || split === null) return undefined;
  if (typeof split !== 'object' || Array.isArray(split)) return null;
  const s = split as Record<string, unknown>;
  const oneHour = s.ephemeral_1h_input_tokens ?? 0;
  const fiveMinutes = s.ephemeral_5m_input_tokens ?? 0;
  if (!isCount(oneHour) || !isCount(fiveMinutes)) return null;
  return oneHour + fiveMinutes === creation ? oneHour : undefined;
}
