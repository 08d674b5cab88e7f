// Properties of the ledger step on generated conversations, every strategy, small windows often: the
// plan keeps every invariant (valid request, fits its window, tokensAfter recounted, never grows), and
// every genuine prompt it archives is either in the request it produces or listed as lost.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isTurnStart, textOf, toApiMessages, type Message } from '../../src/core/conversation/conversation';
import { fitViolations, planViolations, requestViolations } from '../../src/core/conversation/invariants';
import { instructionText } from '../../src/core/ledger/ledgerExtract';
import { applyPlan, DEFAULT_PLAN_CONTEXT, type PlanContext } from '../../src/core/pipeline/plan';
import { planRequest } from '../../src/core/pipeline/planRequest';
import { resolveStrategy, STRATEGY_NAMES } from '../../src/core/strategies';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';
import { conversationArb } from '../property/arbitraries';

const RUNS = 300;

test(`ledger step: every strategy keeps the invariants with the ledger on, and archived prompts survive or are reported lost (${RUNS} conversations)`, () => {
  let withLedger = 0;
  let prompts = 0;
  fc.assert(
    fc.property(conversationArb, fc.constantFrom(6_000, 8_000, 12_000, 32_000, 200_000), (messages: Message[], contextWindow) => {
      const ctx: PlanContext = {
        ...DEFAULT_PLAN_CONTEXT,
        contextWindow,
        maxOutputTokens: Math.floor(contextWindow / 8),
        tokens: new MemoizedMessageCounter(new CharEstimateTokenizer()),
        ledger: true,
        splitAtId: messages[Math.floor(messages.length / 2)]?.id,
      };
      for (const name of STRATEGY_NAMES) {
        const plan = resolveStrategy(name).plan(messages, ctx);
        const problems = [...planViolations(messages, plan), ...fitViolations(plan, ctx), ...requestViolations(planRequest(plan))];
        assert.deepEqual(problems, [], `${name} (window ${contextWindow}): ${problems.join('; ')}`);
        const applied = applyPlan(plan, { summary: 'Summary.', transcriptPath: '.transcripts/x.jsonl' });
        assert.deepEqual(requestViolations(toApiMessages(applied)), [], `${name}: applied output invalid`);
        if (plan.noop) continue;
        if (plan.ledger) withLedger++;
        const text = planRequest(plan).map(textOf).join('\n');
        const lost = new Set(plan.lost?.instructions ?? []);
        for (const e of plan.archived) {
          const m = messages[e.index];
          if (!isTurnStart(m) || textOf(m).trim() === '') continue;
          prompts++;
          assert.ok(
            text.includes(instructionText(m)) || lost.has(instructionText(m)),
            `${name}: archived prompt ${m.id} neither survives nor is reported lost`,
          );
        }
      }
    }),
    { numRuns: RUNS },
  );
  assert.ok(withLedger > RUNS && prompts > RUNS, `the property met ${withLedger} plans with a ledger and ${prompts} archived prompts`);
});
