// The auto-compaction decision in the inspector (issue 25, headless Chromium): the host's real inspector
// model turns the pipeline's decision into the usage view; the webview shows its sentence beside the usage
// bar as text (markup in it stays text), the TTL in use in its tooltip.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_PLAN_CONTEXT, type PlanContext } from '../../src/core/pipeline/plan';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';
import { paysDecision } from '../../src/core/pipeline/paysTrigger';
import { priceFor } from '../../src/core/cost/prices';
import type { AutoCompactDecision } from '../../src/core/pipeline/autoCompactDecision';
import { autoCompactView } from '../../src/inspector/autoCompactView';
import { openInspector, startInspectorHarness, type InspectorHarness } from './inspector-harness';
import { call, results, user } from '../helpers/build';

const pays = paysDecision({
  tokens: 150_000,
  tokensAfter: 30_000,
  overheadTokens: 20_000,
  summaryOutputTokens: 3_000,
  instructionTokens: 1_000,
  cacheWarm: true,
  caching: '5m',
  price: priceFor('claude-opus-4-6'),
  callsSoFar: 9,
  callsSinceCompaction: 9,
  idleGaps: 0,
  growthPerCall: 0,
  forcedAtTokens: 171_808,
});

function decision(over: Partial<AutoCompactDecision> = {}): AutoCompactDecision {
  return {
    policy: 'pays',
    fire: false,
    forced: false,
    held: false,
    reason: pays.reason,
    tokens: 150_000,
    forcedAtTokens: 171_808,
    calls: 9,
    callsSinceCompaction: null,
    minCallsBetween: 10,
    pays,
    ttl: '1h',
    ttlReason: '1 hour: the calls so far would have cost $1.20 with 5-minute writes, $0.80 with 1-hour writes',
    ...over,
  };
}

test('autoCompactView: the decision with its numbers; long sentences cut', () => {
  const v = autoCompactView(decision());
  assert.equal(v.reason, 'not yet: compacting now costs $0.21 and pays back in 4 calls; expected ≥ 3 more calls (a third of the 9 so far)');
  assert.equal(v.paybackCalls, 4);
  assert.equal(v.horizonCalls, 3);
  assert.ok(Math.abs(v.costUSD! - 0.2125) < 1e-9);
  assert.equal(v.ttl, '1h');
  const long = autoCompactView(decision({ reason: 'x'.repeat(1_000), pays: null, policy: 'threshold' }));
  assert.equal(long.reason.length, 300);
  assert.equal(long.paybackCalls, null);
});

let inspector: InspectorHarness;
before(async () => {
  inspector = await startInspectorHarness();
});
after(async () => {
  await inspector?.close();
});

test('the inspector shows the policy’s current decision beside the usage bar, as text', async () => {
  const ctx: PlanContext = {
    ...DEFAULT_PLAN_CONTEXT,
    contextWindow: 200_000,
    tokens: new MemoizedMessageCounter(new CharEstimateTokenizer()),
  };
  const { page, host } = await openInspector(inspector.browser, inspector.server, ctx, 'light', { width: 1200, height: 800 });
  try {
    const messages = [user('u1', 'Read it.'), call('c1', ['t1', 'read_file']), results('r1', ['t1', 'x'.repeat(2_000)])];
    await host.showSession({ messages, autoCompactDecision: decision() });
    const note = page.locator('[data-field="auto-compact"]');
    await note.waitFor();
    assert.equal(await note.getAttribute('data-policy'), 'pays');
    assert.equal(await note.getAttribute('data-state'), 'waiting');
    assert.match(
      (await note.textContent()) ?? '',
      /auto-compact \(pays\) not yet: compacting now costs \$0\.21 and pays back in 4 calls; expected ≥ 3 more calls/,
    );
    assert.match((await note.getAttribute('title')) ?? '', /^cache TTL 1 hour\n1 hour: the calls so far/);
    // Markup in the sentence stays text.
    await host.showSession({
      messages,
      autoCompactDecision: decision({ reason: '<img src=x onerror="window.__pwned=1">held', held: true }),
    });
    await page.locator('[data-field="auto-compact"][data-state="held back"]').waitFor();
    assert.match((await note.textContent()) ?? '', /<img src=x/);
    assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
    assert.equal(await page.locator('.usage img').count(), 0);
    // A malformed decision is refused with its session message: the view keeps what it showed.
    const bad = host.load({ messages, autoCompactDecision: decision() });
    await host.send({
      type: 'session',
      session: { ...bad, usage: { ...bad.usage, autoCompact: { ...bad.usage.autoCompact!, policy: 'sometimes' as never } } },
    });
    await host.send({
      type: 'session',
      session: { ...bad, usage: { ...bad.usage, autoCompact: { ...bad.usage.autoCompact!, reason: 'x'.repeat(301) } } },
    });
    await page.waitForTimeout(200);
    assert.equal(await note.getAttribute('data-state'), 'held back');
    // No decision (a recording, or before the first call): nothing shown.
    await host.showSession({ messages });
    await page.locator('[data-field="auto-compact"]').waitFor({ state: 'detached' });
  } finally {
    await page.close();
  }
});
