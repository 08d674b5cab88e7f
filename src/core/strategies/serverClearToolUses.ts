// server-clear-tool-uses: the API's context editing (`clear_tool_uses_20250919`, see ../serverContext.ts
// for the documented rules and their sources). The agent sends the edit with every request and the
// server clears old tool results itself; this plan EMULATES the server on the local history so the
// inspector can preview what the next request would lose. The session keeps every original (the
// server edits each request, never the client's history).
import type { Message } from '../conversation/conversation';
import { finalizePlan, requestBudget, type CompactionPlan, type PlanContext } from '../pipeline/plan';
import { clearToolUsesEdit, emulateClearToolUses } from '../pipeline/serverContext';

export const EMULATION_NOTE = 'emulation of the server: the API applies this edit to each request itself; the session is not changed';

export function planServerClearToolUses(input: readonly Message[], params: Record<string, number>, ctx: PlanContext): CompactionPlan {
  const edit = clearToolUsesEdit(params, ctx.serverContext);
  const e = emulateClearToolUses(input, edit, ctx);
  const notes = [`${EMULATION_NOTE} (clear_tool_uses_20250919)`];
  const excluded = edit.exclude_tools ? `, never ${edit.exclude_tools.join(', ')}` : '';
  if (!e.fired) {
    notes.push(`below the trigger: ~${e.inputTokens} estimated input tokens <= ${e.trigger}; the server would clear nothing`);
  } else if (e.belowClearAtLeast) {
    notes.push(
      `over the trigger (~${e.inputTokens} > ${e.trigger}) but only ~${e.clearedTokens} tokens can be cleared, ` +
        `fewer than clear_at_least ${edit.clear_at_least?.value ?? 0}: the server would leave the context unchanged`,
    );
  } else if (e.cleared.length === 0) {
    notes.push(`over the trigger (~${e.inputTokens} > ${e.trigger}) but no tool use is older than the ${edit.keep.value} kept${excluded}`);
  } else {
    const n = e.cleared.length;
    notes.push(
      `over the trigger (~${e.inputTokens} > ${e.trigger}): the server would clear the ${n} oldest tool result${n === 1 ? '' : 's'} ` +
        `(~${e.clearedTokens} tokens), keeping the ${edit.keep.value} most recent tool uses${excluded}` +
        (edit.clear_tool_inputs ? ', their inputs too' : ''),
    );
  }
  const plan = finalizePlan({
    strategy: 'server-clear-tool-uses',
    params: { ...params },
    input,
    output: [...e.output],
    ctx,
    splitIndex: 0,
    tailStartId: input[0]?.id ?? null,
    needsSummary: false,
    syntheticIndex: null,
    notes,
  });
  return withFitNote(plan, ctx);
}

/** A server strategy cannot shrink a request further than the server would: when it does not fit, it says so. */
export function withFitNote(plan: CompactionPlan, ctx: PlanContext): CompactionPlan {
  if (plan.fitsWindow) return plan;
  const note = `~${plan.tokensAfter} tokens do not fit the ${requestBudget(ctx)}-token request budget: the server would refuse the request as too long`;
  return { ...plan, notes: [...plan.notes, note] };
}
