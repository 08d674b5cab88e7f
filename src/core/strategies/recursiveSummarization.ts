// Recursive summarization (seed 003): the newest `maxEventsToKeep` real messages form the active
// window; everything older, plus any prior summary (fed back as === PRIOR SUMMARY ===), collapses
// into one new summary. `overlapSize` messages of the window go to the summarizer as context.
import type { Message } from '../conversation/conversation';
import type { CompactionPlan, PlanContext } from '../pipeline/plan';
import { separateSynthetics } from './common';
import { StrategyParamError } from './params';
import { planContiguousTail } from './tail';

export interface RecursiveSummarizationParams {
  maxEventsToKeep: number;
  overlapSize: number;
}

export function validateRecursiveSummarization(params: RecursiveSummarizationParams): void {
  if (!(params.overlapSize >= 0 && params.overlapSize < params.maxEventsToKeep)) {
    throw new StrategyParamError(
      'recursive-summarization',
      'overlapSize',
      `must be >= 0 and < maxEventsToKeep (${params.maxEventsToKeep}), got ${params.overlapSize}`,
    );
  }
}

export function planRecursiveSummarization(
  input: readonly Message[],
  params: RecursiveSummarizationParams,
  ctx: PlanContext,
): CompactionPlan {
  validateRecursiveSummarization(params);
  const p = { maxEventsToKeep: params.maxEventsToKeep, overlapSize: params.overlapSize };
  const sep = separateSynthetics(input);
  return planContiguousTail({
    strategy: 'recursive-summarization',
    params: p,
    input,
    ctx,
    sep,
    rawCut: sep.real.length - params.maxEventsToKeep,
    summarize: true,
    overlapSize: params.overlapSize,
    keepAllReason: `${sep.real.length} real messages <= maxEventsToKeep ${params.maxEventsToKeep}`,
  });
}
