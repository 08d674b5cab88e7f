// The inspector with 10,000 messages in headless Chromium: the timeline is virtualized, and the first
// rows, a plan's highlights and a scroll to any row come fast (the figures are printed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { DEFAULT_PLAN_CONTEXT, type PlanContext } from '../../src/core/pipeline/plan';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';
import { planToView } from '../../src/inspector/planViews';
import type { HostToInspector, InspectorToHost } from '../../src/protocol';
import { syntheticSession } from '../helpers/synthetic';
import type { InspectorHost } from './inspector-harness';
import { assertClean, fmt, inspectorPagesForFile, scrollToRow, stat } from './inspector-support';

const { open } = inspectorPagesForFile();

/** Hands the session message to the page: time to the first rows in the DOM and to the next frame (in page), and wall times. */
async function showSessionTimed(page: Page, message: HostToInspector) {
  // Staged as JSON text (Playwright serializes a big object argument slowly; VS Code's postMessage does not).
  const wall0 = performance.now();
  await page.evaluate((json) => {
    (window as unknown as { __staged: unknown }).__staged = JSON.parse(json);
  }, JSON.stringify(message));
  const transferMs = performance.now() - wall0;
  const first = await page.evaluate(
    () =>
      new Promise<{ rows: number; frame: number }>((resolve) => {
        const t0 = performance.now();
        const ready = () => document.querySelector('.timeline[data-count="10000"] [role=option]');
        const mo = new MutationObserver(() => {
          if (!ready()) return;
          mo.disconnect();
          const rows = performance.now() - t0;
          requestAnimationFrame(() => setTimeout(() => resolve({ rows, frame: performance.now() - t0 }), 0));
        });
        mo.observe(document.body, { childList: true, subtree: true, attributes: true });
        window.dispatchEvent(new MessageEvent('message', { data: (window as unknown as { __staged: unknown }).__staged }));
      }),
  );
  const wallFirst = performance.now() - wall0;
  return { first, transferMs, wallFirst };
}

/** Previews with the host answering by hand, so the page-side time from 'plan' to highlighted rows is measured. */
async function previewTimed(page: Page, host: InspectorHost) {
  const since = host.posted.length;
  await page.click('[data-strategy="recent-token-fraction"] [data-action=preview]');
  const post = await host.waitForPost((m): m is Extract<InspectorToHost, { type: 'preview' }> => m.type === 'preview', 5_000, since);
  const { plan, ms: planMs } = host.plan(post.strategy, post.params);
  const view = planToView(plan, post.requestId, planMs);
  const wallPlan0 = performance.now();
  await page.evaluate(
    (json) => {
      (window as unknown as { __staged: unknown }).__staged = JSON.parse(json);
    },
    JSON.stringify({ type: 'plan', plan: view } satisfies HostToInspector),
  );
  const planShown = await page.evaluate(
    (rid) =>
      new Promise<{ dom: number; frame: number }>((resolve) => {
        const t0 = performance.now();
        const ready = () =>
          document.querySelector(`.plan-summary[data-request-id="${rid}"]`) && document.querySelector('[data-marker="preview-split"]');
        const mo = new MutationObserver(() => {
          if (!ready()) return;
          mo.disconnect();
          const dom = performance.now() - t0;
          requestAnimationFrame(() => setTimeout(() => resolve({ dom, frame: performance.now() - t0 }), 0));
        });
        mo.observe(document.body, { childList: true, subtree: true, attributes: true });
        window.dispatchEvent(new MessageEvent('message', { data: (window as unknown as { __staged: unknown }).__staged }));
      }),
    post.requestId,
  );
  const wallPlan = performance.now() - wallPlan0;
  return { plan, planMs, planShown, wallPlan };
}

/** Scrolls to rows all over the list: time from each scroll to its row rendered, and the most row elements seen. */
function scrollTimed(page: Page) {
  return page.evaluate(async () => {
    const lb = document.querySelector<HTMLElement>('.timeline')!;
    lb.focus();
    const frame = () => new Promise<void>((r) => requestAnimationFrame(() => r()));
    const times: number[] = [];
    for (let k = 0; k < 40; k++) {
      const target = Math.floor(((k * 7919) % 10_000) / 1);
      const t0 = performance.now();
      lb.scrollTop = target * 24;
      for (let j = 0; j < 10 && !lb.querySelector(`[data-index="${target}"]`); j++) await frame();
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    return {
      median: times[Math.floor(times.length / 2)],
      max: times[times.length - 1],
      maxRows: lb.querySelectorAll('[role=option]').length,
    };
  });
}

test('10,000 messages: virtualized, first rows and plan highlights fast (figures printed)', async () => {
  const ctx: PlanContext = {
    ...DEFAULT_PLAN_CONTEXT,
    contextWindow: 1_000_000,
    tokens: new MemoizedMessageCounter(new CharEstimateTokenizer()),
  };
  const messages = syntheticSession({ messages: 10_000, seed: 11 });
  const { page, host, errors } = await open(ctx);
  host.autoAnswer = false;
  const session = host.load({ messages, threshold: 800_000 });
  const totalTokens = ctx.tokens.countMessages(messages);
  const message: HostToInspector = { type: 'session', session };

  const { first, transferMs, wallFirst } = await showSessionTimed(page, message);
  const domRows = await page.locator('[role=option]').count();
  assert.ok(domRows > 0 && domRows < 200, `virtualized: ${domRows} row elements in the DOM`);

  // A preview: the split and the summary are the plan's.
  const { plan, planMs, planShown, wallPlan } = await previewTimed(page, host);
  assert.equal(await page.getAttribute('[data-marker="preview-split"]', 'data-split-index'), String(plan.splitIndex));
  assert.equal(await stat(page, 'archived'), fmt(plan.archived.length));

  // Rows around the split, far down the list, match the plan.
  const archived = new Set(plan.archived.map((e) => e.id));
  await scrollToRow(page, plan.splitIndex);
  const near = await page.$$eval('[role=option]', (els) =>
    els.map((el) => ({
      i: Number((el as HTMLElement).dataset.index),
      id: (el as HTMLElement).dataset.id!,
      archived: el.classList.contains('archived'),
    })),
  );
  assert.ok(near.some((r) => r.i === plan.splitIndex - 1) && near.some((r) => r.i === plan.splitIndex));
  for (const r of near) assert.equal(r.archived, archived.has(r.id), `row ${r.i}`);
  assert.ok((await page.locator('[role=option]').count()) < 200);

  // Jumping to the end and scrolling through: time per scroll-to-rendered.
  const scrolling = await scrollTimed(page);
  await page.keyboard.press('End');
  await page.waitForSelector('[data-index="9999"]');
  assert.ok(scrolling.maxRows < 200);

  console.log(
    [
      `inspector 10k: ${messages.length} messages, ${fmt(totalTokens)} tokens (chars/4), session JSON ${fmt(JSON.stringify(message).length)} chars`,
      `  host: micro-compact + buildInspectorSession (first token counts) ${host.lastBuildMs.toFixed(0)} ms`,
      `  session -> first rows in DOM ${first.rows.toFixed(1)} ms, next frame ${first.frame.toFixed(1)} ms (in page); ` +
        `wall ${wallFirst.toFixed(0)} ms incl. ${transferMs.toFixed(0)} ms to hand the JSON to the page`,
      `  plan (${fmt(plan.archived.length)} archived) -> highlighted ${planShown.dom.toFixed(1)} ms, next frame ${planShown.frame.toFixed(1)} ms (in page); ` +
        `wall ${wallPlan.toFixed(0)} ms; engine plan ${planMs.toFixed(1)} ms`,
      `  scroll to a random row -> rendered: median ${scrolling.median.toFixed(1)} ms, max ${scrolling.max.toFixed(1)} ms; ` +
        `row elements in DOM ${domRows}..${scrolling.maxRows}`,
    ].join('\n'),
  );
  assert.ok(first.rows < 1_000, `first rows in ${first.rows} ms (target < 200 ms)`);
  assert.ok(planShown.dom < 1_000, `plan highlighted in ${planShown.dom} ms`);
  await assertClean(page, host, errors);
  await page.close();
});
