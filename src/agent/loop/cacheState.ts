// The prompt cache state a model call leaves, from its usage: the prefix the API served from the cache
// (cache read) or wrote to it (cache creation) is what the next request can read. The pipeline weighs
// it before clearing old tool results (cache-aware micro-compaction) and prices previews with it. A
// call that wrote with a 1-hour TTL (the reply's split says so) left a 1-hour cache.
import type { CacheState } from '../../core';

interface CacheUsage {
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  /** The 1-hour part of the writes (validUsage's reading of `cache_creation`), when reported. */
  cache_creation_1h_input_tokens?: number;
}

export function cacheStateFromUsage(usage: CacheUsage, model: string): CacheState {
  const state: CacheState = { cachedPrefixTokens: (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0), model };
  const oneHour = usage.cache_creation_1h_input_tokens;
  if (oneHour !== undefined && (usage.cache_creation_input_tokens ?? 0) > 0) state.ttl = oneHour > 0 ? '1h' : '5m';
  return state;
}
