// Pieces every strategy shares: separating synthetic messages, and the one output shape
// `[synthetics or new summary] + [opener if needed] + messages from the tail-start pointer on`.
import { toolNamesById, toolResultText, type Message, type ToolResultBlock } from '../conversation';
import {
  finalizePlan,
  noopPlan,
  placeholderText,
  SUMMARY_PENDING_TEXT,
  syntheticMessage,
  type CompactionPlan,
  type PlanContext,
} from '../plan';
import type { ReplacementCache } from '../replacementCache';
import { safeCut } from '../snap';

export interface Separated {
  synthetics: Message[];
  /** Non-synthetic messages in order, with their index in the input. */
  real: Message[];
  realIndex: number[];
}

export function separateSynthetics(input: readonly Message[]): Separated {
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

export interface TailPlanArgs {
  strategy: string;
  params: Record<string, number>;
  input: readonly Message[];
  ctx: PlanContext;
  sep: Separated;
  /** Raw cut as an index into `sep.real`: the first real message the strategy wants to keep. */
  rawCut: number;
  /** LLM strategy: the archived part (and prior summaries) collapse into a new summary. */
  summarize: boolean;
  /** LLM strategies: how many kept messages to show the summarizer as context. */
  overlapSize?: number;
  notes?: string[];
  /** Replace kept messages (e.g. truncated copies) by id before the plan is finalized. */
  replace?: (tail: Message[]) => Message[];
}

/**
 * Build a plan that keeps a contiguous tail of real messages starting at a turn-safe cut.
 * Non-LLM strategies keep prior synthetics first; LLM strategies fold them into the new summary.
 */
export function planContiguousTail(a: TailPlanArgs): CompactionPlan {
  const { sep, input, ctx } = a;
  const notes = [...(a.notes ?? [])];
  const cut = safeCut(sep.real, a.rawCut);
  if (!cut) return noopPlan(a.strategy, a.params, input, ctx, 'no real message to keep: nothing to compact');
  if (cut.index !== a.rawCut) {
    notes.push(
      cut.snappedTo === 'turn-start'
        ? `cut moved from message ${a.rawCut} to ${cut.index} to start on a user prompt`
        : `no user prompt after the cut: cut at the tool-exchange boundary at message ${cut.index}`,
    );
  }
  if (cut.index === 0) {
    return noopPlan(a.strategy, a.params, input, ctx, 'everything is already inside the window');
  }
  let tail = sep.real.slice(cut.index);
  if (a.replace) tail = a.replace(tail);
  const archivedReal = sep.real.slice(0, cut.index);
  const splitIndex = sep.realIndex[cut.index];
  const tailStartId = tail[0].id;

  if (a.summarize) {
    const summary = syntheticMessage('summary', SUMMARY_PENDING_TEXT);
    return finalizePlan({
      strategy: a.strategy,
      params: a.params,
      input,
      output: [summary, ...tail],
      ctx,
      splitIndex,
      tailStartId,
      needsSummary: true,
      summarizerInput: {
        priorSummaries: sep.synthetics.filter((m) => m.synthetic === 'summary'),
        toSummarize: archivedReal,
        overlap: tail.slice(0, a.overlapSize ?? 0),
      },
      syntheticIndex: 0,
      notes,
    });
  }

  const output: Message[] = [...sep.synthetics];
  let syntheticIndex: number | null = null;
  if (cut.needsOpener && output.length === 0) {
    syntheticIndex = output.length;
    output.push(syntheticMessage('placeholder', placeholderText(archivedReal.length)));
  }
  output.push(...tail);
  return finalizePlan({
    strategy: a.strategy,
    params: a.params,
    input,
    output,
    ctx,
    splitIndex,
    tailStartId,
    needsSummary: false,
    syntheticIndex,
    notes,
  });
}

/** Text a tool result is replaced with once it has been compacted away. */
export function previousToolPlaceholder(toolName: string): string {
  return `[Previous: used ${toolName}]`;
}

export function resultChars(block: ToolResultBlock): number {
  return toolResultText(block).length;
}

/** Size of a result in characters; an image counts as the ~6,400 characters its ~1,600 tokens would be. */
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
  const results: Array<{ toolUseId: string; toolName: string; originalChars: number }> = [...(message.truncated?.results ?? [])];
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
