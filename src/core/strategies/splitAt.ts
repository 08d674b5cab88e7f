// Split here (issue 13): compact everything before a message the user chose (`ctx.splitAtId`), with an
// LLM summary or without one (`summarize` 1 / 0). The cut goes through the same contiguous-tail
// builder as every strategy: it snaps to a turn start, else to a tool-exchange boundary with a
// synthetic opener, and shrinks to fit the window; pins and the ledger are applied the same way.
// A note names the message the tail really starts at when the snap moved it.
import { isTurnStart, type Message } from '../conversation/conversation';
import { SplitpointError } from '../base/errors';
import type { CompactionPlan, PlanContext } from '../pipeline/plan';
import { separateSynthetics } from './common';
import { planContiguousTail } from './tail';

export interface SplitAtParams {
  /** 1: the archived part collapses into an LLM summary; 0: a placeholder opener, no model call. */
  summarize: number;
}

/** The chosen message is not in the history planned on. */
export class UnknownSplitTargetError extends SplitpointError {
  constructor(readonly id: string) {
    super(`split-at: no message with id "${id}" in the history planned on`);
    this.name = 'UnknownSplitTargetError';
  }
}

export function planSplitAt(input: readonly Message[], params: SplitAtParams, ctx: PlanContext): CompactionPlan {
  const p = { summarize: params.summarize };
  const sep = separateSynthetics(input);
  const notes: string[] = [];
  const target = chooseTarget(input, sep.real, ctx.splitAtId, notes);
  const rawCut = target === null ? 0 : sep.real.indexOf(target);
  const plan = planContiguousTail({
    strategy: 'split-at',
    params: p,
    input,
    ctx,
    sep,
    rawCut,
    summarize: params.summarize === 1,
    notes,
    keepAllReason: target === null ? 'no message to split at' : `nothing before ${target.id} to compact`,
  });
  // A plan that keeps everything carries only its reason: say how the target was chosen too.
  plan.notes = [...notes.filter((n) => !plan.notes.includes(n)), ...plan.notes];
  if (target !== null && !plan.noop && plan.tailStartId !== target.id) {
    plan.notes.push(`the split moved from ${target.id} to ${plan.tailStartId ?? 'nowhere'} (the nearest safe boundary)`);
  }
  return plan;
}

/**
 * The real message the tail should start at: the chosen one (a synthetic summary or opener: the first
 * real message after it); with no choice, the latest genuine prompt (compact everything before the
 * current turn). Null when there is nothing to split before.
 */
function chooseTarget(input: readonly Message[], real: readonly Message[], id: string | undefined, notes: string[]): Message | null {
  if (id === undefined) {
    for (let i = real.length - 1; i >= 0; i--) {
      if (isTurnStart(real[i])) {
        notes.push(`no message chosen: split before the latest prompt ${real[i].id}`);
        return real[i];
      }
    }
    return null;
  }
  const at = input.findIndex((m) => m.id === id);
  if (at === -1) throw new UnknownSplitTargetError(id);
  if (!input[at].synthetic) return input[at];
  const next = input.slice(at + 1).find((m) => !m.synthetic) ?? null;
  notes.push(`${id} is a synthetic message: split before ${next ? next.id : 'the end'} instead`);
  return next;
}
