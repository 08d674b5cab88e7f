// Micro-compaction in batches: triggerTokens, clearAtLeast, the tools filter, and the cache-aware
// decision (clear only when the saving over horizonTurns pays for re-writing the cached prefix). The
// expected figures are computed by hand here from Claude Sonnet's prices ($3 input, $0.30 cache read,
// $3.75 5-minute cache write per million tokens), not by calling the code under test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Message, ToolResultBlock } from '../../../src/core/conversation/conversation';
import { planMicroCompact } from '../../../src/core/strategies/microCompact';
import { planWith } from '../../../src/core/strategies';
import { CLAUDE_CODE_MICRO_COMPACT, READ_SHELL_SEARCH_TOOLS } from '../../../src/core/pipeline/microBatch';
import { IncrementalMicroCompactor } from '../../../src/core/pipeline/microCompactor';
import { planViolations } from '../../../src/core/conversation/invariants';
import { call, CharCounter, ctxWith, results, user } from '../../helpers/build';

const SONNET = 'claude-sonnet-4-5';
/** "[Previous: used Read]" */
const READ_PLACEHOLDER = 21;

/** A prompt of 1,000 tokens, then one Read per entry of `sizes` (result of that many tokens). */
function session(sizes: number[], tool = 'Read'): Message[] {
  const out: Message[] = [user('u', 'p'.repeat(1000))];
  sizes.forEach((n, i) => out.push(call(`c${i}`, [`t${i}`, tool]), results(`r${i}`, [`t${i}`, 'x'.repeat(n)])));
  return out;
}

const contentOf = (plan: { output: Message[] }, id: string) =>
  (plan.output.find((m) => m.id === id)!.content as ToolResultBlock[])[0].content as string;

test('triggerTokens: old results under the trigger are held; at the trigger they are all cleared in one batch', () => {
  const msgs = session([3000, 3000, 500]);
  const ctx = ctxWith(new CharCounter());
  // Old (keepRecent 1): r0 and r1, 6,000 tokens.
  const held = planMicroCompact(msgs, { keepRecent: 1, minChars: 0, triggerTokens: 6001 }, ctx);
  assert.equal(held.noop, true);
  assert.equal(held.microCompaction!.action, 'held');
  assert.equal(held.microCompaction!.clearableTokens, 6000);
  assert.match(held.notes[0], /total 6000 tokens, under triggerTokens 6001/);
  const cleared = planMicroCompact(msgs, { keepRecent: 1, minChars: 0, triggerTokens: 6000 }, ctx);
  assert.equal(cleared.microCompaction!.action, 'cleared');
  assert.deepEqual(
    cleared.truncated.map((t) => t.id),
    ['r0', 'r1'],
  );
  assert.equal(cleared.microCompaction!.savedTokens, 2 * (3000 - READ_PLACEHOLDER));
  assert.equal(contentOf(cleared, 'r2'), 'x'.repeat(500));
  assert.deepEqual(planViolations(msgs, cleared), []);
});

test('clearAtLeast: a batch that would save less is held (the API clear_at_least); 0 clears any saving', () => {
  const msgs = session([400, 400, 400]);
  const ctx = ctxWith(new CharCounter());
  const saves = 2 * (400 - READ_PLACEHOLDER); // 758
  const held = planMicroCompact(msgs, { keepRecent: 1, minChars: 0, clearAtLeast: saves + 1 }, ctx);
  assert.equal(held.microCompaction!.action, 'held');
  assert.equal(held.microCompaction!.savedTokens, saves);
  assert.equal(held.tokensAfter, held.tokensBefore);
  const atLeast = planMicroCompact(msgs, { keepRecent: 1, minChars: 0, clearAtLeast: saves }, ctx);
  assert.equal(atLeast.microCompaction!.action, 'cleared');
  assert.equal(atLeast.tokensBefore - atLeast.tokensAfter, saves);
  assert.equal(planMicroCompact(msgs, { keepRecent: 1, minChars: 0, clearAtLeast: 0 }, ctx).truncated.length, 2);
});

test('tools: only results of the listed tools are cleared; empty or absent = every tool', () => {
  const msgs = [
    user('u', 'p'.repeat(100)),
    call('c0', ['t0', 'Read']),
    results('r0', ['t0', 'r'.repeat(500)]),
    call('c1', ['t1', 'Edit']),
    results('r1', ['t1', 'e'.repeat(500)]),
    call('c2', ['t2', 'exec_command']),
    results('r2', ['t2', 's'.repeat(500)]),
    call('c3', ['t3', 'Bash']),
    results('r3', ['t3', 'b'.repeat(500)]),
  ];
  const ctx = ctxWith(new CharCounter());
  const filtered = planMicroCompact(msgs, { keepRecent: 1, minChars: 0, tools: READ_SHELL_SEARCH_TOOLS }, ctx);
  assert.deepEqual(
    filtered.truncated.map((t) => t.id),
    ['r0', 'r2'],
  );
  assert.equal(contentOf(filtered, 'r1'), 'e'.repeat(500));
  for (const tools of [undefined, []]) assert.equal(planMicroCompact(msgs, { keepRecent: 1, minChars: 0, tools }, ctx).truncated.length, 3);
  // The registry strategy takes the list from the context (it is not a number).
  const viaRegistry = planWith('micro-compact', msgs, { keepRecent: 1, minChars: 0 }, { ...ctx, microCompactTools: ['Edit'] });
  assert.deepEqual(
    viaRegistry.truncated.map((t) => t.id),
    ['r1'],
  );
});

test("Claude Code's micro-compaction is expressible: keep 3, over 40,000 tokens, save at least 20,000, read/shell/search only", () => {
  assert.deepEqual(
    { ...CLAUDE_CODE_MICRO_COMPACT, tools: undefined },
    { keepRecent: 3, minChars: 0, triggerTokens: 40_000, clearAtLeast: 20_000, tools: undefined, cacheAware: false },
  );
  for (const t of ['Read', 'Bash', 'Grep', 'Glob', 'shell', 'exec_command', 'read_file', 'run_command', 'search'])
    assert.ok(CLAUDE_CODE_MICRO_COMPACT.tools!.includes(t), t);
  assert.ok(!CLAUDE_CODE_MICRO_COMPACT.tools!.includes('Edit'));
  const ctx = ctxWith(new CharCounter());
  // 3 old results of 13,000 tokens = 39,000 < 40,000: held; a 4th makes 52,000: cleared.
  assert.equal(
    planMicroCompact(session([13_000, 13_000, 13_000, 10, 10, 10]), CLAUDE_CODE_MICRO_COMPACT, ctx).microCompaction!.action,
    'held',
  );
  const plan = planMicroCompact(session([13_000, 13_000, 13_000, 13_000, 10, 10, 10]), CLAUDE_CODE_MICRO_COMPACT, ctx);
  assert.equal(plan.microCompaction!.action, 'cleared');
  assert.equal(plan.truncated.length, 4);
});

test('cache-aware: a small batch that re-writes a large cached prefix is held; the numbers are in the decision, the notes and the cost', () => {
  // u 1,000 | r0 2,000 | r1 20,000 | r2 2,000 (view 25,000); keep 2: only r0 is old.
  // The last call cached u..r1 = 23,000 tokens. Clearing r0 saves 2,000 - 21 = 1,979 tokens and keeps
  // only u (1,000) cached: 22,000 cached tokens invalidated.
  const msgs = session([2000, 20_000, 2000]);
  const ctx = ctxWith(new CharCounter(), { cache: { cachedPrefixTokens: 23_000, model: SONNET } });
  const plan = planMicroCompact(msgs, { keepRecent: 2, minChars: 0, cacheAware: true }, ctx);
  const d = plan.microCompaction!;
  assert.equal(d.action, 'held');
  assert.equal(plan.noop, true);
  assert.equal(d.savedTokens, 1979);
  assert.equal(d.cache!.cachedPrefixTokens, 23_000);
  assert.equal(d.cache!.invalidatedCachedTokens, 22_000);
  // Next request without clearing: 23,000 read + 2,000 written = (6,900 + 7,500) / 1e6 = $0.0144.
  // With clearing: 1,000 read + 22,021 written = (300 + 82,578.75) / 1e6 = $0.08287875.
  assert.ok(Math.abs(d.cache!.costNowUSD - (0.08287875 - 0.0144)) < 1e-12);
  // Every later request reads 1,979 fewer tokens: 1,979 * 0.30 / 1e6 = $0.0005937; 0.06847875 / 0.0005937 = 115.3 -> 116 turns.
  assert.ok(Math.abs(d.cache!.savingPerTurnUSD - 0.0005937) < 1e-12);
  assert.equal(d.cache!.paybackTurns, 116);
  assert.match(
    plan.notes[0],
    /^held 1 old result \(1979 tokens\): re-writes 22000 of 23000 cached tokens, pays back in 116 turns \(horizon 10 turns\)/,
  );
  // With a horizon of 116 turns it pays: cleared.
  const longer = planMicroCompact(msgs, { keepRecent: 2, minChars: 0, cacheAware: true, horizonTurns: 116 }, ctx);
  assert.equal(longer.microCompaction!.action, 'cleared');
  assert.equal(longer.tokensAfter, 25_000 - 1979);
  // Its cost: the same hand-computed figures.
  assert.equal(longer.cost!.invalidatedCachedTokens, 22_000);
  assert.ok(Math.abs(longer.cost!.nextRequestUSD.before - 0.0144) < 1e-12);
  assert.ok(Math.abs(longer.cost!.nextRequestUSD.after - 0.08287875) < 1e-12);
  assert.equal(longer.cost!.paybackTurns, 116);
  // Without cacheAware (or without a cache state) the same batch is simply cleared.
  assert.equal(planMicroCompact(msgs, { keepRecent: 2, minChars: 0 }, ctx).microCompaction!.action, 'cleared');
  assert.equal(planMicroCompact(msgs, { keepRecent: 2, minChars: 0, cacheAware: true }, ctxWith(new CharCounter())).truncated.length, 1);
});

test('cache-aware: a batch that saves more than it re-writes is cleared at once (payback 0)', () => {
  // u 1,000 | r0 10,000 | r1 10,000 | r2 2,000; keep 1: r0 and r1 old, saving 2 * (10,000 - 21) = 19,958.
  const msgs = session([10_000, 10_000, 2000]);
  const ctx = ctxWith(new CharCounter(), { cache: { cachedPrefixTokens: 21_000, model: SONNET } });
  const plan = planMicroCompact(msgs, { keepRecent: 1, minChars: 0, cacheAware: true }, ctx);
  assert.equal(plan.microCompaction!.action, 'cleared');
  // Before: 21,000 read + 2,000 written = $0.0138. After: 1,000 read + 2,042 written = (300 + 7,657.5) / 1e6.
  assert.ok(Math.abs(plan.cost!.nextRequestUSD.before - 0.0138) < 1e-12);
  assert.ok(Math.abs(plan.cost!.nextRequestUSD.after - 0.0079575) < 1e-12);
  assert.equal(plan.cost!.paybackTurns, 0);
  assert.equal(plan.microCompaction!.cache!.paybackTurns, 0);
  assert.equal(plan.truncated.length, 2);
});

test('results cleared by an earlier batch stay cleared (ctx.microCleared), and the next batch is decided on the rest', () => {
  const msgs = session([3000, 3000, 3000, 3000]);
  const ctx = ctxWith(new CharCounter(), { microCleared: new Set(['t0']) });
  const plan = planMicroCompact(msgs, { keepRecent: 1, minChars: 0, triggerTokens: 6001 }, ctx);
  // r1 + r2 = 6,000 < 6,001: held, but r0 stays cleared.
  assert.equal(plan.microCompaction!.action, 'held');
  assert.equal(plan.microCompaction!.candidates, 2);
  assert.deepEqual(
    plan.truncated.map((t) => t.id),
    ['r0'],
  );
  assert.match(plan.notes.join('\n'), /1 result cleared by earlier batches stays cleared/);
});

test('turn by turn, cache-aware micro-compaction rewrites the cached prefix in batches, not once per turn, and costs less', () => {
  const counter = new CharCounter();
  const run = (cacheAware: boolean) => {
    const micro = new IncrementalMicroCompactor({ keepRecent: 3, minChars: 0, cacheAware }, counter);
    const msgs: Message[] = [user('u', 'p'.repeat(2000))];
    let previous: readonly Message[] = [];
    let rewrites = 0;
    let usd = 0;
    const clearedPerRewrite: number[] = [];
    for (let turn = 0; turn < 40; turn++) {
      msgs.push(call(`c${turn}`, [`t${turn}`, 'Read']), results(`r${turn}`, [`t${turn}`, 'x'.repeat(3000)]));
      // The last call cached its whole request: the view as it was sent.
      const cachedPrefixTokens = counter.countMessages(previous);
      const before = micro.cleared.size;
      micro.sync(msgs, 0, { cache: { cachedPrefixTokens, model: SONNET } });
      const view = micro.messages;
      if (micro.cleared.size > before) {
        rewrites++;
        clearedPerRewrite.push(micro.cleared.size - before);
      }
      // This request: the unchanged part of the previous one is read ($0.30/M), the rest written ($3.75/M).
      let same = 0;
      while (same < previous.length && previous[same] === view[same]) same++;
      const read = counter.countMessages(view.slice(0, same));
      usd += (read * 0.3 + (counter.countMessages(view) - read) * 3.75) / 1e6;
      previous = [...view];
    }
    return { rewrites, clearedPerRewrite, cleared: micro.cleared.size, usd };
  };
  const legacy = run(false);
  const aware = run(true);
  // Without the cache: one rewrite per result that leaves the keep window (37 of 40), every turn from the 4th.
  assert.equal(legacy.rewrites, 37);
  assert.deepEqual(new Set(legacy.clearedPerRewrite), new Set([1]));
  // Cache-aware (horizon 10): a batch of 3 pays back in 7 turns (2 in 11, 1 in 22): 12 batches of 3.
  assert.equal(aware.rewrites, 12, aware.clearedPerRewrite.join(','));
  assert.deepEqual(new Set(aware.clearedPerRewrite), new Set([3]));
  assert.ok(aware.usd < legacy.usd, `cache-aware $${aware.usd.toFixed(4)} vs per-turn $${legacy.usd.toFixed(4)}`);
});
