// Property: for every generated conversation, every strategy and any set of pins, no pinned message is
// archived or truncated (it is sent verbatim, in its original order, older pins before the tail), the
// plan says which and how many tokens, and the request it leaves is valid.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Message } from '../../src/core/conversation/conversation';
import { fitViolations, planViolations, requestViolations } from '../../src/core/conversation/invariants';
import { DEFAULT_PLAN_CONTEXT, requestBudget, type PlanContext } from '../../src/core/pipeline/plan';
import { planRequest } from '../../src/core/pipeline/planRequest';
import { pinnedIn } from '../../src/core/ledger/pins';
import { STRATEGIES, resolveParams } from '../../src/core/strategies';
import { isServerStrategy } from '../../src/core/pipeline/serverContext';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';
import { conversationArb } from './arbitraries';

const RUNS = Number(process.env.SPLITPOINT_PIN_PROPERTY_RUNS ?? 400);

const paramsArb = fc.record({
  small: fc.integer({ min: 1, max: 12 }),
  maxTokens: fc.integer({ min: 1, max: 20_000 }),
  maxUserTokens: fc.integer({ min: 1, max: 2_000 }),
  fraction: fc.double({ min: 0.01, max: 0.99, noNaN: true }),
  contextWindow: fc.oneof(fc.constantFrom(8_000, 16_000, 32_000), fc.integer({ min: 8_000, max: 400_000 })),
  pins: fc.array(fc.double({ min: 0, max: 0.999, noNaN: true }), { maxLength: 6 }),
  splitAtFrac: fc.double({ min: 0, max: 0.999, noNaN: true }),
});

type Generated = typeof paramsArb extends fc.Arbitrary<infer T> ? T : never;

function overridesFor(name: string, r: Generated): Record<string, number> {
  switch (name) {
    case 'sliding-window':
      return { maxEvents: r.small };
    case 'turn-window':
      return { maxTurns: Math.min(r.small, 4) };
    case 'token-budget':
      return { maxTokens: r.maxTokens };
    case 'recursive-summarization':
      return { maxEventsToKeep: r.small, overlapSize: Math.floor(r.small / 3) };
    case 'preserve-user-messages':
      return { maxUserTokens: r.maxUserTokens };
    case 'recent-token-fraction':
      return { fraction: r.fraction };
    case 'recent-turns':
      return { turns: Math.min(r.small, 3) };
    case 'micro-compact':
      return { keepRecent: r.small % 4, minChars: 50 };
    default:
      return {};
  }
}

let pinnedPlans = 0;
let pinsOlderThanTail = 0;

test(`pinned messages survive every strategy verbatim and the request stays valid (${RUNS} conversations)`, () => {
  fc.assert(
    fc.property(conversationArb, paramsArb, (messages: Message[], r) => {
      const chosen = new Set(r.pins.map((f) => messages[Math.floor(f * messages.length)]?.id).filter((id): id is string => !!id));
      const ctx: PlanContext = {
        ...DEFAULT_PLAN_CONTEXT,
        contextWindow: r.contextWindow,
        maxOutputTokens: Math.floor(r.contextWindow / 8),
        tokens: new MemoizedMessageCounter(new CharEstimateTokenizer()),
        pinnedIds: chosen,
      };
      // split-at's target (a context field of that strategy), sometimes a pinned message.
      Object.assign(ctx, { splitAtId: messages[Math.floor(r.splitAtFrac * messages.length)]?.id });
      const closed = pinnedIn(messages, chosen);
      const pins = messages.filter((m) => closed.has(m.id));
      const pinTokens = ctx.tokens.countMessages(pins);
      // The server strategies are left out: the server does not know the session's pins (their notes say so).
      for (const def of STRATEGIES.filter((d) => !isServerStrategy(d.name))) {
        const plan = def.plan(messages, resolveParams(def, overridesFor(def.name, r)), ctx);
        const label = `${def.name} (window ${ctx.contextWindow}, pins ${[...closed].join(',')})`;
        assert.deepEqual(planViolations(messages, plan), [], label);
        assert.deepEqual(requestViolations(planRequest(plan)), [], `${label}: the request is invalid`);
        for (const e of plan.archived) assert.ok(!closed.has(e.id), `${label}: pinned ${e.id} archived`);
        for (const e of plan.truncated) assert.ok(!closed.has(e.id), `${label}: pinned ${e.id} truncated`);
        const positions = pins.map((p) => plan.output.indexOf(p));
        assert.ok(
          positions.every((p) => p >= 0),
          `${label}: a pinned message is not in the output verbatim`,
        );
        assert.deepEqual(
          positions,
          [...positions].sort((a, b) => a - b),
          `${label}: pins out of their original order`,
        );
        if (closed.size === 0) continue;
        pinnedPlans++;
        assert.deepEqual(
          plan.pinned,
          pins.map((m) => m.id),
          label,
        );
        assert.equal(plan.pinnedTokens, pinTokens, label);
        // Pins older than the tail sit before it.
        const tailAt = plan.output.findIndex((m) => m.id === plan.tailStartId);
        const tailInput = messages.findIndex((m) => m.id === plan.tailStartId);
        pins.forEach((p, k) => {
          if (tailAt < 0 || messages.indexOf(p) >= tailInput) return;
          pinsOlderThanTail++;
          assert.ok(positions[k] < tailAt, `${label}: pin ${p.id} is after the tail start`);
        });
        // Pins count against the budget: when they leave room, the plan still fits.
        if (pinTokens + ctx.summaryMaxTokens * 2 < requestBudget(ctx) / 2) {
          assert.deepEqual(fitViolations(plan, ctx), [], `${label}: does not fit with ${pinTokens} pinned tokens`);
        }
      }
    }),
    { numRuns: RUNS },
  );
  assert.ok(pinnedPlans > RUNS, `plans with pins: ${pinnedPlans}`);
  assert.ok(pinsOlderThanTail > 0, 'some pins were older than the tail (moved before it)');
});
