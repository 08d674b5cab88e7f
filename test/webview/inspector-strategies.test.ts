// Every strategy on the example session in the inspector (headless Chromium). The test is the extension
// host: it answers preview posts with the real engine (planWith + planToView) and checks that what the
// page draws — split point, tail-start pointer, archived / kept / truncated rows, summary figures — is
// exactly the engine's plan; then that Apply posts the strategy and parameters and Undo restores it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { CompactionPlan } from '../../src/core/pipeline/plan';
import { getStrategy, resolveParams, STRATEGIES } from '../../src/core/strategies';
import type { InspectorHost, SessionFixture } from './inspector-harness';
import {
  assertClean,
  assertRowsAre,
  collectRows,
  EXAMPLE,
  exampleCtx,
  fmt,
  inspectorPagesForFile,
  previewAndWait,
  scrollToRow,
  stat,
  waitRowCount,
} from './inspector-support';

/** Parameters that make every strategy do something on the example session (the rest use defaults). */
const PARAMS: Record<string, Record<string, number>> = {
  'turn-window': { maxTurns: 3 },
  'token-budget': { maxTokens: 8_000 },
  'server-clear-tool-uses': { triggerTokens: 1_000, keepToolUses: 1 },
};

const { open } = inspectorPagesForFile();

type StrategyDef = (typeof STRATEGIES)[number];

/** The summary card shows the plan's figures; the split marker sits exactly between rows splitIndex-1 and splitIndex. */
async function assertPreviewFigures(page: Page, plan: CompactionPlan): Promise<void> {
  const n = EXAMPLE.length;
  assert.equal(await stat(page, 'archived'), fmt(plan.archived.length));
  assert.equal(await stat(page, 'kept'), fmt(plan.kept.length));
  assert.equal(await stat(page, 'truncated'), fmt(plan.truncated.length));
  assert.equal(await stat(page, 'tokens-before'), fmt(plan.tokensBefore));
  assert.equal(await stat(page, 'tokens-after'), fmt(plan.tokensAfter));
  assert.equal(await stat(page, 'split'), `#${plan.splitIndex}`);
  if (plan.needsSummary) assert.match(await stat(page, 'summarizer'), new RegExp(`${fmt(plan.summarizerInput!.tokens)} tok in`));
  else assert.equal(await page.$('.plan-summary [data-stat="summarizer"]'), null);

  // The split marker sits exactly between rows splitIndex-1 and splitIndex.
  const split = plan.splitIndex;
  assert.equal(await page.locator('[data-marker="preview-split"]').count(), 1);
  assert.equal(await page.getAttribute('[data-marker="preview-split"]', 'data-split-index'), String(split));
  await scrollToRow(page, Math.min(split, n - 1));
  const geo = await page.evaluate((s) => {
    const box = (sel: string) => document.querySelector(sel)?.getBoundingClientRect() ?? null;
    const d = box('[data-marker="preview-split"]')!;
    const above = box(`[data-index="${s - 1}"]`);
    const below = box(`[data-index="${s}"]`);
    return { top: d.top, bottom: d.bottom, aboveBottom: above?.bottom ?? null, belowTop: below?.top ?? null };
  }, split);
  if (split > 0) assert.ok(Math.abs(geo.aboveBottom! - geo.top) < 0.5, `divider right below row ${split - 1}: ${JSON.stringify(geo)}`);
  if (split < n) assert.ok(Math.abs(geo.belowTop! - geo.bottom) < 0.5, `row ${split} right below the divider: ${JSON.stringify(geo)}`);
}

/** Rows around the split, then every row: archived / kept / truncated exactly as planned; the tail-start pointer on the engine's row. */
async function assertPreviewRows(page: Page, plan: CompactionPlan): Promise<void> {
  const n = EXAMPLE.length;
  const split = plan.splitIndex;
  const archived = new Set(plan.archived.map((e) => e.id));
  const kept = new Set(plan.kept.map((e) => e.id));
  const truncated = new Set(plan.truncated.map((e) => e.id));
  const near = await page.$$eval('[role=option]', (els) =>
    els.map((el) => ({ id: (el as HTMLElement).dataset.id!, cls: [...el.classList] })),
  );
  assert.ok(near.length > 5);
  for (const r of near) assert.equal(r.cls.includes('archived'), archived.has(r.id), `row ${r.id} near the split`);
  const rows = await collectRows(page);
  assert.equal(rows.length, n);
  for (const r of rows) {
    assert.equal(r.cls.includes('archived'), archived.has(r.id), `row ${r.index} archived`);
    assert.equal(r.cls.includes('kept'), kept.has(r.id), `row ${r.index} kept`);
    assert.equal(r.cls.includes('will-truncate'), truncated.has(r.id), `row ${r.index} truncated in preview`);
    assert.equal(r.markers.includes('preview-tail'), r.id === plan.tailStartId, `row ${r.index} tail-start pointer`);
  }
  assert.equal(rows.filter((r) => r.markers.includes('preview-tail')).length, 1, 'one tail-start pointer');

  // The tail-start pointer is on the engine's row; the minimap shows both markers.
  const tailIndex = EXAMPLE.findIndex((m) => m.id === plan.tailStartId);
  await scrollToRow(page, tailIndex);
  assert.equal(await page.getAttribute('[data-marker="preview-tail"]', 'data-marker'), 'preview-tail');
  assert.equal(
    await page.$eval('[data-marker="preview-tail"]', (el) => (el.closest('[role=option]') as HTMLElement).dataset.id),
    plan.tailStartId,
  );
  const mmLeft = await page.$eval('[data-marker="mm-preview-split"]', (el) => parseFloat((el as HTMLElement).style.left));
  assert.ok(Math.abs(mmLeft - (split / n) * 100) < 0.01, `minimap split at ${mmLeft}%`);
  assert.equal(await page.locator('[data-marker="mm-preview-tail"]').count(), 1);
}

/** Apply posts exactly the strategy and parameters (LLM strategies confirm inline, with a focus); returns the focus. */
async function applyPreview(
  page: Page,
  host: InspectorHost,
  def: StrategyDef,
  overrides: Record<string, number>,
): Promise<string | undefined> {
  const since = host.posted.length;
  const focus = def.usesSummarizer ? `keep the ${def.name} decisions` : undefined;
  await page.click(`[data-strategy="${def.name}"] [data-action=apply]`);
  if (def.usesSummarizer) {
    await page.waitForSelector(`[data-strategy="${def.name}"] .confirm`);
    assert.equal(
      host.posted.slice(since).some((m) => m.type === 'apply'),
      false,
      'nothing applied before confirming',
    );
    await page.fill(`[data-strategy="${def.name}"] .confirm input[data-field=focus]`, focus!);
    await page.click(`[data-strategy="${def.name}"] [data-action=confirm-apply]`);
  }
  const apply = await host.waitForPost((m) => m.type === 'apply', 5_000, since);
  assert.deepEqual(apply, {
    type: 'apply',
    strategy: def.name,
    params: resolveParams(getStrategy(def.name), overrides),
    ...(focus ? { focus } : {}),
  });
  return focus;
}

/** The host applies the plan: the page shows exactly the new history, the preview is gone, the compaction is listed and can be undone. */
async function assertAppliedHistoryShown(
  page: Page,
  host: InspectorHost,
  def: StrategyDef,
  plan: CompactionPlan,
  focus: string | undefined,
): Promise<void> {
  const { messages: next, record } = host.applied(plan, focus);
  await host.showSession({ messages: next, compactions: [record], tailStartId: plan.tailStartId, canUndo: true });
  const shown = await assertRowsAre(page, next);
  assert.equal(await page.locator('[data-marker="preview-split"]').count(), 0, 'preview cleared by the rewrite');
  assert.equal(await page.locator('.plan-summary').count(), 0);
  const tailRows = shown.filter((r) => r.markers.includes('current-tail'));
  assert.deepEqual(
    tailRows.map((r) => r.id),
    next.some((m) => m.id === plan.tailStartId) ? [plan.tailStartId] : [],
    'current tail-start pointer',
  );
  const lastSynthetic = next.map((m) => !!m.synthetic).lastIndexOf(true);
  if (lastSynthetic >= 0)
    assert.equal(
      await page.getAttribute('[data-marker="current-split"]', 'data-split-index'),
      String(lastSynthetic),
      'current split at the summary',
    );
  // A new summary opens in full in the detail pane (as text).
  const summaryAt = next.findIndex((m) => m.synthetic === 'summary');
  if (plan.needsSummary) {
    assert.ok(summaryAt >= 0);
    await scrollToRow(page, summaryAt);
    await page.click(`[data-index="${summaryAt}"]`);
    await page.waitForSelector(`.detail[data-detail-id="${next[summaryAt].id}"] [data-detail="original"]`);
    const text = (await page.textContent('[data-detail="original"]'))!;
    assert.equal(text, next[summaryAt].content);
    assert.ok(text.includes('<b>not bold</b>') && text.includes(focus!));
  }
  assert.equal(await page.locator('.history-item').count(), 1);
  assert.match(
    (await page.textContent('.history-item'))!,
    new RegExp(`${def.name}[\\s\\S]*${fmt(record.tokensBefore)} → ${fmt(record.tokensAfter)}`),
  );
  assert.equal(await page.isEnabled('[data-action=undo]'), true);
}

/** Undo posts undo; the host restores the original history and the page shows exactly it. */
async function undoToOriginal(page: Page, host: InspectorHost, original: SessionFixture): Promise<void> {
  const sinceUndo = host.posted.length;
  await page.click('[data-action=undo]');
  assert.deepEqual(await host.waitForPost((m) => m.type === 'undo', 5_000, sinceUndo), { type: 'undo' });
  await host.showSession(original);
  const restored = await assertRowsAre(page, EXAMPLE);
  assert.ok(
    restored.every((r) => r.markers.length === 0 || r.markers.every((m) => m === 'current-tail')),
    'no preview markers after undo',
  );
  assert.equal(await page.locator('[data-marker="current-split"]').count(), 0);
  assert.equal(await page.isEnabled('[data-action=undo]'), false);
  assert.equal(await page.locator('.history-item').count(), 0);
}

describe('every strategy, previewed, applied and undone on the example session', () => {
  let page: Page;
  let host: InspectorHost;
  let errors: string[];
  const original: SessionFixture = { messages: EXAMPLE };

  before(async () => {
    // A tall page: the whole example fits in two screens of the virtual list.
    ({ page, host, errors } = await open(exampleCtx(), 'dark', { width: 1280, height: 1500 }));
    await host.showSession(original);
    await waitRowCount(page, EXAMPLE.length);
  });

  after(async () => {
    if (!page) return; // the before hook failed and reported why
    try {
      await assertClean(page, host, errors);
    } finally {
      await page.close();
    }
  });

  // server-compact's emulation fires only over its documented 50,000-token floor, which the example does not reach
  // (inspector-server-context.test.ts and the strategy's unit tests cover it).
  for (const def of STRATEGIES.filter((d) => d.name !== 'server-compact')) {
    test(`${def.name}: the preview draws the engine's split point, tail-start pointer and archived rows; apply and undo round-trip`, async () => {
      const overrides = PARAMS[def.name] ?? {};
      for (const [name, value] of Object.entries(overrides))
        await page.fill(`[data-strategy="${def.name}"] input[data-param="${name}"]`, String(value));
      const { plan, params } = await previewAndWait(page, host, def.name);
      assert.deepEqual(params, resolveParams(getStrategy(def.name), overrides), 'the preview posts the parameters as edited');
      assert.equal(plan.noop, false, `${def.name} does something on the example (${plan.notes.join('; ')})`);

      await assertPreviewFigures(page, plan);
      await assertPreviewRows(page, plan);
      const focus = await applyPreview(page, host, def, overrides);
      await assertAppliedHistoryShown(page, host, def, plan, focus);
      await undoToOriginal(page, host, original);
      // Back to defaults for the next strategy.
      if (Object.keys(overrides).length > 0) await page.click(`[data-strategy="${def.name}"] [data-action=reset]`);
    });
  }
});
