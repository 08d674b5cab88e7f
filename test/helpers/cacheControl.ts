// Requests as the agent sends them carry cache_control breakpoints (prompt caching); tests that compare
// what was sent with the session, or two requests with each other, compare them without.

/** A deep copy of `value` without any `cache_control` field; a system prompt sent as one text block becomes its string. */
export function withoutCacheControl<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => withoutCacheControl(v)) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (k !== 'cache_control') out[k] = withoutCacheControl(v);
    return out as T;
  }
  return value;
}

/** The text of a request's system prompt, sent as a string or as text blocks. */
export function systemText(system: unknown): string {
  if (typeof system === 'string') return system;
  return Array.isArray(system) ? system.map((b: { text?: unknown }) => String(b?.text ?? '')).join('') : '';
}

/** Messages without cache_control and with string content as one text block (how a breakpoint is carried). */
export function asBlocks<T extends { role: string; content: unknown }>(messages: readonly T[] | undefined): T[] {
  return withoutCacheControl(messages ?? []).map((m) =>
    typeof m.content === 'string' ? { ...m, content: [{ type: 'text', text: m.content }] } : m,
  );
}
