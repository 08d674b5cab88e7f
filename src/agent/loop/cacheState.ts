// The prompt cache state a model call leaves, from its usage: the prefix the API served from the cache
// (cache read) or wrote to it (cache creation) is what the next request can read. The pipeline weighs
// it before clearing old tool results (cache-aware micro-compaction) and prices previews with it.
import type { CacheState } from '../../core';

interface CacheUsage {
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

export function cacheStateFromUsage(usage: CacheUsage, model: string): CacheState {
  return { cachedPrefixTokens: (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0), model };
}
