// Fitting a kept tail to the window: where else the cut may go (turn-boundary safety first), and the
// last resort, truncating tool results in the tail, oldest first, until the excess is gone.
import { isTurnStart, toolResults, type Message, type ToolResultBlock } from '../conversation/conversation';
import type { PlanContext } from '../pipeline/plan';
import { isExchangeBoundary } from '../conversation/snap';
import { resultChars, resultSize, withToolResultsReplaced } from './common';

/**
 * Cuts after `from` (indexes into `real`), in the order a plan should try them: every turn start,
 * then the tool-exchange boundaries after the last turn start (one prompt followed by hundreds of
 * tool calls has no other place to cut). Each keeps less than the one before.
 */
export function fitCandidates(real: readonly Message[], from: number): number[] {
  const turnStarts: number[] = [];
  for (let j = from + 1; j < real.length; j++) if (isTurnStart(real[j])) turnStarts.push(j);
  const lastTurnStart = turnStarts.length > 0 ? turnStarts[turnStarts.length - 1] : from;
  const boundaries: number[] = [];
  for (let j = lastTurnStart + 1; j < real.length; j++) if (isExchangeBoundary(real, j) && !isTurnStart(real[j])) boundaries.push(j);
  return [...turnStarts, ...boundaries];
}

export function truncatedToFitText(toolName: string, block: ToolResultBlock): string {
  return `[Truncated to fit the context window: ${toolName} output of ${resultChars(block)} chars]`;
}

/**
 * Truncate tool results in `tail`, oldest first, until at least `excess` tokens are saved. Only
 * results longer than their replacement are touched; block types and ids stay, so pairs stay valid.
 */
export function truncateTailToFit(
  tail: readonly Message[],
  excess: number,
  names: ReadonlyMap<string, string>,
  ctx: PlanContext,
): { tail: Message[]; truncated: number } {
  const out = [...tail];
  let saved = 0;
  let truncated = 0;
  for (let i = 0; i < out.length && saved < excess; i++) {
    for (const block of toolResults(out[i])) {
      if (saved >= excess) break;
      const name = names.get(block.tool_use_id) ?? 'unknown tool';
      if (resultSize(block) <= truncatedToFitText(name, block).length) continue;
      const copy = withToolResultsReplaced(out[i], new Set([block.tool_use_id]), names, truncatedToFitText);
      saved += ctx.tokens.countMessage(out[i]) - ctx.tokens.countMessage(copy);
      out[i] = copy;
      truncated++;
    }
  }
  return { tail: out, truncated };
}
