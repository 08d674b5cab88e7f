// Shared by the inspector webview test files that work on the example session: one harness (bundle,
// server, browser) per file, the session and its plan context, and page helpers that read the
// virtual timeline, preview a strategy and check that a page stayed clean.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { kindOf, type Message } from '../../src/core/conversation/conversation';
import { importSession } from '../../src/core/importers';
import { DEFAULT_PLAN_CONTEXT, type CompactionPlan, type PlanContext } from '../../src/core/pipeline/plan';
import { createTokenizer } from '../../src/core/counting/tokenizers';
import { MemoizedMessageCounter } from '../../src/core/counting/tokens';
import type { InspectorToHost } from '../../src/protocol';
import { openInspector, startInspectorHarness, type InspectorHarness, type InspectorHost, type Theme } from './inspector-harness';

const ROOT = join(import.meta.dirname ?? __dirname, '..', '..');
export const ARTIFACTS = join(ROOT, 'test-artifacts');
export const EXAMPLE: Message[] = importSession(readFileSync(join(ROOT, 'examples', 'session.jsonl'), 'utf8'), 'session.jsonl').messages;

/** Exact o200k counts, a 32K window (so per-turn budgets and the usage bar have something to show). */
export const exampleCtx = (): PlanContext => ({
  ...DEFAULT_PLAN_CONTEXT,
  contextWindow: 32_000,
  tokens: new MemoizedMessageCounter(createTokenizer('gpt-tokenizer')),
});

/** Starts one harness before the file's tests (and the artifacts folder) and closes it after them. */
export function inspectorPagesForFile(): {
  /** The inspector in a new page, with a fake host answering from the real engine (see openInspector). */
  open(
    ctx: PlanContext,
    theme?: Theme,
    viewport?: { width: number; height: number },
    makeHost?: Parameters<typeof openInspector>[5],
  ): ReturnType<typeof openInspector>;
} {
  let harness: InspectorHarness | undefined;
  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    harness = await startInspectorHarness();
  });
  after(async () => {
    await harness?.close();
  });
  return {
    open(ctx, theme, viewport, makeHost) {
      if (!harness) throw new Error('the inspector harness did not start (see the before hook)');
      return openInspector(harness.browser, harness.server, ctx, theme, viewport, makeHost);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Page helpers

export interface RowInfo {
  index: number;
  id: string;
  kind: string;
  cls: string[];
  markers: string[];
}

export const frames = (page: Page) =>
  page.evaluate(() => new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));

/** Every row of the timeline, by sweeping the virtual list from top to bottom. */
export function collectRows(page: Page): Promise<RowInfo[]> {
  return page.evaluate(async () => {
    const lb = document.querySelector<HTMLElement>('.timeline')!;
    // Scroll events come once per frame; dispatching one right away lets the list render at once.
    const frame = () => {
      lb.dispatchEvent(new Event('scroll'));
      return new Promise<void>((r) => setTimeout(r, 0));
    };
    const out = new Map<number, RowInfo>();
    const grab = () =>
      lb.querySelectorAll<HTMLElement>('[role=option]').forEach((el) => {
        out.set(Number(el.dataset.index), {
          index: Number(el.dataset.index),
          id: el.dataset.id!,
          kind: el.dataset.kind!,
          cls: [...el.classList],
          markers: [...el.querySelectorAll('[data-marker]')].map((m) => m.getAttribute('data-marker')!),
        });
      });
    const step = Math.max(24, lb.clientHeight - 48);
    for (let y = 0; ; y += step) {
      lb.scrollTop = y;
      await frame();
      grab();
      if (lb.scrollTop + lb.clientHeight >= lb.scrollHeight - 1) break;
    }
    lb.scrollTop = 0;
    await frame();
    return [...out.values()].sort((a, b) => a.index - b.index);
  });
}

/** Scroll the timeline until row `index` is rendered (centred). */
export async function scrollToRow(page: Page, index: number): Promise<void> {
  const ok = await page.evaluate(async (i) => {
    const lb = document.querySelector<HTMLElement>('.timeline')!;
    lb.scrollTop = Math.max(0, i * 24 - lb.clientHeight / 2);
    lb.dispatchEvent(new Event('scroll'));
    await new Promise<void>((r) => setTimeout(r, 0));
    if (lb.querySelector(`[data-index="${i}"]`)) return true;
    for (let k = 0; k < 10; k++) {
      await new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r())));
      if (lb.querySelector(`[data-index="${i}"]`)) return true;
    }
    return false;
  }, index);
  assert.ok(ok, `row ${index} rendered after scrolling`);
}

export async function waitRowCount(page: Page, n: number): Promise<void> {
  await page.waitForSelector(`.timeline[data-count="${n}"] [role=option]`);
}

/** Clicks a strategy's Preview and waits until its plan is shown; the preview message the webview posted. */
export async function clickPreview(
  page: Page,
  host: InspectorHost,
  strategy: string,
): Promise<Extract<InspectorToHost, { type: 'preview' }>> {
  const since = host.posted.length;
  await page.click(`[data-strategy="${strategy}"] [data-action=preview]`);
  const post = await host.waitForPost(
    (m): m is Extract<InspectorToHost, { type: 'preview' }> => m.type === 'preview' && m.strategy === strategy,
    5_000,
    since,
  );
  await page.waitForSelector(`.plan-summary[data-request-id="${post.requestId}"]`);
  return post;
}

export async function previewAndWait(
  page: Page,
  host: InspectorHost,
  strategy: string,
): Promise<{ requestId: number; plan: CompactionPlan; params: Record<string, number> }> {
  const post = await clickPreview(page, host, strategy);
  const plan = host.plans.get(post.requestId);
  assert.ok(plan, 'the host computed a plan');
  return { requestId: post.requestId, plan, params: post.params };
}

export async function stat(page: Page, name: string): Promise<string> {
  return (await page.textContent(`.plan-summary [data-stat="${name}"]`))?.trim() ?? '';
}

export const fmt = (n: number) => new Intl.NumberFormat('en-US').format(n);

export async function assertClean(page: Page, host: InspectorHost, errors: string[]): Promise<void> {
  const csp = await page.evaluate(() => (window as unknown as { __inspectorTest: { csp: string[] } }).__inspectorTest.csp);
  assert.deepEqual(csp, [], 'no CSP violations');
  assert.deepEqual(errors, [], 'no page errors');
  assert.deepEqual(host.malformed, [], 'every post is a valid protocol message');
}

/** The timeline's rows are exactly `messages` (ids and kinds, in order). */
export async function assertRowsAre(page: Page, messages: readonly Message[]): Promise<RowInfo[]> {
  await waitRowCount(page, messages.length);
  const rows = await collectRows(page);
  assert.deepEqual(
    rows.map((r) => r.id),
    messages.map((m) => m.id),
  );
  assert.deepEqual(
    rows.map((r) => r.kind),
    messages.map(kindOf),
  );
  return rows;
}
