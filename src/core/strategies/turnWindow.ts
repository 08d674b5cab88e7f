// Turn window (seed 003): keep the last `maxTurns` complete turns, never cutting inside a turn.
// Output: [synthetics] + [preamble before the first user prompt] + [kept turns].
import { groupTurns, type Message } from '../conversation';
import { finalizePlan, noopPlan, type CompactionPlan, type PlanContext } from '../plan';
import { separateSynthetics } from './common';

export interface TurnWindowParams {
  maxTurns: number;
}

export function planTurnWindow(input: readonly Message[], params: TurnWindowParams, ctx: PlanContext): CompactionPlan {
  const p = { maxTurns: params.maxTurns };
  const sep = separateSynthetics(input);
  const { preamble, turns } = groupTurns(sep.real);
  if (turns.length <= params.maxTurns) {
    return noopPlan('turn-window', p, input, ctx, `${turns.length} turns <= maxTurns ${params.maxTurns}`);
  }
  const keptTurns = turns.slice(turns.length - params.maxTurns);
  const tailStart = keptTurns[0][0];
  const output = [...sep.synthetics, ...preamble, ...keptTurns.flat()];
  const archivedTurns = turns.length - keptTurns.length;
  return finalizePlan({
    strategy: 'turn-window',
    params: p,
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
