// Screenshots of the inspector (headless Chromium) in the light and dark themes, and of a preview: a
// compacted session with an earlier summary, a tail pointer and truncated results, whose colours, usage
// bar and threshold line follow the theme and the session.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { SessionFixture, Theme } from './inspector-harness';
import {
  ARTIFACTS,
  assertClean,
  EXAMPLE,
  exampleCtx,
  frames,
  inspectorPagesForFile,
  previewAndWait,
  waitRowCount,
} from './inspector-support';

const { open } = inspectorPagesForFile();

/** A compacted session worth looking at: an earlier summary, a tail pointer, truncated results, a selected detail. */
async function showcase(theme: Theme) {
  const ctx = exampleCtx();
  const { page, host, errors } = await open(ctx, theme);
  host.load({ messages: EXAMPLE });
  const base = host.plan('recursive-summarization', { maxEventsToKeep: 44, overlapSize: 2 }).plan;
  const { messages, record } = host.applied(base);
  const fixture: SessionFixture = {
    messages,
    compactions: [record],
    tailStartId: base.tailStartId,
    canUndo: true,
    title: 'Fix the leap-year bug',
  };
  await host.showSession(fixture);
  await waitRowCount(page, messages.length);
  const truncated = host.session.rows.find((r) => r.truncated && r.index > 3)!;
  await page.click(`[data-index="${truncated.index}"]`);
  await page.waitForSelector(`.detail[data-detail-id="${truncated.id}"] [data-detail="effective"]`);
  await page.evaluate(() => {
    document.querySelector('.timeline')!.scrollTop = 0;
  });
  await frames(page);
  return { page, host, errors };
}

test('screenshots: light and dark themes, and a preview', async () => {
  for (const theme of ['light', 'dark'] as const) {
    const { page, host, errors } = await showcase(theme);
    const colors = await page.evaluate(() => {
      const row = document.querySelector('[role=option][data-kind="tool-result"] .bar')!;
      return { body: getComputedStyle(document.body).backgroundColor, bar: getComputedStyle(row).backgroundColor };
    });
    assert.equal(colors.body, theme === 'light' ? 'rgb(255, 255, 255)' : 'rgb(31, 31, 31)', 'page follows the theme variables');
    assert.equal(colors.bar, theme === 'light' ? 'rgb(191, 136, 3)' : 'rgb(204, 167, 0)', 'tool results use --vscode-charts-yellow');
    assert.equal(await page.locator('[data-marker="current-split"]').count(), 1);
    const usage = host.session.usage;
    const threshold = await page.$eval('[data-marker="threshold"]', (el) => parseFloat((el as HTMLElement).style.left));
    assert.ok(Math.abs(threshold - (usage.threshold! / usage.window) * 100) < 0.01, `threshold line at ${threshold}%`);
    const segs = await page.$$eval('.usage-seg', (els) =>
      els.map((el) => [(el as HTMLElement).dataset.segment, parseFloat((el as HTMLElement).style.width)] as const),
    );
    const expected = {
      system: usage.system,
      tools: usage.tools,
      messages: usage.messages - usage.toolResults - usage.summaries,
      'tool-results': usage.toolResults,
      summaries: usage.summaries,
      free: usage.free,
    };
    for (const [seg, width] of segs)
      assert.ok(Math.abs(width - (expected[seg as keyof typeof expected] / usage.window) * 100) < 0.01, `usage segment ${seg}`);
    assert.equal(segs.length, 6);
    await page.screenshot({ path: join(ARTIFACTS, `inspector-${theme}.png`) });
    const since = host.posted.length;
    await page.click('.history-item button');
    assert.deepEqual(await host.waitForPost((m) => m.type === 'openTranscript', 5_000, since), {
      type: 'openTranscript',
      path: host.fixture.compactions![0].transcriptPath,
    });
    if (theme === 'dark') {
      await page.fill('[data-strategy="recent-turns"] input[data-param="turns"]', '2');
      const { plan } = await previewAndWait(page, host, 'recent-turns');
      await page.click('[data-action=jump-split]');
      await frames(page);
      assert.equal(await page.getAttribute('[data-marker="preview-split"]', 'data-split-index'), String(plan.splitIndex));
      await page.screenshot({ path: join(ARTIFACTS, 'inspector-preview.png') });
    }
    await assertClean(page, host, errors);
    await page.close();
  }
});
