// The context inspector in headless Chromium. The test is the extension host: it builds sessions with
// buildInspectorSession, answers preview posts with the real engine (planWith + planToView) and checks
// that what the page draws — split point, tail-start pointer, archived / kept / truncated rows,
// summary figures — is exactly the engine's plan, for every strategy.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { kindOf, type Message } from '../../src/core/conversation/conversation';
import { importSession } from '../../src/core/importers';
import { DEFAULT_PLAN_CONTEXT, type CompactionPlan, type PlanContext } from '../../src/core/pipeline/plan';
import { getStrategy, planWith, resolveParams, STRATEGIES } from '../../src/core/strategies';
import { planMicroCompact } from '../../src/core/strategies/microCompact';
import { createTokenizer } from '../../src/core/counting/tokenizers';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';
import { buildInspectorSession, planToView } from '../../src/inspector/inspectorModel';
import type { HostToInspector, InspectorToHost } from '../../src/protocol';
import { syntheticSession } from '../helpers/synthetic';
import { gapTop, makeLayout, rowAt, rowTop, totalHeight, visibleRange } from '../../webview/inspector/layout';
import { checkParam } from '../../webview/inspector/params';
import { initialState, reduce, sessionChange, type InspectorState } from '../../webview/inspector/state';
import {
  openInspector,
  startInspectorHarness,
  type HarnessServer,
  type InspectorHarness,
  type InspectorHost,
  type SessionFixture,
  type Theme,
} from './inspector-harness';

const ROOT = join(import.meta.dirname ?? __dirname, '..', '..');
const ARTIFACTS = join(ROOT, 'test-artifacts');
const EXAMPLE: Message[] = importSession(readFileSync(join(ROOT, 'examples', 'session.jsonl'), 'utf8'), 'session.jsonl').messages;

/** Exact o200k counts, a 32K window (so per-turn budgets and the usage bar have something to show). */
const exampleCtx = (): PlanContext => ({
  ...DEFAULT_PLAN_CONTEXT,
  contextWindow: 32_000,
  tokens: new MemoizedMessageCounter(createTokenizer('gpt-tokenizer')),
});

/** Parameters that make every strategy do something on the example session (the rest use defaults). */
const PARAMS: Record<string, Record<string, number>> = {
  'turn-window': { maxTurns: 3 },
  'token-budget': { maxTokens: 8_000 },
  'server-clear-tool-uses': { triggerTokens: 1_000, keepToolUses: 1 },
};

let browser: Browser;
let server: HarnessServer;
let harness: InspectorHarness | undefined;

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  harness = await startInspectorHarness();
  ({ browser, server } = harness);
});

after(async () => {
  await harness?.close();
});

// ---------------------------------------------------------------------------------------------
// Page helpers

interface RowInfo {
  index: number;
  id: string;
  kind: string;
  cls: string[];
  markers: string[];
}

const frames = (page: Page) => page.evaluate(() => new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));

/** Every row of the timeline, by sweeping the virtual list from top to bottom. */
function collectRows(page: Page): Promise<RowInfo[]> {
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
async function scrollToRow(page: Page, index: number): Promise<void> {
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

async function waitRowCount(page: Page, n: number): Promise<void> {
  await page.waitForSelector(`.timeline[data-count="${n}"] [role=option]`);
}

async function previewAndWait(
  page: Page,
  host: InspectorHost,
  strategy: string,
): Promise<{ requestId: number; plan: CompactionPlan; params: Record<string, number> }> {
  const since = host.posted.length;
  await page.click(`[data-strategy="${strategy}"] [data-action=preview]`);
  const post = await host.waitForPost(
    (m): m is Extract<InspectorToHost, { type: 'preview' }> => m.type === 'preview' && m.strategy === strategy,
    5_000,
    since,
  );
  await page.waitForSelector(`.plan-summary[data-request-id="${post.requestId}"]`);
  const plan = host.plans.get(post.requestId);
  assert.ok(plan, 'the host computed a plan');
  return { requestId: post.requestId, plan, params: post.params };
}

async function stat(page: Page, name: string): Promise<string> {
  return (await page.textContent(`.plan-summary [data-stat="${name}"]`))?.trim() ?? '';
}

const fmt = (n: number) => new Intl.NumberFormat('en-US').format(n);

async function assertClean(page: Page, host: InspectorHost, errors: string[]): Promise<void> {
  const csp = await page.evaluate(() => (window as unknown as { __inspectorTest: { csp: string[] } }).__inspectorTest.csp);
  assert.deepEqual(csp, [], 'no CSP violations');
  assert.deepEqual(errors, [], 'no page errors');
  assert.deepEqual(host.malformed, [], 'every post is a valid protocol message');
}

/** The timeline's rows are exactly `messages` (ids and kinds, in order). */
async function assertRowsAre(page: Page, messages: readonly Message[]): Promise<RowInfo[]> {
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

// ---------------------------------------------------------------------------------------------
// The webview's pure pieces (no browser)

test('timeline geometry: split dividers sit between rows and shift the rows below them', () => {
  const layout = makeLayout(10, [
    { index: 3, kind: 'preview' },
    { index: 3, kind: 'current' },
    { index: 11, kind: 'preview' },
  ]);
  assert.deepEqual(layout.gaps, [
    { index: 3, kind: 'current' },
    { index: 3, kind: 'preview' },
  ]);
  assert.equal(rowTop(layout, 2), 48);
  assert.equal(gapTop(layout, 0), 72);
  assert.equal(gapTop(layout, 1), 96);
  assert.equal(rowTop(layout, 3), 120);
  assert.equal(totalHeight(layout), 10 * 24 + 2 * 24);
  assert.equal(rowAt(layout, 100), 2, 'a point on a divider belongs to the row above');
  assert.equal(rowAt(layout, 120), 3);
  assert.equal(rowAt(layout, 10_000), 9);
  assert.deepEqual(visibleRange(layout, 120, 48, 1), [2, 6]);
  assert.deepEqual(visibleRange(makeLayout(0, []), 0, 100, 5), [0, 0]);
});

test('parameter checks follow the bounds the host sends', () => {
  const p = { name: 'n', description: '', value: 3, min: 1, max: 10, integer: true };
  assert.deepEqual(checkParam(p, ' 4 '), { value: 4 });
  assert.deepEqual(checkParam(p, '0'), { error: 'Must be at least 1.' });
  assert.deepEqual(checkParam(p, '11'), { error: 'Must be at most 10.' });
  assert.deepEqual(checkParam(p, '1.5'), { error: 'Must be a whole number.' });
  assert.deepEqual(checkParam(p, 'abc'), { error: 'Enter a number.' });
  assert.deepEqual(checkParam({ ...p, integer: false, max: 0.99, min: 0.01 }, '0.5'), { value: 0.5 });
});

test('state: only the latest answer is taken; appends keep a preview, rewrites and other sessions drop it', () => {
  const c: PlanContext = { ...DEFAULT_PLAN_CONTEXT, tokens: new MemoizedMessageCounter(new CharEstimateTokenizer()) };
  const view = (messages: Message[], sessionId = 's') =>
    buildInspectorSession({
      source: 'Current session',
      readOnly: false,
      sessionId,
      title: 't',
      messages,
      effective: messages,
      compactions: [],
      ctx: c,
      overhead: { system: 0, tools: 0 },
      autoCompactThreshold: null,
      canUndo: false,
      tailStartId: null,
    });
  const plan = (requestId: number, strategy: string, overrides: Record<string, number>) =>
    planToView(planWith(strategy, EXAMPLE.slice(0, 50), overrides, c), requestId, 1);
  const s0 = view(EXAMPLE.slice(0, 50));
  let st: InspectorState = reduce(initialState, { type: 'host', message: { type: 'session', session: s0 } });
  assert.equal(st.sessionChange, 'new');
  st = reduce(st, { type: 'previewRequested', requestId: 1, strategy: 'sliding-window' });
  st = reduce(st, { type: 'previewRequested', requestId: 2, strategy: 'turn-window' });
  assert.equal(
    reduce(st, { type: 'host', message: { type: 'plan', plan: plan(1, 'sliding-window', { maxEvents: 5 }) } }),
    st,
    'stale answer ignored',
  );
  st = reduce(st, { type: 'host', message: { type: 'plan', plan: plan(2, 'turn-window', { maxTurns: 2 }) } });
  assert.equal(st.plan?.requestId, 2);
  const cleared = reduce(st, { type: 'clearPreview' });
  assert.equal(
    reduce(cleared, { type: 'host', message: { type: 'plan', plan: plan(2, 'turn-window', { maxTurns: 2 }) } }).plan,
    null,
    'no answer taken after Clear preview',
  );

  const appended = reduce(st, { type: 'host', message: { type: 'session', session: view(EXAMPLE) } });
  assert.equal(appended.sessionChange, 'append');
  assert.equal(appended.plan?.requestId, 2, 'the preview stays while a fresh one is computed');
  assert.equal(appended.planStale, true);
  assert.equal(sessionChange(s0, view(EXAMPLE.slice(0, 50))), 'same');
  assert.equal(sessionChange(s0, view(EXAMPLE.slice(0, 50), 'other')), 'new');
  const micro = (ms: Message[]) => planMicroCompact(ms, { keepRecent: 3, minChars: 100 }, c).output;
  const viewMicro = (ms: Message[]) =>
    buildInspectorSession({
      source: 'Current session',
      readOnly: false,
      sessionId: 's',
      title: 't',
      messages: ms,
      effective: micro(ms),
      compactions: [],
      ctx: c,
      overhead: { system: 0, tools: 0 },
      autoCompactThreshold: null,
      canUndo: false,
      tailStartId: null,
    });
  assert.equal(
    sessionChange(viewMicro(EXAMPLE.slice(0, 50)), viewMicro(EXAMPLE)),
    'append',
    'more micro-compaction as the history grows is still an append',
  );
  assert.equal(sessionChange(s0, view(EXAMPLE.slice(1, 50))), 'rewrite');
  const emptied = EXAMPLE.slice(0, 50).map((m): Message =>
    m.role === 'user' && typeof m.content !== 'string' ? { ...m, content: m.content.map((b) => ({ ...b, content: '' })) } : m,
  );
  assert.equal(sessionChange(s0, view(emptied)), 'rewrite', 'same ids, different contents');
  const rewritten = reduce(st, { type: 'host', message: { type: 'session', session: view(EXAMPLE.slice(1, 50)) } });
  assert.equal(rewritten.plan, null);
  assert.equal(rewritten.previewStrategy, null);
});

// ---------------------------------------------------------------------------------------------
// Every strategy: preview, apply, undo

describe('every strategy, previewed, applied and undone on the example session', () => {
  let page: Page;
  let host: InspectorHost;
  let errors: string[];
  const original: SessionFixture = { messages: EXAMPLE };

  before(async () => {
    // A tall page: the whole example fits in two screens of the virtual list.
    ({ page, host, errors } = await openInspector(browser, server, exampleCtx(), 'dark', { width: 1280, height: 1500 }));
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
      const n = EXAMPLE.length;

      // Summary figures.
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

      // Rows around the split, then every row: archived / kept / truncated exactly as planned.
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

      // Apply posts exactly the strategy and parameters (LLM strategies confirm inline, with a focus).
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

      // The host applies: the page shows exactly the new history, the preview is gone.
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

      // Undo posts undo; the host restores the original history and the page shows exactly it.
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
      // Back to defaults for the next strategy.
      if (Object.keys(overrides).length > 0) await page.click(`[data-strategy="${def.name}"] [data-action=reset]`);
    });
  }
});

// ---------------------------------------------------------------------------------------------

test('clicking a micro-compacted tool result shows what the model sees and the original output', async () => {
  const { page, host, errors } = await openInspector(browser, server, exampleCtx());
  await host.showSession({ messages: EXAMPLE });
  await waitRowCount(page, EXAMPLE.length);
  const row = host.session.rows.find((r) => r.truncated)!;
  assert.ok(row, 'fixture has a truncated row');
  await scrollToRow(page, row.index);
  const badge = await page.textContent(`[data-index="${row.index}"] .badge-truncated`);
  assert.equal(badge?.trim(), `truncated · original ${fmt(row.truncated!.originalTokens)} tok`);
  const since = host.posted.length;
  await page.click(`[data-index="${row.index}"]`);
  assert.deepEqual(await host.waitForPost((m) => m.type === 'showMessage', 5_000, since), { type: 'showMessage', id: row.id });
  await page.waitForSelector(`.detail[data-detail-id="${row.id}"] [data-detail="original"]`);
  const original = EXAMPLE[row.index];
  const seen = host.effective[row.index];
  const texts = await page.evaluate(() => ({
    original: document.querySelector('[data-detail="original"]')!.textContent,
    effective: document.querySelector('[data-detail="effective"]')!.textContent,
  }));
  const firstResult = (m: Message) =>
    (m.content as Array<{ type: string; content?: unknown }>).find((b) => b.type === 'tool_result')!.content as string;
  assert.ok(texts.original!.includes(firstResult(original)), 'the full original output');
  assert.ok(texts.effective!.includes(firstResult(seen)), 'the placeholder the model sees');
  assert.match(texts.effective!, /\[Previous: used \w+\]/);
  assert.equal(await page.getAttribute(`[data-index="${row.index}"]`, 'aria-selected'), 'true');
  await assertClean(page, host, errors);
  await page.close();
});

test('read-only mode: Apply and Undo are gone, Preview works, the banner names the source, text is never HTML', async () => {
  const { page, host, errors } = await openInspector(browser, server, exampleCtx());
  const payload = `<img src=x onerror="document.title='pwned'"><b>bold</b> & <script>alert(1)</script>`;
  const messages: Message[] = [{ id: 'html', role: 'user', content: payload }, ...EXAMPLE.slice(1)];
  const source = '/home/dev/.claude/projects/demo/4f1c.jsonl';
  await host.showSession({ messages, readOnly: true, source, sessionId: 'file:4f1c', canUndo: true });
  await waitRowCount(page, messages.length);
  assert.equal(await page.locator('[data-action=apply]').count(), 0);
  assert.equal(await page.locator('[data-action=undo]').count(), 0);
  assert.equal(await page.locator('[data-action=preview]').count(), STRATEGIES.length);
  assert.equal((await page.textContent('[data-field=readonly-source]'))?.trim(), source);

  const { plan } = await previewAndWait(page, host, 'sliding-window');
  assert.equal(await page.getAttribute('[data-marker="preview-split"]', 'data-split-index'), String(plan.splitIndex));

  let since = host.posted.length;
  await page.click('[data-action=show-current]');
  assert.deepEqual(await host.waitForPost((m) => m.type === 'showCurrent', 5_000, since), { type: 'showCurrent' });
  since = host.posted.length;
  await page.click('[data-action=inspect-file]');
  assert.deepEqual(await host.waitForPost((m) => m.type === 'inspectFile', 5_000, since), { type: 'inspectFile' });

  // Markup in a message is text: in the row and in the detail pane.
  await scrollToRow(page, 0);
  assert.ok((await page.textContent('[data-index="0"] .preview'))!.includes('<b>bold</b>'));
  await page.click('[data-index="0"]');
  await page.waitForSelector('.detail[data-detail-id="html"] [data-detail="original"]');
  assert.equal(await page.textContent('[data-detail="original"]'), payload);
  assert.equal(await page.locator('.detail b, .detail img, .detail script, .timeline b, .timeline img').count(), 0);
  assert.notEqual(await page.title(), 'pwned');
  await assertClean(page, host, errors);
  await page.close();
});

test('the detail of an MCP tool result names the MCP server it came from', async () => {
  const { page, host, errors } = await openInspector(browser, server, exampleCtx());
  const messages: Message[] = [
    { id: 'u1', role: 'user', content: 'Echo through MCP' },
    { id: 'a1', role: 'assistant', content: [{ type: 'tool_use', id: 'tu1', name: 'mcp__everything__echo', input: { message: 'hi' } }] },
    { id: 'r1', role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu1', content: 'Echo: hi' }] },
    { id: 'a2', role: 'assistant', content: 'It echoed.' },
  ];
  await host.showSession({ messages });
  await waitRowCount(page, messages.length);
  await page.click('[data-index="2"]');
  await page.waitForSelector('.detail[data-detail-id="r1"] [data-detail="original"]');
  assert.equal((await page.textContent('.detail .tag-mcp'))?.trim(), 'MCP server everything · echo');
  await page.click('[data-index="0"]');
  await page.waitForSelector('.detail[data-detail-id="u1"] [data-detail="original"]');
  assert.equal(await page.locator('.detail .tag-mcp').count(), 0);
  await assertClean(page, host, errors);
  await page.close();
});

test('stale plan answers are ignored: only the answer to the latest request is drawn', async () => {
  const { page, host, errors } = await openInspector(browser, server, exampleCtx());
  await host.showSession({ messages: EXAMPLE });
  await waitRowCount(page, EXAMPLE.length);
  host.autoAnswer = false;
  const since = host.posted.length;
  await page.click('[data-strategy="sliding-window"] [data-action=preview]');
  await page.click('[data-strategy="recent-turns"] [data-action=preview]');
  const a = await host.waitForPost(
    (m): m is Extract<InspectorToHost, { type: 'preview' }> => m.type === 'preview' && m.strategy === 'sliding-window',
    5_000,
    since,
  );
  const b = await host.waitForPost(
    (m): m is Extract<InspectorToHost, { type: 'preview' }> => m.type === 'preview' && m.strategy === 'recent-turns',
    5_000,
    since,
  );
  assert.ok(b.requestId > a.requestId);
  const planA = host.plan(a.strategy, a.params).plan;
  const planB = host.plan(b.strategy, b.params).plan;
  assert.notEqual(planA.splitIndex, planB.splitIndex, 'fixture: the two plans differ');

  await host.send({ type: 'plan', plan: planToView(planA, a.requestId, 1) });
  await frames(page);
  assert.equal(await page.getAttribute('.plan-summary', 'data-request-id'), '', 'the older answer is not drawn');
  assert.equal(await page.locator('[data-marker="preview-split"]').count(), 0);

  await host.send({ type: 'plan', plan: planToView(planB, b.requestId, 1) });
  await page.waitForSelector(`.plan-summary[data-request-id="${b.requestId}"]`);
  assert.equal(await page.getAttribute('[data-marker="preview-split"]', 'data-split-index'), String(planB.splitIndex));

  await host.send({ type: 'plan', plan: planToView(planA, a.requestId, 1) });
  await host.send({ type: 'planError', requestId: a.requestId, message: 'stale failure' });
  await frames(page);
  assert.equal(await page.getAttribute('.plan-summary', 'data-strategy'), 'recent-turns');
  assert.equal(await page.getAttribute('[data-marker="preview-split"]', 'data-split-index'), String(planB.splitIndex));
  assert.equal(await page.locator('.plan-summary [data-stat="error"]').count(), 0);

  // An error for the latest request is shown.
  const since2 = host.posted.length;
  await page.click('[data-strategy="recent-turns"] [data-action=preview]');
  const c = await host.waitForPost((m): m is Extract<InspectorToHost, { type: 'preview' }> => m.type === 'preview', 5_000, since2);
  await host.send({ type: 'planError', requestId: c.requestId, message: 'recent-turns: parameter perTurnMin must be <= perTurnMax' });
  await page.waitForSelector('.plan-summary [data-stat="error"]');
  assert.match((await page.textContent('.plan-summary [data-stat="error"]'))!, /perTurnMin/);
  await assertClean(page, host, errors);
  await page.close();
});

test('a growing history keeps the preview and refreshes it; the new rows appear at the end', async () => {
  const { page, host, errors } = await openInspector(browser, server, exampleCtx());
  const head = EXAMPLE.slice(0, 50);
  await host.showSession({ messages: head });
  await waitRowCount(page, head.length);
  const first = await previewAndWait(page, host, 'sliding-window');
  const since = host.posted.length;
  await host.showSession({ messages: EXAMPLE });
  await waitRowCount(page, EXAMPLE.length);
  const again = await host.waitForPost((m): m is Extract<InspectorToHost, { type: 'preview' }> => m.type === 'preview', 5_000, since);
  assert.equal(again.strategy, 'sliding-window');
  assert.ok(again.requestId > first.requestId);
  await page.waitForSelector(`.plan-summary[data-request-id="${again.requestId}"]`);
  const plan = host.plans.get(again.requestId)!;
  assert.notEqual(plan.splitIndex, first.plan.splitIndex);
  assert.equal(await page.getAttribute('[data-marker="preview-split"]', 'data-split-index'), String(plan.splitIndex));
  await scrollToRow(page, EXAMPLE.length - 1);
  assert.equal(await page.getAttribute(`[data-index="${EXAMPLE.length - 1}"]`, 'data-id'), EXAMPLE[EXAMPLE.length - 1].id);
  await assertClean(page, host, errors);
  await page.close();
});

test('parameter inputs honour min, max and integer; editing re-previews once after a pause; Clear preview', async () => {
  const { page, host, errors } = await openInspector(browser, server, exampleCtx());
  await host.showSession({ messages: EXAMPLE });
  await waitRowCount(page, EXAMPLE.length);
  const card = '[data-strategy="sliding-window"]';
  const input = `${card} input[data-param="maxEvents"]`;
  assert.equal(await page.getAttribute(input, 'min'), '1');
  assert.equal(await page.getAttribute(input, 'step'), '1');
  for (const [value, error] of [
    ['0', 'Must be at least 1.'],
    ['2.5', 'Must be a whole number.'],
    ['', 'Enter a number.'],
  ]) {
    await page.fill(input, value);
    assert.equal((await page.textContent(`${card} .param-error`))?.trim(), error);
    assert.equal(await page.getAttribute(input, 'aria-invalid'), 'true');
    assert.equal(await page.isDisabled(`${card} [data-action=preview]`), true);
    assert.equal(await page.isDisabled(`${card} [data-action=apply]`), true);
  }
  await page.click(`${card} [data-action=reset]`);
  assert.equal(await page.inputValue(input), '40');
  assert.equal(await page.locator(`${card} .param-error`).count(), 0);
  await page.fill('[data-strategy="recent-token-fraction"] input[data-param="fraction"]', '1.5');
  assert.equal((await page.textContent('[data-strategy="recent-token-fraction"] .param-error'))?.trim(), 'Must be at most 0.99.');
  await page.fill('[data-strategy="recent-token-fraction"] input[data-param="fraction"]', '0.5');
  assert.equal(await page.locator('[data-strategy="recent-token-fraction"] .param-error').count(), 0);

  // With a preview showing, typing re-previews once, after the pause, with the final value.
  const first = await previewAndWait(page, host, 'sliding-window');
  const since = host.posted.length;
  await page.click(input, { clickCount: 3 });
  await page.keyboard.type('25', { delay: 40 });
  const again = await host.waitForPost((m): m is Extract<InspectorToHost, { type: 'preview' }> => m.type === 'preview', 5_000, since);
  assert.deepEqual(again.params, { maxEvents: 25 });
  await page.waitForSelector(`.plan-summary[data-request-id="${again.requestId}"]`);
  await page.waitForTimeout(300);
  assert.equal(host.posted.slice(since).filter((m) => m.type === 'preview').length, 1, 'one preview for the whole edit');
  const plan = host.plans.get(again.requestId)!;
  assert.notEqual(plan.splitIndex, first.plan.splitIndex);
  assert.equal(await page.getAttribute('[data-marker="preview-split"]', 'data-split-index'), String(plan.splitIndex));

  // Clear preview: markers and summary go; later edits do not preview.
  await page.click('[data-action=clear-preview]');
  assert.equal(await page.locator('[data-marker="preview-split"]').count(), 0);
  assert.equal(await page.locator('[role=option].archived').count(), 0);
  assert.equal(await page.locator('.plan-summary').count(), 0);
  const since2 = host.posted.length;
  await page.fill(input, '12');
  await page.waitForTimeout(400);
  assert.equal(host.posted.slice(since2).filter((m) => m.type === 'preview').length, 0);
  await assertClean(page, host, errors);
  await page.close();
});

test('keyboard: the timeline is a listbox with arrows, Home/End, PageUp/PageDown and Enter', async () => {
  const { page, host, errors } = await openInspector(browser, server, exampleCtx());
  await host.showSession({ messages: EXAMPLE });
  await waitRowCount(page, EXAMPLE.length);
  const active = () => page.getAttribute('.timeline', 'aria-activedescendant');
  const visible = (i: number) =>
    page.evaluate((k) => {
      const lb = document.querySelector('.timeline')!.getBoundingClientRect();
      const r = document.getElementById(`sp-row-${k}`)?.getBoundingClientRect();
      return !!r && r.top >= lb.top - 0.5 && r.bottom <= lb.bottom + 0.5;
    }, i);
  assert.equal(await page.getAttribute('.timeline', 'role'), 'listbox');
  assert.match((await page.getAttribute('.timeline', 'aria-label'))!, /60 messages/);

  // Tab from the toolbar reaches the timeline (the minimap is a picture, not a tab stop).
  await page.focus('[data-action=inspect-file]');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.classList.contains('timeline')), true);
  assert.equal(await active(), 'sp-row-0');
  for (let k = 0; k < 3; k++) await page.keyboard.press('ArrowDown');
  assert.equal(await active(), 'sp-row-3');
  assert.equal(await page.getAttribute('#sp-row-3', 'aria-selected'), 'true');
  await page.keyboard.press('ArrowUp');
  assert.equal(await active(), 'sp-row-2');
  await page.keyboard.press('PageDown');
  const afterPage = Number((await active())!.slice('sp-row-'.length));
  assert.ok(afterPage >= 8, `PageDown moved a page (to ${afterPage})`);
  assert.ok(await visible(afterPage));
  await page.keyboard.press('PageUp');
  assert.equal(await active(), 'sp-row-2');
  await page.keyboard.press('End');
  assert.equal(await active(), `sp-row-${EXAMPLE.length - 1}`);
  await frames(page);
  assert.ok(await visible(EXAMPLE.length - 1), 'End scrolls the last row into view');
  await page.keyboard.press('ArrowDown');
  assert.equal(await active(), `sp-row-${EXAMPLE.length - 1}`, 'stays on the last row');
  await page.keyboard.press('Home');
  assert.equal(await active(), 'sp-row-0');
  await frames(page);
  assert.ok(await visible(0));
  await page.keyboard.press('ArrowDown');
  const since = host.posted.length;
  await page.keyboard.press('Enter');
  assert.deepEqual(await host.waitForPost((m) => m.type === 'showMessage', 5_000, since), { type: 'showMessage', id: EXAMPLE[1].id });
  await page.waitForSelector(`.detail[data-detail-id="${EXAMPLE[1].id}"] [data-detail="original"]`);
  // Tab leaves the listbox for the next control; the strategy controls are reachable.
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.classList.contains('timeline')), false);
  await page.focus('[data-strategy="recent-turns"] [data-action=preview]');
  await page.keyboard.press('Enter');
  await page.waitForSelector('.plan-summary[data-strategy="recent-turns"]');
  await assertClean(page, host, errors);
  await page.close();
});

test('busy and notices: Apply and Undo wait while the host works; notices can be dismissed', async () => {
  const { page, host, errors } = await openInspector(browser, server, exampleCtx());
  await host.showSession({ messages: EXAMPLE, canUndo: true });
  await waitRowCount(page, EXAMPLE.length);
  await host.send({ type: 'busy', busy: true, label: 'Summarizing 50 messages…' });
  await page.waitForSelector('[data-field=busy]');
  assert.match((await page.textContent('[data-field=busy]'))!, /Summarizing 50 messages/);
  assert.equal(await page.isDisabled('[data-strategy="sliding-window"] [data-action=apply]'), true);
  assert.equal(await page.isDisabled('[data-action=undo]'), true);
  assert.equal(await page.isDisabled('[data-strategy="sliding-window"] [data-action=preview]'), false, 'preview still works');
  await host.send({ type: 'busy', busy: false });
  await frames(page);
  assert.equal(await page.isDisabled('[data-action=undo]'), false);
  await host.send({ type: 'notice', level: 'error', message: 'Summarization failed: the history is unchanged.' });
  await page.waitForSelector('.notice-error[role=alert]');
  assert.match((await page.textContent('.notice-error'))!, /history is unchanged/);
  await page.click('.notice-error button');
  assert.equal(await page.locator('.notice').count(), 0);
  await assertClean(page, host, errors);
  await page.close();
});

test('view state (parameters, scroll position, selection) survives a reload of the webview', async () => {
  const { page, host, errors } = await openInspector(browser, server, exampleCtx());
  await host.showSession({ messages: EXAMPLE });
  await waitRowCount(page, EXAMPLE.length);
  await page.fill('[data-strategy="sliding-window"] input[data-param="maxEvents"]', '33');
  await page.evaluate(() => {
    document.querySelector('.timeline')!.scrollTop = 300;
  });
  await frames(page);
  await page.click('[data-index="16"]');
  await page.waitForTimeout(250);
  const ready = host.waitForPost((m) => m.type === 'ready', 10_000);
  await page.reload();
  await ready;
  await host.showSession({ messages: EXAMPLE });
  await waitRowCount(page, EXAMPLE.length);
  await frames(page);
  assert.equal(await page.inputValue('[data-strategy="sliding-window"] input[data-param="maxEvents"]'), '33');
  assert.equal(await page.evaluate(() => document.querySelector('.timeline')!.scrollTop), 300);
  assert.equal(await page.getAttribute('[data-index="16"]', 'aria-selected'), 'true');
  assert.equal(await page.locator('[data-strategy="sliding-window"].highlighted').count(), 1);
  await assertClean(page, host, errors);
  await page.close();
});

test('10,000 messages: virtualized, first rows and plan highlights fast (figures printed)', async () => {
  const ctx: PlanContext = {
    ...DEFAULT_PLAN_CONTEXT,
    contextWindow: 1_000_000,
    tokens: new MemoizedMessageCounter(new CharEstimateTokenizer()),
  };
  const messages = syntheticSession({ messages: 10_000, seed: 11 });
  const { page, host, errors } = await openInspector(browser, server, ctx);
  host.autoAnswer = false;
  const session = host.load({ messages, threshold: 800_000 });
  const totalTokens = ctx.tokens.countMessages(messages);
  const message: HostToInspector = { type: 'session', session };

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
  const domRows = await page.locator('[role=option]').count();
  assert.ok(domRows > 0 && domRows < 200, `virtualized: ${domRows} row elements in the DOM`);

  // Preview: the host answers by hand so the page-side time from 'plan' to highlighted rows is measured.
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
  const scrolling = await page.evaluate(async () => {
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

/** A compacted session worth looking at: an earlier summary, a tail pointer, truncated results, a selected detail. */
async function showcase(theme: Theme) {
  const ctx = exampleCtx();
  const { page, host, errors } = await openInspector(browser, server, ctx, theme);
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
