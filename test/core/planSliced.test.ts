// planWithSliced (the plan's per-message passes done ahead in slices, then the one synchronous planner
// over the prepared input) returns the CompactionPlan planWith returns: for every strategy, on the real
// recorded sessions and on generated ones, with the ledger, pins, a recorded cache and a counter whose
// counts are not integers. It gives the event loop turns while it works, and the synchronous part over
// a prepared input no longer counts every message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CharEstimateTokenizer,
  DEFAULT_PLAN_CONTEXT,
  importSession,
  MemoizedMessageCounter,
  planWith,
  preparePlanInput,
  resolveStrategy,
  STRATEGY_NAMES,
  type CompactionPlan,
  type Message,
  type MessageTokenCounter,
  type PlanContext,
} from '../../src/core/index';
import { planWithSliced } from '../../src/core/strategies';
import { withPlanPrep } from '../../src/core/pipeline/planPrep';
import { syntheticSession } from '../helpers/synthetic';
import { withEventLoopTurns } from '../helpers/async';

const DIR = join(__dirname, '..', 'fixtures', 'real-sessions');
const REAL = ['claude-code-cipher-box-a.jsonl', 'claude-code-cipher-box-b.jsonl', 'codex-agentv-a.jsonl', 'codex-agentv-b.jsonl'];

/** Parameters that make each strategy archive on sessions of a few hundred messages (defaults otherwise). */
const PARAMS: Record<string, Record<string, number>> = {
  'sliding-window': { maxEvents: 20 },
  'turn-window': { maxTurns: 2 },
  'token-budget': { maxTokens: 3_000 },
  'preserve-user-messages': { maxUserTokens: 500 },
  'micro-compact': { keepRecent: 2, minChars: 50, cacheAware: 0, supersede: 1 },
};

/** A counter whose counts are not whole numbers (the prepared sums must then be taken message by message). */
class FractionalCounter implements MessageTokenCounter {
  private readonly inner = new MemoizedMessageCounter(new CharEstimateTokenizer());
  countMessage(m: Message): number {
    return this.inner.countMessage(m) * 1.1;
  }
  countMessages(ms: readonly Message[]): number {
    let t = 0;
    for (const m of ms) t += this.countMessage(m);
    return t;
  }
}

/** The plan with what a plan makes fresh (a summary slot's or opener's id and time) replaced by fixed values. */
function normalized(plan: CompactionPlan, input: readonly Message[]): unknown {
  const known = new Set(input);
  const fresh = (m: Message) => (known.has(m) ? m : { ...m, id: 'fresh', createdAt: 0 });
  return { ...plan, output: plan.output.map(fresh) };
}

function contexts(messages: readonly Message[]): Array<[string, PlanContext]> {
  const tokens = new MemoizedMessageCounter(new CharEstimateTokenizer());
  const base: PlanContext = { ...DEFAULT_PLAN_CONTEXT, contextWindow: 30_000, tokens };
  const real = messages.filter((m) => !m.synthetic);
  const pinned = new Set([real[1]?.id, real[Math.floor(real.length / 2)]?.id].filter((x): x is string => x !== undefined));
  return [
    ['plain', base],
    ['ledger, overhead', { ...base, ledger: true, overheadTokens: 1_200 }],
    ['pins', { ...base, ledger: true, pinnedIds: pinned }],
    ['recorded cache', { ...base, cache: { cachedPrefixTokens: 5_000, model: 'claude-sonnet-4-5' } }],
    ['fractional counts', { ...base, tokens: new FractionalCounter() }],
  ];
}

async function assertSame(label: string, messages: readonly Message[]): Promise<number> {
  let compared = 0;
  for (const [name, ctx] of contexts(messages)) {
    for (const strategy of STRATEGY_NAMES) {
      const params = PARAMS[strategy] ?? {};
      const c = strategy === 'split-at' ? { ...ctx, splitAtId: messages[Math.floor(messages.length / 2)].id } : ctx;
      const plain = planWith(strategy, messages, params, c);
      const sliced = await planWithSliced(strategy, messages, params, c, 1);
      assert.deepStrictEqual(normalized(sliced, messages), normalized(plain, messages), `${label}, ${name}: ${strategy}`);
      compared++;
    }
  }
  return compared;
}

test('planWithSliced: the same plan as planWith for every strategy on the real recorded sessions', async () => {
  let archiving = 0;
  for (const f of REAL) {
    const path = join(DIR, f);
    const messages = importSession(readFileSync(path, 'utf8'), path).messages;
    assert.ok(messages.length > 50, `${f} has messages`);
    await assertSame(f, messages);
    const tokens = new MemoizedMessageCounter(new CharEstimateTokenizer());
    const plan = planWith('recursive-summarization', messages, {}, { ...DEFAULT_PLAN_CONTEXT, tokens });
    if (plan.archived.length > 0) archiving++;
  }
  assert.ok(archiving > 0, 'some plans archive (the prepared entries are used)');
});

test('planWithSliced: the same plan as planWith for every strategy on generated sessions, with synthetics in the input', async () => {
  for (const seed of [3, 4]) {
    const messages = syntheticSession({ seed, messages: 600 });
    await assertSame(`synthetic ${seed}`, messages);
    // An earlier compaction's summary and opener in the history (separated ahead, folded or kept by each strategy).
    const withSynthetics: Message[] = [
      { id: 'old-sum', role: 'user', content: 'Earlier: the parser was fixed.', synthetic: 'summary', createdAt: 1 },
      ...messages.slice(0, 300),
      { id: 'old-ph', role: 'user', content: '[Earlier context compacted]', synthetic: 'placeholder', createdAt: 2 },
      ...messages.slice(300),
    ];
    await assertSame(`synthetic ${seed} with synthetics`, withSynthetics);
  }
});

test('planWithSliced: plans the messages as they were when called (what is appended meanwhile is not planned)', async () => {
  const messages = syntheticSession({ seed: 8, messages: 3_000 });
  const tokens = new MemoizedMessageCounter(new CharEstimateTokenizer());
  const ctx = { ...DEFAULT_PLAN_CONTEXT, tokens };
  const expected = planWith('recursive-summarization', messages, {}, ctx);
  const live = messages.slice();
  const pending = planWithSliced('recursive-summarization', live, {}, ctx, 0);
  live.push({ id: 'late', role: 'user', content: 'appended while planning' });
  const plan = await pending;
  assert.deepStrictEqual(normalized(plan, messages), normalized(expected, messages));
});

test('planWithSliced: the event loop gets turns while a large session is planned', async () => {
  const messages = syntheticSession({ seed: 9, messages: 40_000 });
  const tokens = new MemoizedMessageCounter(new CharEstimateTokenizer());
  const { value: plan, turns } = await withEventLoopTurns(() =>
    planWithSliced('recursive-summarization', messages, {}, { ...DEFAULT_PLAN_CONTEXT, tokens }, 1),
  );
  assert.ok(plan.archived.length > 0);
  assert.ok(turns >= 2, `setImmediate callbacks ran during the plan (${turns})`);
});

test('withPlanPrep: over a prepared input the synchronous plan counts only the messages it keeps or makes, not each one', async () => {
  const messages = syntheticSession({ seed: 10, messages: 20_000 });
  let counted = 0;
  const inner = new MemoizedMessageCounter(new CharEstimateTokenizer());
  const tokens: MessageTokenCounter = {
    countMessage: (m) => {
      counted++;
      return inner.countMessage(m);
    },
    countMessages: (ms) => ms.reduce((t, m) => t + tokens.countMessage(m), 0),
  };
  const ctx = { ...DEFAULT_PLAN_CONTEXT, tokens };
  const strategy = resolveStrategy('recursive-summarization');
  strategy.plan(messages, ctx);
  const unprepared = counted;
  const prep = await preparePlanInput(messages, tokens, 1);
  counted = 0;
  const plan = withPlanPrep(prep, () => strategy.plan(messages, ctx));
  assert.ok(plan.archived.length > 19_000);
  assert.ok(unprepared >= messages.length, `without a prep every message is counted (${unprepared})`);
  assert.ok(counted < 100, `with the prep only a few are (${counted})`);
});
