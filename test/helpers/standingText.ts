// What a request carries outside the history, as a test reads it: the system prompt (the standing
// instructions) and the trailer (the task list: the text blocks after the last cache breakpoint of the
// last user turn, where the agent sends it so that a changed list never invalidates the cached prefix).
type Block = { type?: string; text?: unknown; cache_control?: unknown };
type Body = { system?: unknown; messages?: Array<{ role?: string; content?: unknown }> };

export function systemTextOf(system: unknown): string {
  if (typeof system === 'string') return system;
  return Array.isArray(system) ? (system as Block[]).map((b) => String(b.text ?? '')).join('\n') : '';
}

/** The text blocks of the last user turn that come after its last cache breakpoint (all of them when it has none). */
export function trailerOf(body: Body): string {
  const last = body.messages?.at(-1);
  if (!last || last.role !== 'user' || !Array.isArray(last.content)) return '';
  const blocks = last.content as Block[];
  let from = 0;
  blocks.forEach((b, i) => {
    if (b.cache_control !== undefined) from = i + 1;
  });
  return blocks
    .slice(from)
    .filter((b) => b.type === 'text')
    .map((b) => String(b.text ?? ''))
    .join('\n');
}

/** The system prompt and the trailer of a request, one text. */
export function standingText(body: Body): string {
  return `${systemTextOf(body.system)}\n${trailerOf(body)}`;
}
