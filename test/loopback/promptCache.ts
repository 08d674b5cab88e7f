/**
 * The loopback server's prompt cache: the API's caching rules applied to a request body.
 *
 * A request is cut into segments in the order the API processes it (`tools` -> `system` ->
 * `messages`): one per tool definition, one per system text block (a string system prompt is one
 * segment that cannot carry a breakpoint) and one per message content block (string content is one
 * text block). A segment's key is the canonical JSON of its block without any cache_control (keys
 * sorted; message blocks also carry their role), so equal keys mean the same bytes at that place.
 * Its tokens are the server's own count of the block (tokenScale applied; the per-request overhead
 * counts with the first segment, the per-message overhead with each message's first block).
 * Message segments' keys also carry the request's `tool_choice` (absent = `{"type":"auto"}`): the API
 * documents that changing tool_choice invalidates the cached message blocks, not the tools or system.
 *
 * Breakpoints are the blocks with `cache_control` (a nested block inside a tool_result marks its
 * tool_result). core's PrefixCache does the rest (exact-prefix entries, the 20-block lookback, the
 * minimum cacheable length, TTLs refreshed on read). The checks the API makes, with its messages:
 * - more than 4 breakpoints: "A maximum of 4 blocks with cache_control may be provided. Found N.";
 * - `cache_control.type` other than "ephemeral", `ttl` other than "5m" / "1h";
 * - a ttl "1h" breakpoint after a "5m" one in processing order;
 * - cache_control on an empty text block ("cache_control cannot be set for empty text blocks");
 * - cache_control on thinking / redacted_thinking blocks (they cannot be cached directly).
 */
import { MAX_CACHE_BREAKPOINTS, type CacheTtl } from '../../src/core';
import { PrefixCache, type CacheOutcome, type CacheSegment } from '../../src/core/cost/cost';
import type { MessagesRequestBody, WireBlock } from './wire';

export interface CacheBreakpoint {
  /** Index of the segment the breakpoint ends. */
  segment: number;
  ttl: CacheTtl;
  /** Where it was, as the API names fields: `tools.2`, `system.0`, `messages.3.content.1`. */
  path: string;
}

export interface CacheLayout {
  segments: CacheSegment[];
  breakpoints: CacheBreakpoint[];
  /** For each segment: the message index it belongs to (-1 for tools and system). */
  messageOf: number[];
}

/** Canonical JSON: object keys sorted, `cache_control` dropped at every depth. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    const keys = Object.keys(o)
      .filter((k) => k !== 'cache_control' && o[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

interface Counter {
  block(b: WireBlock): number;
  tool(t: Record<string, unknown>): number;
  text(s: string): number;
  scale: number;
  perRequest: number;
  perMessage: number;
}

/** Segments and breakpoints of a body, or the API's error message for its cache_control. */
export function cacheLayout(body: MessagesRequestBody, count: Counter): CacheLayout | { error: string } {
  const segments: CacheSegment[] = [];
  const messageOf: number[] = [];
  const marks: Array<{ segment: number; path: string; control: unknown; block?: WireBlock }> = [];
  const firsts = new Set<number>();
  const isFirstOf = (m: number) => (firsts.has(m) ? false : (firsts.add(m), true));
  const push = (key: string, raw: number, message: number) => {
    const extra = (segments.length === 0 ? count.perRequest : 0) + (message >= 0 && isFirstOf(message) ? count.perMessage : 0);
    segments.push({ key, tokens: count.scale * (raw + extra) });
    messageOf.push(message);
  };
  const markNested = (b: WireBlock, path: string) => {
    if (b.type !== 'tool_result' || !Array.isArray(b.content)) return;
    b.content.forEach((c, k) => {
      if (c && typeof c === 'object' && c.cache_control != null)
        marks.push({ segment: segments.length - 1, path: `${path}.content.${k}`, control: c.cache_control, block: c });
    });
  };

  const tools = Array.isArray(body.tools) ? body.tools : [];
  tools.forEach((t, i) => {
    push(`tool:${canonicalJson(t)}`, count.tool(t), -1);
    if (t && t.cache_control != null) marks.push({ segment: segments.length - 1, path: `tools.${i}`, control: t.cache_control });
  });
  if (typeof body.system === 'string') {
    if (body.system !== '') push(`system:${canonicalJson({ type: 'text', text: body.system })}`, count.text(body.system), -1);
  } else if (Array.isArray(body.system)) {
    body.system.forEach((b, i) => {
      push(`system:${canonicalJson(b)}`, count.block(b), -1);
      if (b && b.cache_control != null)
        marks.push({ segment: segments.length - 1, path: `system.${i}`, control: b.cache_control, block: b });
    });
  }
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const choice = canonicalJson(body.tool_choice ?? { type: 'auto' });
  messages.forEach((m, i) => {
    const blocks: WireBlock[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    if (blocks.length === 0) {
      // An empty final assistant message (prefill) still costs its per-message overhead.
      if (count.perMessage > 0) push(`${m.role}|${choice}:empty`, 0, i);
      return;
    }
    blocks.forEach((b, j) => {
      push(`${m.role}|${choice}:${canonicalJson(b)}`, count.block(b), i);
      const path = `messages.${i}.content.${j}`;
      if (b.cache_control != null) marks.push({ segment: segments.length - 1, path, control: b.cache_control, block: b });
      markNested(b, path);
    });
  });

  if (marks.length > MAX_CACHE_BREAKPOINTS) {
    return { error: `A maximum of ${MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found ${marks.length}.` };
  }
  const breakpoints: CacheBreakpoint[] = [];
  let seen5m = false;
  for (const mark of marks) {
    const problem = controlProblem(mark.control, mark.block, mark.path, seen5m);
    if (problem) return { error: problem };
    const ttl = ((mark.control as { ttl?: CacheTtl }).ttl ?? '5m') as CacheTtl;
    if (ttl === '5m') seen5m = true;
    breakpoints.push({ segment: mark.segment, ttl, path: mark.path });
  }
  return { segments, breakpoints, messageOf };
}

function controlProblem(control: unknown, block: WireBlock | undefined, path: string, seen5m: boolean): string | undefined {
  if (block && (block.type === 'thinking' || block.type === 'redacted_thinking')) {
    return `${path}.${block.type}.cache_control: Extra inputs are not permitted`;
  }
  if (block && block.type === 'text' && String(block.text ?? '') === '') {
    return `${path}.text: cache_control cannot be set for empty text blocks`;
  }
  if (typeof control !== 'object' || control === null || Array.isArray(control))
    return `${path}.cache_control: Input should be a valid dictionary`;
  const c = control as { type?: unknown; ttl?: unknown };
  if (c.type !== 'ephemeral') return `${path}.cache_control.type: Input should be 'ephemeral'`;
  if (c.ttl !== undefined && c.ttl !== '5m' && c.ttl !== '1h') return `${path}.cache_control.ttl: Input should be '5m' or '1h'`;
  if (c.ttl === '1h' && seen5m) {
    return (
      `${path}.cache_control.ttl: a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block. ` +
      'Note that blocks are processed in the following order: `tools`, `system`, `messages`.'
    );
  }
  return undefined;
}

/** What the prompt cache served and wrote for one answered request (usage numbers as the API reports them). */
export type ServedCache = CacheOutcome & { breakpoints: CacheBreakpoint[]; cacheWrite1hTokens: number };

/** The server's prompt cache: one core PrefixCache per model, read and written by each answered request. */
export class ServerPromptCache {
  private readonly caches = new Map<string, PrefixCache>();

  constructor(
    private readonly minTokensFor: (model: string) => number,
    private readonly now: () => number,
  ) {}

  /** Forget every cached prefix (as if the TTLs had run out). */
  clear(): void {
    this.caches.clear();
  }

  /** Read and write the cache of `model` for a request of `inputTokens` laid out as `layout`. */
  apply(model: string, inputTokens: number, layout: CacheLayout): ServedCache {
    let cache = this.caches.get(model);
    if (!cache) this.caches.set(model, (cache = new PrefixCache(this.minTokensFor(model))));
    const marks = layout.breakpoints;
    const outcome = cache.call(
      layout.segments,
      marks.map((b) => b.segment),
      this.now(),
      marks.map((b) => b.ttl),
    );
    // Whole tokens, as the API reports them; what is neither read nor written is uncached input.
    const read = Math.round(outcome.cacheReadTokens);
    const write = Math.min(Math.round(outcome.cacheReadTokens + outcome.cacheWriteTokens) - read, inputTokens - read);
    // The 1h share of the write: up to the furthest 1h breakpoint that was written (1h ones come first).
    let cumulative = 0;
    const upTo: number[] = layout.segments.map((s) => (cumulative += s.tokens));
    const min = this.minTokensFor(model);
    const written1h = marks
      .filter((b) => b.ttl === '1h' && b.segment >= outcome.cachedSegments && upTo[b.segment] >= min)
      .map((b) => upTo[b.segment]);
    const write1h = written1h.length > 0 && write > 0 ? Math.min(write, Math.max(0, Math.round(Math.max(...written1h)) - read)) : 0;
    return {
      ...outcome,
      cacheReadTokens: read,
      cacheWriteTokens: write,
      inputTokens: Math.max(0, inputTokens - read - write),
      cacheWrite1hTokens: write1h,
      breakpoints: marks,
    };
  }
}
