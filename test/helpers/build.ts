// Tiny builders for hand-made conversations in tests.
import type { ContentBlock, Message, ToolResultBlock } from '../../src/core/conversation/conversation';
import type { MessageTokenCounter } from '../../src/core/counting/tokens';
import { DEFAULT_PLAN_CONTEXT, type PlanContext } from '../../src/core/pipeline/plan';

export const user = (id: string, text = `prompt ${id}`): Message => ({ id, role: 'user', content: text });
export const assistant = (id: string, text = `answer ${id}`): Message => ({ id, role: 'assistant', content: [{ type: 'text', text }] });
/** An assistant message calling tools: `calls` are [toolUseId, toolName] pairs. */
export const call = (id: string, ...calls: Array<[string, string]>): Message => ({
  id,
  role: 'assistant',
  content: calls.map(([tid, name]): ContentBlock => ({ type: 'tool_use', id: tid, name, input: { path: `${name}.txt` } })),
});
/** A user message carrying tool results: `results` are [toolUseId, text] pairs. */
export const results = (id: string, ...rs: Array<[string, string]>): Message => ({
  id,
  role: 'user',
  content: rs.map(([tid, text]): ContentBlock => ({ type: 'tool_result', tool_use_id: tid, content: text })),
});
export const summary = (id: string, text = `summary ${id}`): Message => ({ id, role: 'user', content: text, synthetic: 'summary' });

/** A counter that charges each message a fixed cost by id (default 10) — exact arithmetic in tests. */
export class FixedCostCounter implements MessageTokenCounter {
  constructor(
    private readonly costs: Record<string, number> = {},
    private readonly fallback = 10,
  ) {}
  countMessage(m: Message): number {
    return this.costs[m.id] ?? this.fallback;
  }
  countMessages(ms: readonly Message[]): number {
    return ms.reduce((n, m) => n + this.countMessage(m), 0);
  }
}

/** One token per character of text and tool-result content; tool calls and framing are free. */
export class CharCounter implements MessageTokenCounter {
  countMessage(m: Message): number {
    if (typeof m.content === 'string') return m.content.length;
    let n = 0;
    for (const b of m.content) {
      if (b.type === 'text') n += String(b.text).length;
      if (b.type === 'tool_result') n += String((b as ToolResultBlock).content ?? '').length;
    }
    return n;
  }
  countMessages(ms: readonly Message[]): number {
    return ms.reduce((n, m) => n + this.countMessage(m), 0);
  }
}

export function ctxWith(tokens: MessageTokenCounter = new FixedCostCounter(), over: Partial<PlanContext> = {}): PlanContext {
  return { ...DEFAULT_PLAN_CONTEXT, tokens, ...over };
}

export const ids = (ms: readonly { id: string }[]): string[] => ms.map((m) => m.id);
