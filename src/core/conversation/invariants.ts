// The rules every compaction output must satisfy: a valid Messages API request, and nothing lost.
import { blocksOf, isToolResult, isToolUse, toApiMessages, type ApiMessage, type Message } from './conversation';
import { SplitpointError } from '../base/errors';
import { requestBudget, type CompactionPlan, type PlanContext } from '../pipeline/plan';

/**
 * Strategies that never archive and so cannot shrink a request further than they do: micro-compact, and
 * the server strategies (their plans emulate what the server would do, which may still not fit).
 */
const MAY_EXCEED_WINDOW: ReadonlySet<string> = new Set(['micro-compact', 'server-clear-tool-uses', 'server-compact']);

/** Violations of the Messages API's structural rules, as readable sentences (empty = valid). */
export function requestViolations(request: readonly ApiMessage[]): string[] {
  const problems: string[] = [];
  if (request.length === 0) return ['the request has no messages'];
  if (request[0].role !== 'user') problems.push(`messages[0]: first message must be user, got ${request[0].role}`);
  const seenToolUse = new Set<string>();
  request.forEach((m, i) => {
    if (i > 0 && request[i - 1].role === m.role) problems.push(`messages[${i}]: roles must alternate, two ${m.role} messages in a row`);
    const blocks = blocksOf(m);
    if (blocks.length === 0 || (typeof m.content === 'string' && m.content.length === 0)) problems.push(`messages[${i}]: content is empty`);
    const uses = blocks.filter(isToolUse);
    const results = blocks.filter(isToolResult);
    if (m.role === 'assistant' && results.length > 0) problems.push(`messages[${i}]: assistant message carries a tool_result`);
    if (m.role === 'user' && uses.length > 0) problems.push(`messages[${i}]: user message carries a tool_use`);
    for (const u of uses) {
      if (seenToolUse.has(u.id)) problems.push(`messages[${i}]: duplicate tool_use id ${u.id}`);
      seenToolUse.add(u.id);
    }
    if (uses.length > 0) {
      const next = request[i + 1];
      const nextIds = new Set(
        next && next.role === 'user'
          ? blocksOf(next)
              .filter(isToolResult)
              .map((r) => r.tool_use_id)
          : [],
      );
      for (const u of uses) {
        if (!nextIds.has(u.id)) problems.push(`messages[${i}]: tool_use ${u.id} has no tool_result in the next message`);
      }
    }
    if (results.length > 0) {
      const prev = request[i - 1];
      const prevIds = new Set(
        prev && prev.role === 'assistant'
          ? blocksOf(prev)
              .filter(isToolUse)
              .map((u) => u.id)
          : [],
      );
      for (const r of results) {
        if (!prevIds.has(r.tool_use_id))
          problems.push(`messages[${i}]: tool_result for ${r.tool_use_id} has no tool_use in the previous message`);
      }
      // The API wants tool_result blocks before any other block of the message.
      const firstOther = blocks.findIndex((b) => !isToolResult(b));
      const lastResult = blocks.map((b) => isToolResult(b)).lastIndexOf(true);
      if (firstOther !== -1 && firstOther < lastResult) problems.push(`messages[${i}]: tool_result blocks must come first in the message`);
    }
  });
  return problems;
}

/** Violations of a plan against its input: request validity of the output, and nothing lost. */
export function planViolations(input: readonly Message[], plan: CompactionPlan): string[] {
  const problems: string[] = [];
  const inputIds = input.map((m) => m.id);
  if (new Set(inputIds).size !== inputIds.length) problems.push('input has duplicate message ids');
  const keptIds = new Set(plan.kept.map((e) => e.id));
  const archivedIds = new Set(plan.archived.map((e) => e.id));
  for (const id of keptIds) if (archivedIds.has(id)) problems.push(`message ${id} is both kept and archived`);
  for (const id of inputIds)
    if (!keptIds.has(id) && !archivedIds.has(id)) problems.push(`message ${id} is neither kept nor archived (lost)`);
  if (keptIds.size + archivedIds.size !== inputIds.length)
    problems.push(`kept (${keptIds.size}) + archived (${archivedIds.size}) != input (${inputIds.length})`);
  const outIds = plan.output.map((m) => m.id);
  if (new Set(outIds).size !== outIds.length) problems.push('output has duplicate message ids');
  for (const m of plan.output) {
    if (!m.synthetic && !keptIds.has(m.id)) problems.push(`output message ${m.id} is neither kept nor synthetic`);
  }
  const outIdSet = new Set(outIds);
  for (const id of keptIds) if (!outIdSet.has(id)) problems.push(`kept message ${id} is missing from the output`);
  if (input.length > 0) {
    if (plan.output.length === 0) problems.push('output is empty');
    if (plan.tailStartId === null) problems.push('no tail-start pointer');
    else if (!keptIds.has(plan.tailStartId)) problems.push(`tail-start pointer ${plan.tailStartId} is not a kept message`);
    if (input.some((m) => !m.synthetic) && !plan.output.some((m) => !m.synthetic)) problems.push('tail is empty: no real message kept');
    for (const v of requestViolations(toApiMessages(plan.output))) problems.push(`output request: ${v}`);
  }
  return problems;
}

/** Tokens of the request a plan leaves, recounted from its output (a summary slot at the plan's estimate). */
export function planOutputTokens(plan: CompactionPlan, ctx: Pick<PlanContext, 'tokens'>): number {
  let total = 0;
  plan.output.forEach((m, i) => {
    total += plan.needsSummary && i === plan.syntheticIndex ? plan.summaryTokensEstimate : ctx.tokens.countMessage(m);
  });
  return total;
}

/**
 * Violations of "a plan fits the window it is given": the recounted request is within the request
 * budget (micro-compact alone may say it is not), `fitsWindow` tells the truth, and the plan never
 * increases the tokens it was asked to reduce.
 */
export function fitViolations(plan: CompactionPlan, ctx: PlanContext): string[] {
  const problems: string[] = [];
  const tokens = planOutputTokens(plan, ctx);
  const budget = requestBudget(ctx);
  if (tokens !== plan.tokensAfter) problems.push(`tokensAfter ${plan.tokensAfter} != ${tokens} recounted from the output`);
  if (plan.fitsWindow !== tokens <= budget)
    problems.push(`fitsWindow is ${plan.fitsWindow} for ${tokens} tokens in a ${budget}-token budget`);
  if (tokens > budget && !MAY_EXCEED_WINDOW.has(plan.strategy))
    problems.push(`${tokens} tokens do not fit the ${budget}-token request budget`);
  if (!plan.fitsWindow && !plan.notes.some((n) => /fit/.test(n))) problems.push('the plan does not fit and no note says so');
  if (plan.tokensAfter > plan.tokensBefore) problems.push(`tokens increase: ${plan.tokensBefore} -> ${plan.tokensAfter}`);
  if (plan.needsSummary && plan.tokensAfter >= plan.tokensBefore)
    problems.push(`a summary that saves nothing: ${plan.tokensBefore} -> ${plan.tokensAfter}`);
  return problems;
}

export class InvariantError extends SplitpointError {
  constructor(readonly problems: string[]) {
    super(`Compaction would produce an invalid history:\n  - ${problems.join('\n  - ')}`);
    this.name = 'InvariantError';
  }
}

export function assertPlanValid(input: readonly Message[], plan: CompactionPlan): void {
  const problems = planViolations(input, plan);
  if (problems.length > 0) throw new InvariantError(problems);
}
