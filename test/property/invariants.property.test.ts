// Property tests: every strategy and micro-compact, on at least 10,000 generated conversations,
// produce a valid Messages API request, lose nothing, and fit the window they are given (small windows
// included; micro-compact alone may say it cannot), never increasing the tokens they were asked to reduce.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { toApiMessages, type Message } from '../../src/core/conversation/conversation';
import { fitViolations, planViolations, requestViolations } from '../../src/core/conversation/invariants';
import { applyPlan, DEFAULT_PLAN_CONTEXT, requestBudget, type PlanContext } from '../../src/core/pipeline/plan';
import { planRequest } from '../../src/core/pipeline/planRequest';
import { STRATEGIES, resolveParams } from '../../src/core/strategies';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';
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
  /** split-at: with or without a summary, and where (a fraction of the conversation) the chosen message is. */
  splitSummarize: fc.integer({ min: 0, max: 1 }),
  splitAtFrac: fc.double({ min: 0, max: 0.999, noNaN: true }),
  /** Small windows often: that is where plans have to shrink, cut mid-turn and truncate to fit. */
  contextWindow: fc.oneof(fc.constantFrom(8_000, 12_000, 16_000, 32_000), fc.integer({ min: 8_000, max: 400_000 })),
  /** System prompt and tool definitions, counted against the window. */
  overheadTokens: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 1_500 })),
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
    case 'split-at':
      return { summarize: r.splitSummarize };
    // The server strategies' emulations: triggers low enough to fire on generated conversations.
    case 'server-clear-tool-uses':
      return {
        triggerTokens: 1 + r.minChars * 10,
        keepToolUses: r.keepRecent,
        clearAtLeast: r.minChars,
        clearToolInputs: r.splitSummarize,
      };
    case 'server-compact':
      return { triggerTokens: 50_000, pauseAfterCompaction: r.splitSummarize };
    default:
      throw new Error(`no parameters for ${name}`);
  }
}

let conversations = 0;
let plansChecked = 0;
let nonNoopPlans = 0;
/** Plans that said they do not fit (micro-compact only): the property must meet some, or it tests nothing. */
let overWindow = 0;
/** Plans whose input did not fit: they had to shrink (or truncate) to fit. */
let hadToShrink = 0;

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
        overheadTokens: r.overheadTokens,
        tokens,
        splitAtId: messages[Math.floor(r.splitAtFrac * messages.length)]?.id,
      };
      const snapshot = JSON.stringify(messages);
      for (const def of STRATEGIES) {
        const plan = def.plan(messages, resolveParams(def, overridesFor(def.name, r)), ctx);
        const problems = [...planViolations(messages, plan), ...fitViolations(plan, ctx)];
        assert.deepEqual(problems, [], `${def.name} (window ${ctx.contextWindow}): ${problems.join('; ')}`);
        assert.deepEqual(requestViolations(planRequest(plan)), [], `${def.name}: the plan's request is invalid`);
        if (!plan.fitsWindow) overWindow++;
        if (def.name !== 'micro-compact' && plan.tokensBefore > requestBudget(ctx)) hadToShrink++;
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
        assert.deepEqual([...planViolations(compacted, plan), ...fitViolations(plan, ctx)], [], `micro-compact then ${def.name}`);
      }
      // Plans are pure: the input was not mutated.
      assert.equal(JSON.stringify(messages), snapshot);
    }),
    { numRuns: RUNS },
  );
  assert.ok(conversations >= RUNS);
  // A property that never compacts anything proves nothing: most plans must actually cut.
  assert.ok(nonNoopPlans > plansChecked / 3, `only ${nonNoopPlans} of ${plansChecked} plans changed anything`);
  assert.ok(overWindow > 0 && hadToShrink > plansChecked / 20, `only ${hadToShrink} plans had to shrink: the fit property tests little`);
  console.log(
    `property volume: ${conversations} conversations, ${plansChecked} plans (${nonNoopPlans} non-trivial, ` +
      `${hadToShrink} shrunk to fit, ${overWindow} micro-compact plans over the window) + ${conversations * STRATEGIES.length} composed plans`,
  );
});
