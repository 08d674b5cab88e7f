// Preserve recent turns (seed 004): keep the last N complete turns, collapse everything older into a
// summary. Each kept turn is capped by a per-turn budget (a fraction of the usable context, clamped):
// a turn over budget has its oldest tool results truncated until it fits.
import { groupTurns, hasToolResults, toolNamesById, toolResults, type Message } from '../conversation/conversation';
import type { CompactionPlan, PlanContext } from '../pipeline/plan';
import { separateSynthetics, withToolResultsReplaced, resultChars } from './common';
import { StrategyParamError } from './params';
import { planContiguousTail } from './tail';

export interface RecentTurnsParams {
  turns: number;
  perTurnFraction: number;
  perTurnMin: number;
  perTurnMax: number;
}

/** The per-turn budget: perTurnFraction of (window - output reserve), clamped to [min, max]. */
export function perTurnBudget(params: RecentTurnsParams, ctx: PlanContext): number {
  const usable = Math.max(0, ctx.contextWindow - ctx.maxOutputTokens);
  return Math.round(Math.min(params.perTurnMax, Math.max(params.perTurnMin, params.perTurnFraction * usable)));
}

export function planRecentTurns(input: readonly Message[], params: RecentTurnsParams, ctx: PlanContext): CompactionPlan {
  if (params.perTurnMin > params.perTurnMax) {
    throw new StrategyParamError('recent-turns', 'perTurnMin', `must be <= perTurnMax (${params.perTurnMax}), got ${params.perTurnMin}`);
  }
  const p = { ...params };
  const sep = separateSynthetics(input);
  const { turns } = groupTurns(sep.real);
  const keepAll = turns.length <= params.turns;
  const rawCut = keepAll ? 0 : sep.real.indexOf(turns[turns.length - params.turns][0]);
  const budget = perTurnBudget(params, ctx);
  const names = toolNamesById(sep.real);
  const notes = [`per-turn budget ${budget} tokens`];
  return planContiguousTail({
    strategy: 'recent-turns',
    params: p,
    input,
    ctx,
    sep,
    rawCut,
    summarize: true,
    notes,
    keepAllReason: `${turns.length} turns <= turns ${params.turns}`,
    replace: (tail) => {
      // A tail fitted to the window may open mid-turn (at a tool exchange): that part is capped like a turn.
      const { preamble, turns: tailTurns } = groupTurns(tail);
      const out: Message[] = [];
      for (const turn of preamble.length > 0 ? [preamble, ...tailTurns] : tailTurns) {
        for (const m of capTurn(turn, budget, names, ctx)) out.push(m);
      }
      return out;
    },
  });
}

/** Truncate the oldest tool results of a turn (never its last message) until it fits `budget`. */
function capTurn(turn: Message[], budget: number, names: ReadonlyMap<string, string>, ctx: PlanContext): Message[] {
  let total = ctx.tokens.countMessages(turn);
  if (total <= budget) return turn;
  const out = [...turn];
  for (let i = 0; i < out.length - 1 && total > budget; i++) {
    const m = out[i];
    if (!hasToolResults(m)) continue;
    const ids = new Set(
      toolResults(m)
        .filter((r) => resultChars(r) > 0)
        .map((r) => r.tool_use_id),
    );
    if (ids.size === 0) continue;
    const copy = withToolResultsReplaced(
      m,
      ids,
      names,
      (name, block) => `[Truncated to fit the per-turn budget: ${name} output of ${resultChars(block)} chars]`,
    );
    total += ctx.tokens.countMessage(copy) - ctx.tokens.countMessage(m);
    out[i] = copy;
  }
  return out;
}
