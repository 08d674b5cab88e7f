// Turn window (seed 003): keep the last `maxTurns` complete turns, never cutting inside a turn.
// Output: [synthetics] + [preamble before the first user prompt] + [kept turns]. When that does not
// fit the window (few long turns: one prompt and hundreds of tool calls), the tail is fitted like any
// other: later turn starts first, then the tool-exchange boundaries of the last turn.
import { groupTurns, type Message } from '../conversation/conversation';
import { finalizePlan, noopPlan, type CompactionPlan, type PlanContext } from '../pipeline/plan';
import { separateSynthetics } from './common';
import { budgetText, planContiguousTail } from './tail';

export interface TurnWindowParams {
  maxTurns: number;
}

export function planTurnWindow(input: readonly Message[], params: TurnWindowParams, ctx: PlanContext): CompactionPlan {
  const p = { maxTurns: params.maxTurns };
  const sep = separateSynthetics(input);
  const { preamble, turns } = groupTurns(sep.real);
  const plan = turnsPlan(input, sep.synthetics, preamble, turns, p, ctx);
  if (plan.fitsWindow) return plan;
  // Few turns (or one prompt and hundreds of tool calls): keeping them all does not fit, so the tail is fitted.
  const keepAll = turns.length <= params.maxTurns;
  return planContiguousTail({
    strategy: 'turn-window',
    params: p,
    input,
    ctx,
    sep,
    rawCut: keepAll ? 0 : sep.real.indexOf(turns[turns.length - params.maxTurns][0]),
    summarize: false,
    notes: keepAll
      ? []
      : [
          `the last ${params.maxTurns === 1 ? 'turn' : `${params.maxTurns} turns`} (${plan.tokensAfter} tokens) would not fit ${budgetText(ctx)}`,
        ],
  });
}

function turnsPlan(
  input: readonly Message[],
  synthetics: Message[],
  preamble: Message[],
  turns: Message[][],
  p: TurnWindowParams,
  ctx: PlanContext,
): CompactionPlan {
  if (turns.length <= p.maxTurns) {
    return noopPlan('turn-window', { ...p }, input, ctx, `${turns.length} turns <= maxTurns ${p.maxTurns}`);
  }
  const keptTurns = turns.slice(turns.length - p.maxTurns);
  const tailStart = keptTurns[0][0];
  const output = [...synthetics, ...preamble, ...keptTurns.flat()];
  const archivedTurns = turns.length - keptTurns.length;
  return finalizePlan({
    strategy: 'turn-window',
    params: { ...p },
    input,
    output,
    ctx,
    splitIndex: input.indexOf(tailStart),
    tailStartId: tailStart.id,
    needsSummary: false,
    syntheticIndex: null,
    notes: [`archived the oldest ${archivedTurns} turn${archivedTurns === 1 ? '' : 's'}`],
  });
}
