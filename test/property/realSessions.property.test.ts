// Plans on the real recorded sessions in test/fixtures/real-sessions/: for
// every strategy, on the current context and on the context before each recorded compaction, at windows
// from 16,000 to 200,000 tokens (default parameters, then random ones), the plan's request is valid,
// loses nothing and fits the window (micro-compact alone may say it cannot, and then says so).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import type { Message } from '../../src/core/conversation/conversation';
import { importSession } from '../../src/core/importers';
import { fitViolations, planViolations, requestViolations } from '../../src/core/conversation/invariants';
import { DEFAULT_PLAN_CONTEXT, requestBudget, type CompactionPlan, type PlanContext } from '../../src/core/pipeline/plan';
import { planRequest } from '../../src/core/pipeline/planRequest';
import { resolveParams, STRATEGIES, type StrategyDefinition } from '../../src/core/strategies';
import { createTokenizer, DEFAULT_TOKENIZER } from '../../src/core/counting/tokenizers';
import { MemoizedMessageCounter } from '../../src/core/counting/tokens';

const REAL = join(import.meta.dirname ?? __dirname, '..', 'fixtures', 'real-sessions');
const FILES = ['claude-code-cipher-box-a.jsonl', 'claude-code-cipher-box-b.jsonl', 'codex-agentv-a.jsonl', 'codex-agentv-b.jsonl'];
const WINDOWS = [16_000, 32_000, 64_000, 200_000];
const RANDOM_RUNS = Number(process.env.SPLITPOINT_REAL_PROPERTY_RUNS ?? 12);

interface Context {
  name: string;
  messages: Message[];
}

const tokens = new MemoizedMessageCounter(createTokenizer(DEFAULT_TOKENIZER));

/** The current context of every real session, and the context before each of its recorded compactions. */
function contexts(): Context[] {
  const out: Context[] = [];
  for (const file of FILES) {
    const path = join(REAL, file);
    assert.ok(
      existsSync(path),
      `${path} is missing: the real sessions live in test/fixtures/real-sessions/ (copied into the repository with their licences)`,
    );
    const imported = importSession(readFileSync(path, 'utf8'), path);
    out.push({ name: `${file} (current context)`, messages: imported.messages });
    imported.compactions.forEach((c, i) => out.push({ name: `${file} (before recorded compaction ${i + 1})`, messages: c.before }));
  }
  return out;
}

/** As `splitpoint plan --window N` plans: the default answer reserve, plus an overhead for the system prompt and tools. */
function ctxFor(contextWindow: number, overheadTokens = 0): PlanContext {
  return { ...DEFAULT_PLAN_CONTEXT, contextWindow, overheadTokens, tokens };
}

function check(where: string, def: StrategyDefinition, messages: readonly Message[], plan: CompactionPlan, ctx: PlanContext): void {
  const problems = [...planViolations(messages, plan), ...fitViolations(plan, ctx)];
  assert.deepEqual(
    problems,
    [],
    `${where}, ${def.name} at window ${ctx.contextWindow}: ${problems.join('; ')}\n  notes: ${plan.notes.join(' | ')}`,
  );
  assert.deepEqual(requestViolations(planRequest(plan)), [], `${where}, ${def.name}: the plan's request is invalid`);
}

const all = contexts();

test('every strategy with its default parameters fits every window on the real sessions', () => {
  let shrunk = 0;
  let plans = 0;
  for (const { name, messages } of all) {
    for (const window of WINDOWS) {
      const ctx = ctxFor(window);
      for (const def of STRATEGIES) {
        const plan = def.plan(messages, resolveParams(def, {}), ctx);
        check(name, def, messages, plan, ctx);
        plans++;
        if (def.name !== 'micro-compact' && plan.tokensBefore > requestBudget(ctx)) shrunk++;
      }
    }
  }
  // Real contexts run to hundreds of thousands of tokens: most plans at small windows had to shrink.
  assert.ok(shrunk > plans / 4, `only ${shrunk} of ${plans} plans had to shrink to fit`);
});

test(`every strategy with random parameters fits random windows on the real sessions (${RANDOM_RUNS} runs per context)`, () => {
  const params = fc.record({
    window: fc.integer({ min: 16_000, max: 400_000 }),
    overhead: fc.integer({ min: 0, max: 4_000 }),
    maxEvents: fc.integer({ min: 1, max: 300 }),
    maxTurns: fc.integer({ min: 1, max: 30 }),
    maxTokens: fc.integer({ min: 0, max: 300_000 }),
    maxEventsToKeep: fc.integer({ min: 2, max: 300 }),
    maxUserTokens: fc.integer({ min: 1, max: 100_000 }),
    fraction: fc.double({ min: 0.01, max: 0.99, noNaN: true }),
    turns: fc.integer({ min: 1, max: 10 }),
  });
  for (const { name, messages } of all) {
    fc.assert(
      fc.property(params, (r) => {
        const ctx = ctxFor(r.window, r.overhead);
        const overrides: Record<string, Record<string, number>> = {
          'sliding-window': { maxEvents: r.maxEvents },
          'turn-window': { maxTurns: r.maxTurns },
          'token-budget': { maxTokens: r.maxTokens },
          'recursive-summarization': { maxEventsToKeep: r.maxEventsToKeep, overlapSize: 1 },
          'preserve-user-messages': { maxUserTokens: r.maxUserTokens },
          'recent-token-fraction': { fraction: r.fraction },
          'recent-turns': { turns: r.turns },
          'micro-compact': {},
        };
        for (const def of STRATEGIES) check(name, def, messages, def.plan(messages, resolveParams(def, overrides[def.name]), ctx), ctx);
      }),
      { numRuns: RANDOM_RUNS },
    );
  }
});
