// Property tests: every strategy and micro-compact, on at least 10,000 generated conversations,
// produce a valid Messages API request and lose nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { toApiMessages, type Message } from '../../src/core/conversation';
import { planViolations, requestViolations } from '../../src/core/invariants';
import { applyPlan, DEFAULT_PLAN_CONTEXT, type PlanContext } from '../../src/core/plan';
import { STRATEGIES, resolveParams } from '../../src/core/strategies';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/tokens';
import { conversationArb } from './arbitraries';

const RUNS = Number(process.env.SPLITPOINT_PROPERTY_RUNS ?? 10_000);

/** Random parameters per strategy, inside each parameter's bounds and small enough to bite. */
const paramsArb = fc.record({
  maxEvents: fc.integer({ min: 1, max: 30 }),
  maxTurns: fc.integer({ min: 1, max: 5 }),
  maxTokens: fc.integer({ min: 1, max: 20_000 }),
  maxEventsToKeep: fc.integer({ min: 1, max: 30 }),
  overlapFrac: fc.double({ min: 0, max: 0.99, noNaN: true }),
  maxUserTokens: fc.integer({ min: 1, max: 2_000 }),
  fraction: fc.double({ min: 0.01, max: 0.99, noNaN: true }),
  turns: fc.integer({ min: 1, max: 4 }),
  perTurnMin: fc.integer({ min: 100, max: 3_000 }),
  keepRecent: fc.integer({ min: 0, max: 6 }),
  minChars: fc.integer({ min: 0, max: 500 }),
  contextWindow: fc.integer({ min: 8_000, max: 400_000 }),
});

type GeneratedParams = typeof paramsArb extends fc.Arbitrary<infer T> ? T : never;

function overridesFor(name: string, r: GeneratedParams): Record<string, number> {
  switch (name) {
    case 'sliding-window':
      return { maxEvents: r.maxEvents };
    case 'turn-window':
      return { maxTurns: r.maxTurns };
    case 'token-budget':
      return { maxTokens: r.maxTokens };
    case 'recursive-summarization':
      return { maxEventsToKeep: r.maxEventsToKeep, overlapSize: Math.floor(r.overlapFrac * r.maxEventsToKeep) };
    case 'preserve-user-messages':
      return { maxUserTokens: r.maxUserTokens };
    case 'recent-token-fraction':
      return { fraction: r.fraction };
    case 'recent-turns':
      return { turns: r.turns, perTurnMin: r.perTurnMin, perTurnMax: r.perTurnMin * 3 };
    case 'micro-compact':
      return { keepRecent: r.keepRecent, minChars: r.minChars };
    default:
      throw new Error(`no parameters for ${name}`);
  }
}

let conversations = 0;
let plansChecked = 0;
let nonNoopPlans = 0;

test(`generated conversations are themselves valid requests`, () => {
  fc.assert(
    fc.property(conversationArb, (messages) => {
      assert.deepEqual(requestViolations(toApiMessages(messages)), []);
    }),
    { numRuns: 500 },
  );
});

test(`every strategy and micro-compact keeps the invariants on ${RUNS} generated conversations`, () => {
  fc.assert(
    fc.property(conversationArb, paramsArb, (messages: Message[], r) => {
      conversations++;
      const tokens = new MemoizedMessageCounter(new CharEstimateTokenizer());
      const ctx: PlanContext = {
        ...DEFAULT_PLAN_CONTEXT,
        contextWindow: r.contextWindow,
        maxOutputTokens: Math.floor(r.contextWindow / 8),
        tokens,
      };
      const snapshot = JSON.stringify(messages);
      for (const def of STRATEGIES) {
        const plan = def.plan(messages, resolveParams(def, overridesFor(def.name, r)), ctx);
        const problems = planViolations(messages, plan);
        assert.deepEqual(problems, [], `${def.name}: ${problems.join('; ')}`);
        const applied = applyPlan(plan, { summary: 'Summary of earlier work.', transcriptPath: '.transcripts/x.jsonl' });
        assert.deepEqual(requestViolations(toApiMessages(applied)), [], `${def.name}: applied output invalid`);
        assert.equal(applied.length, plan.output.length);
        // Micro-compaction first (layer 1), then the strategy: still valid.
        plansChecked++;
        if (!plan.noop) nonNoopPlans++;
      }
      // Layers compose: micro-compact, then every strategy on its output.
      const micro = STRATEGIES.find((s) => s.name === 'micro-compact')!;
      const compacted = micro.plan(messages, resolveParams(micro, overridesFor('micro-compact', r)), ctx).output;
      for (const def of STRATEGIES) {
        const plan = def.plan(compacted, resolveParams(def, overridesFor(def.name, r)), ctx);
        assert.deepEqual(planViolations(compacted, plan), [], `micro-compact then ${def.name}`);
      }
      // Plans are pure: the input was not mutated.
      assert.equal(JSON.stringify(messages), snapshot);
    }),
    { numRuns: RUNS },
  );
  assert.ok(conversations >= RUNS);
  // A property that never compacts anything proves nothing: most plans must actually cut.
  assert.ok(nonNoopPlans > plansChecked / 3, `only ${nonNoopPlans} of ${plansChecked} plans changed anything`);
  console.log(
    `property volume: ${conversations} conversations, ${plansChecked} plans (${nonNoopPlans} non-trivial) ` +
      `+ ${conversations * STRATEGIES.length} composed plans`,
  );
});
