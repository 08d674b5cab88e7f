// "Split here" in the inspector (headless Chromium): Shift+S on the focused row previews the split-at
// strategy at that message (the host plans with the real engine at the posted splitAtId), the page
// draws that plan (split marker, archived rows), the summary toggle is the strategy's summarize
// parameter, and Apply posts the same id.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { isTurnStart, type Message } from '../../src/core/conversation/conversation';
import { DEFAULT_PLAN_CONTEXT, type PlanContext } from '../../src/core/pipeline/plan';
import { planWith } from '../../src/core/strategies';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';
import { planToView } from '../../src/inspector/planViews';
import type { InspectorToHost } from '../../src/protocol';
import { syntheticSession } from '../helpers/synthetic';
import { InspectorHost, openInspector, startInspectorHarness, type InspectorHarness } from './inspector-harness';

let h: InspectorHarness;
before(async () => {
  h = await startInspectorHarness();
});
after(async () => {
  await h?.close();
});

/** The extension's routing: a preview's splitAtId reaches the plan context (as InspectorService.preview does). */
class SplitHost extends InspectorHost {
  override async answerPreview(m: Extract<InspectorToHost, { type: 'preview' }>): Promise<void> {
    const ctx = m.splitAtId === undefined ? this.ctx : { ...this.ctx, splitAtId: m.splitAtId };
    try {
      const plan = planWith(m.strategy, this.messages, m.params, ctx);
      this.plans.set(m.requestId, plan);
      await this.send({ type: 'plan', plan: planToView(plan, m.requestId, 0) });
    } catch (e) {
      await this.send({ type: 'planError', requestId: m.requestId, message: (e as Error).message });
    }
  }
}

type Preview = Extract<InspectorToHost, { type: 'preview' }>;
const isPreview = (m: InspectorToHost): m is Preview => m.type === 'preview';

test('Shift+S on a focused row previews "compact everything before this" at that message; Apply posts the same id', async () => {
  const ctx: PlanContext = {
    ...DEFAULT_PLAN_CONTEXT,
    contextWindow: 1_000_000,
    tokens: new MemoizedMessageCounter(new CharEstimateTokenizer()),
  };
  const messages: Message[] = syntheticSession({ messages: 120, seed: 11 });
  const { page, host } = await openInspector(h.browser, h.server, ctx, 'dark', { width: 1280, height: 860 }, (p, c) => new SplitHost(p, c));
  try {
    await host.showSession({ messages });
    // A genuine prompt in the middle: the split lands exactly there.
    const target = messages.findIndex((m, i) => i > 40 && isTurnStart(m));
    assert.ok(target > 0);
    await page.focus('.timeline');
    await page.keyboard.press('Home');
    for (let i = 0; i < target; i++) await page.keyboard.press('ArrowDown');
    const since = host.posted.length;
    await page.keyboard.press('Shift+S');
    const post = await host.waitForPost(isPreview, 5_000, since);
    assert.deepEqual(post, {
      type: 'preview',
      requestId: post.requestId,
      strategy: 'split-at',
      params: { summarize: 1 },
      splitAtId: messages[target].id,
    });
    await page.waitForSelector(`.plan-summary[data-request-id="${post.requestId}"] [data-stat=tokens-after]`);
    const plan = host.plans.get(post.requestId)!;
    assert.equal(plan.tailStartId, messages[target].id, `${host.constructor.name} ${plan.strategy} ${plan.notes.join('; ')}`);
    assert.equal(plan.archived.length, target, 'everything before the message is archived');
    assert.equal(await page.getAttribute('[data-marker="preview-split"]', 'data-split-index'), String(plan.splitIndex));

    // The toggle is the strategy's summarize parameter: without a summary, the same split, no LLM.
    const since2 = host.posted.length;
    await page.fill('[data-strategy="split-at"] input[data-param="summarize"]', '0');
    const again = await host.waitForPost(isPreview, 5_000, since2);
    assert.equal(again.splitAtId, messages[target].id, 'a re-preview keeps the chosen message');
    assert.deepEqual(again.params, { summarize: 0 });
    await page.waitForSelector(`.plan-summary[data-request-id="${again.requestId}"] [data-stat=tokens-after]`);
    assert.equal(host.plans.get(again.requestId)!.needsSummary, false);

    const since3 = host.posted.length;
    await page.click('[data-strategy="split-at"] [data-action=apply]');
    const confirm = await page.$('[data-strategy="split-at"] [data-action=confirm-apply]');
    if (confirm) await confirm.click();
    const apply = await host.waitForPost((m) => m.type === 'apply', 5_000, since3);
    assert.deepEqual(apply, { type: 'apply', strategy: 'split-at', params: { summarize: 0 }, splitAtId: messages[target].id });

    // The row actions in the message detail: the toggle shows the choice, "Compact before this" previews there.
    const other = messages.findIndex((m, i) => i > target && isTurnStart(m));
    await page.focus('.timeline');
    for (let i = target; i < other; i++) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    const toggle = page.locator('[data-action=split-summary]');
    await toggle.waitFor();
    assert.equal(await toggle.getAttribute('aria-pressed'), 'false', 'summarize=0 as set above');
    await toggle.click();
    await page.waitForSelector('[data-action=split-summary][aria-pressed=true]');
    const since4 = host.posted.length;
    await page.click('[data-action=split-here]');
    const fromButton = await host.waitForPost((m): m is Preview => isPreview(m) && m.splitAtId === messages[other].id, 5_000, since4);
    assert.deepEqual(fromButton.params, { summarize: 1 });
  } finally {
    await page.close();
  }
});
