// The inspector's view of what every request carries outside the compacted history (issue 23): the
// standing instructions (each source with its token cost) and the task list, and with the system
// prompt, the tools and the pins, what no compaction can remove: its cost per request, and whether a
// plan cannot get under the limit because of it.
import { renderInstructions, renderTodo, type StandingContext, type TextTokenizer } from '../core';
import type { OutsideCompactionView, PlanView, StandingView } from '../protocol';

/** Tokens of each instruction source as rendered alone, of the whole instructions section, and of the task list. */
export function standingView(ctx: StandingContext, tokenizer: TextTokenizer): StandingView {
  const instructions = ctx.instructions.map((s) => ({
    name: s.name,
    tokens: s.sent ? tokenizer.countText(renderInstructions([s])) : 0,
    sent: s.sent,
    truncated: s.truncated,
  }));
  const todoText = renderTodo(ctx.todo);
  return {
    instructions,
    instructionTokens: tokenizer.countText(renderInstructions(ctx.instructions)),
    todo: {
      tokens: todoText === '' ? 0 : tokenizer.countText(todoText),
      items: ctx.todo.length,
      done: ctx.todo.filter((t) => t.status === 'done').length,
    },
  };
}

export function outsideCompaction(
  overhead: { system: number; tools: number },
  standing: StandingView | undefined,
  pinned: number,
): OutsideCompactionView {
  const parts = {
    system: Math.max(0, overhead.system),
    tools: Math.max(0, overhead.tools),
    instructions: standing?.instructionTokens ?? 0,
    todo: standing?.todo.tokens ?? 0,
    pinned: Math.max(0, pinned),
  };
  return { ...parts, total: parts.system + parts.tools + parts.instructions + parts.todo + parts.pinned };
}

/**
 * Mark a plan of the live session with what stays outside compaction after it (`pinned`: the tokens of
 * the pins it keeps, already part of its messages) and, when the request it leaves (its messages plus
 * the system prompt, tools, instructions and task list) is over `limit` (the window less the answer's
 * room), whether that is because of them: what no compaction removes takes the limit by itself.
 */
export function markOutside(view: PlanView, outside: OutsideCompactionView, limit: number): void {
  view.outside = outside;
  const request = view.tokensAfter + outside.total - outside.pinned;
  if (request <= limit) return;
  const becauseOfOutside = outside.total >= limit;
  view.overLimit = { limit, tokensAfter: request, becauseOfOutside };
  const note = becauseOfOutside
    ? `cannot fit: what no compaction removes (system prompt, tools, instructions, task list, pins: ${outside.total} tokens) ` +
      `is over the limit of ${limit} by itself`
    : `still over the limit of ${limit} after compaction (${request} tokens, of which ${outside.total} are outside compaction)`;
  view.notes = [...view.notes, note];
}
