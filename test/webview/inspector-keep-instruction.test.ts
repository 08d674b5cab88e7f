// "Keep as instruction" on an archived prompt in the inspector (headless Chromium, issue 23): the ledger
// card of a summary row (a plan the real engine computed, applied as the extension applies it) offers it
// on each prompt of its instruction list, and posts that prompt's text; the host validates the message.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_PLAN_CONTEXT, type PlanContext } from '../../src/core/pipeline/plan';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';
import { parseInspectorToHost } from '../../src/protocol/validation';
import { syntheticSession } from '../helpers/synthetic';
import { openInspector, startInspectorHarness, type InspectorHarness } from './inspector-harness';

let h: InspectorHarness;
before(async () => {
  h = await startInspectorHarness();
});
after(async () => {
  await h?.close();
});

function context(): PlanContext {
  return { ...DEFAULT_PLAN_CONTEXT, contextWindow: 60_000, tokens: new MemoizedMessageCounter(new CharEstimateTokenizer()), ledger: true };
}

test('a summary row\'s ledger offers "Keep as instruction" on each archived prompt and posts its text', async () => {
  const { page, host, errors } = await openInspector(h.browser, h.server, context());
  const messages = syntheticSession({ messages: 60, seed: 5 });
  host.load({ messages });
  const { plan } = host.plan('recursive-summarization', {});
  const { messages: next, record } = host.applied(plan);
  assert.ok(plan.ledger && plan.ledger.instructions.length > 1 && record.syntheticId, 'the plan carries archived prompts');
  await host.showSession({ messages: next, compactions: [{ ...record, ledger: plan.ledger }] });
  const i = next.findIndex((m) => m.id === record.syntheticId);
  await page.click(`[role=option][data-index="${i}"]`);
  await page.waitForSelector('.detail [data-card=ledger] .ledger-instruction');
  const buttons = page.locator('.detail [data-card=ledger] .ledger-instruction .ledger-keep');
  assert.equal(await buttons.count(), plan.ledger.instructions.length);
  const since = host.posted.length;
  await buttons.nth(1).click();
  const post = await host.waitForPost((m) => m.type === 'keepInstruction', 5_000, since);
  assert.deepEqual(post, { type: 'keepInstruction', text: plan.ledger.instructions[1] });
  assert.deepEqual(parseInspectorToHost(post), post, 'the host accepts it');
  assert.equal(parseInspectorToHost({ type: 'keepInstruction', text: '   ' }), null);
  assert.equal(parseInspectorToHost({ type: 'keepInstruction', text: 'x', extra: 1 }), null);
  assert.deepEqual(errors, []);
  await page.close();
});
