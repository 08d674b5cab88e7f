// The inspector's "Restore files to before this" row action (headless Chromium): offered on prompt
// rows (not on answers), it posts restoreFiles with the prompt's id (the host then previews the
// restore in the chat; test/e2e/reviewCheckpoints.e2e.test.ts drives that part in a real VS Code).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { isTurnStart } from '../../src/core/conversation/conversation';
import { DEFAULT_PLAN_CONTEXT, type PlanContext } from '../../src/core/pipeline/plan';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';
import { syntheticSession } from '../helpers/synthetic';
import { openInspector, startInspectorHarness, type InspectorHarness } from './inspector-harness';

let h: InspectorHarness;
before(async () => {
  h = await startInspectorHarness();
});
after(async () => {
  await h?.close();
});

test('a prompt row offers "Restore files to before this" and posts restoreFiles with its id; other rows do not', async () => {
  const ctx: PlanContext = {
    ...DEFAULT_PLAN_CONTEXT,
    contextWindow: 1_000_000,
    tokens: new MemoizedMessageCounter(new CharEstimateTokenizer()),
  };
  const messages = syntheticSession({ messages: 60, seed: 5 });
  const { page, host, errors } = await openInspector(h.browser, h.server, ctx, 'light', { width: 1280, height: 860 });
  try {
    await host.showSession({ messages });
    const promptIndex = messages.findIndex((m, i) => i > 10 && isTurnStart(m));
    const prompt = messages[promptIndex]!;
    await page.click(`[role=option][data-id="${prompt.id}"]`);
    const action = page.locator('section.detail button[data-action="restore-files"]');
    await action.waitFor();
    assert.equal(await action.textContent(), 'Restore files to before this');
    assert.match((await action.getAttribute('aria-label')) ?? '', new RegExp(`^Restore files to before message #${promptIndex} · `));
    const since = host.posted.length;
    await action.click();
    const post = await host.waitForPost((m) => m.type === 'restoreFiles', 5_000, since);
    assert.deepEqual(post, { type: 'restoreFiles', id: prompt.id });

    const answer = messages.findIndex((m, i) => i > promptIndex && m.role === 'assistant');
    await page.click(`[role=option][data-id="${messages[answer]!.id}"]`);
    await page.locator('section.detail button[data-action="pin"]').waitFor();
    assert.equal(await page.locator('section.detail button[data-action="restore-files"]').count(), 0, 'not on an answer');
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
  }
});
