// Pieces every strategy shares: separating synthetic messages, replacing tool results by placeholders.
// The one output shape (`[synthetics or new summary] + [opener] + the tail`) is built in tail.ts.
import { toolNamesById, toolResultText, type Message, type ToolResultBlock, type TruncationNote } from '../conversation/conversation';
import type { ReplacementCache } from '../pipeline/replacementCache';
import { prepFor } from '../pipeline/planPrep';

export interface Separated {
  synthetics: Message[];
  /** Non-synthetic messages in order, with their index in the input. */
  real: Message[];
  realIndex: number[];
}

export function separateSynthetics(input: readonly Message[]): Separated {
  // A prepared input (planPrep.ts) was separated ahead: copies of its lists (a copy, not a pass over the messages).
  const prep = prepFor(input);
  if (prep) return { synthetics: prep.sep.synthetics.slice(), real: prep.sep.real.slice(), realIndex: prep.sep.realIndex.slice() };
  const synthetics: Message[] = [];
  const real: Message[] = [];
  const realIndex: number[] = [];
  input.forEach((m, i) => {
    if (m.synthetic) synthetics.push(m);
    else {
      real.push(m);
      realIndex.push(i);
    }
  });
  return { synthetics, real, realIndex };
}

/** Text a tool result is replaced with once it has been compacted away. */
export function previousToolPlaceholder(toolName: string): string {
  return `[Previous: used ${toolName}]`;
}

export function resultChars(block: ToolResultBlock): number {
  return toolResultText(block).length;
}

/** Size of a result in characters; an image counts as the ~6,400 characters its ~1,600 tokens would be. */
/**
 * Is an old tool result worth replacing by its placeholder: over `minChars` and longer than the
 * placeholder itself (so micro-compaction never grows a result), and not a placeholder already?
 * The one rule of the pure strategy and the incremental micro-compactor (they must agree exactly).
 */
export function worthReplacing(block: ToolResultBlock, names: ReadonlyMap<string, string>, minChars: number): boolean {
  const placeholder = previousToolPlaceholder(names.get(block.tool_use_id) ?? 'unknown tool');
  return resultSize(block) > Math.max(minChars, placeholder.length) && toolResultText(block) !== placeholder;
}

export function resultSize(block: ToolResultBlock): number {
  const images = Array.isArray(block.content) ? block.content.filter((b) => b.type === 'image').length : 0;
  return resultChars(block) + images * 6400;
}

/**
 * A copy of `message` whose tool_result blocks with the given ids have their content replaced by a
 * placeholder naming the tool. Block type, tool_use_id and is_error are kept so the request stays valid.
 */
export function withToolResultsReplaced(
  message: Message,
  ids: ReadonlySet<string>,
  names: ReadonlyMap<string, string>,
  text: (toolName: string, block: ToolResultBlock) => string = previousToolPlaceholder,
): Message {
  if (typeof message.content === 'string') return message;
  const results: TruncationNote['results'] = [...(message.truncated?.results ?? [])];
  const content = message.content.map((block) => {
    if (block.type !== 'tool_result') return block;
    const b = block as ToolResultBlock;
    if (!ids.has(b.tool_use_id)) return block;
    const toolName = names.get(b.tool_use_id) ?? 'unknown tool';
    results.push({ toolUseId: b.tool_use_id, toolName, originalChars: resultChars(b) });
    return { ...b, content: text(toolName, b) };
  });
  return { ...message, content, truncated: { results } };
}

/** `withToolResultsReplaced` with the default placeholder, through a cache when one is given. */
export function replacedWithPlaceholders(
  message: Message,
  ids: ReadonlySet<string>,
  names: ReadonlyMap<string, string>,
  cache: ReplacementCache | undefined,
): Message {
  if (!cache) return withToolResultsReplaced(message, ids, names);
  return cache.get(message, `previous:${[...ids].join('\u0000')}`, () => withToolResultsReplaced(message, ids, names));
}

export { toolNamesById };
