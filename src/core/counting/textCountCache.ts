// A count cache for short texts, in front of any TextTokenizer.
//
// The message memo (MemoizedMessageCounter) is keyed by message object, so a message the engine
// rebuilds is counted again even when its text is not new. Micro-compaction rebuilds thousands of
// them: every old tool result becomes a copy whose text is "[Previous: used read_file]" or another
// of a handful of placeholders, and planMicroCompact (the inspector's preview) or a pipeline's first
// sync makes fresh copies each time. Measured on a 10,000-message session: a warm micro-compact
// plan spent about two thirds of its time byte-pair-encoding the same few placeholder strings.
// Remembering the counts of short texts makes those recounts a hash lookup. Counts are exact (a
// text always has the same count); only texts up to `maxChars` are kept, and the cache is emptied
// when it reaches `maxEntries`, so it stays small (at most maxEntries x maxChars characters).
import { isLazyTextTokenizer, type LazyTextTokenizer } from './tokenizers';
import type { TextTokenizer } from './tokens';

export interface TextCountCacheOptions {
  /** Longest text whose count is remembered (default 256 characters). */
  maxChars?: number;
  /** Entries kept before the cache is emptied (default 10,000). */
  maxEntries?: number;
}

export class CachingTextTokenizer implements LazyTextTokenizer {
  private readonly cache = new Map<string, number>();
  private readonly maxChars: number;
  private readonly maxEntries: number;
  private hitCount = 0;
  private missCount = 0;

  constructor(
    readonly inner: TextTokenizer,
    options: TextCountCacheOptions = {},
  ) {
    this.maxChars = options.maxChars ?? 256;
    this.maxEntries = options.maxEntries ?? 10_000;
  }

  /** The inner tokenizer's name: counts are the inner tokenizer's, exactly. */
  get name(): string {
    return this.inner.name;
  }

  get loaded(): boolean {
    return isLazyTextTokenizer(this.inner) ? this.inner.loaded : true;
  }

  get loadTimeMs(): number | undefined {
    return isLazyTextTokenizer(this.inner) ? this.inner.loadTimeMs : 0;
  }

  warmup(): number {
    return isLazyTextTokenizer(this.inner) ? this.inner.warmup() : 0;
  }

  countText(text: string): number {
    if (text.length > this.maxChars) return this.inner.countText(text);
    const known = this.cache.get(text);
    if (known !== undefined) {
      this.hitCount++;
      return known;
    }
    this.missCount++;
    const n = this.inner.countText(text);
    if (this.cache.size >= this.maxEntries) this.cache.clear();
    this.cache.set(text, n);
    return n;
  }

  /** Remember a count made elsewhere with the inner tokenizer (the counting worker); short texts only. */
  remember(text: string, count: number): void {
    if (text.length > this.maxChars || this.cache.has(text)) return;
    if (this.cache.size >= this.maxEntries) this.cache.clear();
    this.cache.set(text, count);
  }

  /** Cache statistics, for diagnostics and the benchmark. */
  get stats(): { entries: number; hits: number; misses: number } {
    return { entries: this.cache.size, hits: this.hitCount, misses: this.missCount };
  }
}
