// The preview's cost in the inspector (headless Chromium): the plan summary card shows the cached
// prefix a plan invalidates, the next request's cost before -> after and the turns to pay back, and a
// micro-compaction preview explains its batch decision (held here: clearing one old result would
// re-write 22,000 cached tokens and pay back only in 116 turns). Figures are hand-computed from Claude
// Sonnet's prices ($0.30 cache read, $3.75 5-minute write per million tokens), one token per character.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Message } from '../../src/core/conversation/conversation';
import { DEFAULT_PLAN_CONTEXT, type PlanContext } from '../../src/core/pipeline/plan';
import type { InspectorToHost } from '../../src/protocol';
import { isMicroDecision, isPlanCost, isPlanView } from '../../webview/inspector/hostMessages';
import { planToView } from '../../src/inspector/planViews';
import { call, CharCounter, results, user } from '../helpers/build';
import { openInspector, startInspectorHarness, type InspectorHarness } from './inspector-harness';

let h: InspectorHarness;
before(async () => {
  h = await startInspectorHarness();
});
after(async () => {
  await h?.close();
});

type Preview = Extract<InspectorToHost, { type: 'preview' }>;

test('the plan summary card shows the cost with the prompt cache, and micro-compaction explains why it holds its batch', async () => {
  // u 1,000 | r0 2,000 | r1 20,000 | r2 2,000 tokens; the last call cached u..r1 (23,000).
  const messages: Message[] = [user('u', 'p'.repeat(1000))];
  [2000, 20_000, 2000].forEach((n, i) => messages.push(call(`c${i}`, [`t${i}`, 'Read']), results(`r${i}`, [`t${i}`, 'x'.repeat(n)])));
  const ctx: PlanContext = {
    ...DEFAULT_PLAN_CONTEXT,
    contextWindow: 200_000,
    tokens: new CharCounter(),
    cache: { cachedPrefixTokens: 23_000, model: 'claude-sonnet-4-5' },
  };
  const { page, host } = await openInspector(h.browser, h.server, ctx);
  try {
    await host.showSession({ messages, strategyParams: { 'micro-compact': { keepRecent: 2, minChars: 0 } } });

    // Micro-compaction: r0 is the only old result: held.
    let since = host.posted.length;
    await page.click('[data-strategy="micro-compact"] [data-action=preview]');
    let post = await host.waitForPost((m): m is Preview => m.type === 'preview' && m.strategy === 'micro-compact', 5_000, since);
    const card = `.plan-summary[data-request-id="${post.requestId}"] [data-section=micro-decision]`;
    await page.waitForSelector(card);
    assert.equal(await page.getAttribute(card, 'data-action-taken'), 'held');
    const text = async (sel: string) => ((await page.textContent(sel)) ?? '').replace(/\s+/g, ' ').trim();
    assert.equal(await text(`${card} [data-stat=micro-action]`), 'Held');
    assert.equal(await text(`${card} [data-stat=micro-batch]`), '· 1 old result, 2,000 tok (saves 1,979 tok)');
    assert.equal(await text(`${card} [data-stat=micro-invalidated]`), '22,000 tok of 23,000 tok');
    // (1,000 x 0.30 + 22,021 x 3.75) - (23,000 x 0.30 + 2,000 x 3.75) = 68,478.75 per million.
    assert.equal(await text(`${card} [data-stat=micro-cost-now]`), '+$0.0685');
    // 1,979 x 0.30 = 593.7 per million per turn.
    assert.equal(await text(`${card} [data-stat=micro-saving]`), '$0.0006');
    assert.equal(await text(`${card} [data-stat=micro-payback]`), 'in 116 turns');
    assert.match(
      await text(`${card} [data-stat=micro-reason]`),
      /^held 1 old result \(1979 tokens\): re-writes 22000 of 23000 cached tokens/,
    );
    assert.equal(await text(`${card} [data-stat=micro-settings]`), 'cache-aware, horizon 10 turns');

    // A longer horizon: cleared, and the cost card shows the same figures for the next request.
    since = host.posted.length;
    await page.fill('[data-strategy="micro-compact"] input[data-param="horizonTurns"]', '120');
    post = await host.waitForPost((m): m is Preview => m.type === 'preview' && m.strategy === 'micro-compact', 5_000, since);
    const summary = `.plan-summary[data-request-id="${post.requestId}"]`;
    await page.waitForSelector(`${summary} [data-section=plan-cost]`);
    assert.equal(await page.getAttribute(`${summary} [data-section=micro-decision]`, 'data-action-taken'), 'cleared');
    assert.equal(await text(`${summary} [data-stat=cost-invalidated]`), '22,000 tok');
    // 23,000 x 0.30 + 2,000 x 3.75 = 14,400 -> $0.0144; 1,000 x 0.30 + 22,021 x 3.75 = 82,878.75 -> $0.0829.
    assert.equal(await text(`${summary} [data-stat=cost-before]`), '$0.0144');
    assert.equal(await text(`${summary} [data-stat=cost-after]`), '$0.0829');
    assert.equal(await page.getAttribute(`${summary} [data-stat=cost-next]`, 'class'), 'delta-up');
    assert.equal(await text(`${summary} [data-stat=cost-payback]`), 'in 116 turns');
    assert.equal(await page.$(`${summary} [data-stat=cost-assumed]`), null, 'the cache state is known: nothing assumed');
    assert.deepEqual(host.malformed, []);
  } finally {
    await page.close();
  }
});

test('the inspector validates cost and micro-compaction figures: wrong shapes are rejected', () => {
  const cost = {
    invalidatedCachedTokens: 5,
    nextRequestUSD: { before: 0.1, after: 0.2 },
    paybackTurns: 3,
    cachedPrefixTokens: 10,
    cacheAssumed: false,
    model: null,
  };
  assert.ok(isPlanCost(cost));
  assert.ok(isPlanCost({ ...cost, paybackTurns: null }));
  assert.ok(!isPlanCost({ ...cost, paybackTurns: -1 }));
  assert.ok(!isPlanCost({ ...cost, paybackTurns: 1.5 }));
  assert.ok(!isPlanCost({ ...cost, nextRequestUSD: { before: 0.1 } }));
  assert.ok(!isPlanCost({ ...cost, cacheAssumed: 'no' }));
  const decision = {
    action: 'held',
    reason: 'r',
    candidates: 1,
    clearableTokens: 2,
    savedTokens: 1,
    triggerTokens: 0,
    clearAtLeast: 0,
    cacheAware: true,
    horizonTurns: 10,
    cache: { cachedPrefixTokens: 10, invalidatedCachedTokens: 5, costNowUSD: -0.1, savingPerTurnUSD: 0.01, paybackTurns: 0 },
  };
  assert.ok(isMicroDecision(decision));
  assert.ok(isMicroDecision({ ...decision, cache: null }));
  assert.ok(!isMicroDecision({ ...decision, action: 'maybe' }));
  assert.ok(!isMicroDecision({ ...decision, cache: { ...decision.cache, costNowUSD: 'x' } }));
  assert.ok(!isMicroDecision({ ...decision, cache: undefined }));
});

test('planToView carries the engine plan’s cost and decision, and the view passes the inspector’s own check', async () => {
  const { planWith } = await import('../../src/core/strategies');
  const ctx: PlanContext = {
    ...DEFAULT_PLAN_CONTEXT,
    tokens: new CharCounter(),
    cache: { cachedPrefixTokens: 1_500, model: 'claude-sonnet-4-5' },
  };
  const messages = [user('u', 'p'.repeat(1000)), call('c0', ['t0', 'Read']), results('r0', ['t0', 'x'.repeat(500)])];
  messages.push(call('c1', ['t1', 'Read']), results('r1', ['t1', 'y'.repeat(500)]));
  const view = planToView(planWith('micro-compact', messages, { keepRecent: 1, minChars: 0 }, ctx), 1, 0);
  assert.ok(isPlanView(view));
  assert.ok(view.cost && view.microCompaction?.cache);
  assert.ok(!isPlanView({ ...view, cost: { ...view.cost, model: 3 } }));
});
