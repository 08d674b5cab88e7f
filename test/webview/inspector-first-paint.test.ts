// The inspector's first paint in headless Chromium: the first frame of a session holds the rows in view
// (none beyond them) and leaves the controls column and the minimap's columns for later; once that
// frame is painted they come, with the rows either side of the view. A panel that gets no animation
// frames (a hidden webview) gets them all the same.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { HostToInspector } from '../../src/protocol';
import { ROW_HEIGHT } from '../../webview/inspector/layout';
import { assertClean, EXAMPLE, exampleCtx, inspectorPagesForFile } from './inspector-support';

const { open } = inspectorPagesForFile();

interface Seen {
  rows: number;
  sideChildren: number;
  minimapColumns: number;
}

/** Hands the page the session and reports what the DOM held when the first row appeared, and once the strategies are shown. */
function firstAndComplete(page: Page, message: HostToInspector, noFrames: boolean): Promise<{ first: Seen; complete: Seen; ms: number }> {
  return page.evaluate(
    ([m, frameless]) =>
      new Promise((resolve, reject) => {
        // A hidden webview: animation frames never come.
        if (frameless) window.requestAnimationFrame = () => 0;
        const seen = (): Seen => ({
          rows: document.querySelectorAll('.timeline [role=option]').length,
          sideChildren: document.querySelector('.side-col')?.childElementCount ?? -1,
          minimapColumns: document.querySelector('.minimap .mm-cols')?.childElementCount ?? -1,
        });
        const t0 = performance.now();
        let first: Seen | null = null;
        const mo = new MutationObserver(() => {
          if (!first && document.querySelector('.timeline [role=option]')) first = seen();
          if (first && document.querySelector('[data-strategy] [data-action=preview]')) {
            mo.disconnect();
            clearTimeout(timer);
            resolve({ first, complete: seen(), ms: performance.now() - t0 });
          }
        });
        mo.observe(document.body, { childList: true, subtree: true });
        const timer = setTimeout(() => reject(new Error(`the strategies never came (first: ${JSON.stringify(first)})`)), 5_000);
        window.dispatchEvent(new MessageEvent('message', { data: m }));
      }),
    [message, noFrames] as const,
  );
}

for (const noFrames of [false, true]) {
  test(`first paint: the rows in view first, then the controls and the minimap${noFrames ? ' (a panel without animation frames)' : ''}`, async () => {
    const { page, host, errors } = await open(exampleCtx());
    try {
      const session = host.load({ messages: EXAMPLE });
      assert.ok(session.rows.length > 40, `more rows than a view holds (${session.rows.length})`);
      const { first, complete } = await firstAndComplete(page, { type: 'session', session }, noFrames);
      // The first commit is drawn for the timeline's height before it is measured (400 px): no rows beyond it.
      assert.ok(first.rows > 0 && first.rows <= Math.ceil(400 / ROW_HEIGHT) + 1, `first frame rows: ${first.rows}`);
      assert.equal(first.sideChildren, 0, 'the controls column is empty in the first frame');
      assert.equal(first.minimapColumns, 0, "the minimap's columns are not drawn in the first frame");
      assert.equal(await page.locator('[data-strategy]').count(), session.strategies.length, 'then every strategy is shown');
      assert.ok(complete.minimapColumns > 0, "then the minimap's columns are drawn");
      // Then the rows fill the timeline's measured height, and the overscan below it.
      const height = await page.evaluate(() => document.querySelector('.timeline')!.clientHeight);
      await page.waitForFunction(
        (h) => {
          const rows = [...document.querySelectorAll<HTMLElement>('.timeline [role=option]')].map((r) => Number(r.dataset.index));
          return rows.length > 0 && (Math.max(...rows) + 1) * 24 >= h + 24;
        },
        height,
        { timeout: 5_000 },
      );
      await assertClean(page, host, errors);
    } finally {
      await page.close();
    }
  });
}
