// "Replay" on an inspected file, in headless Chromium: the host is the real InspectorService for the
// page and the real replay (src/inspector/inspectorReplay.ts: the five built-in configurations, the core
// replay) answers the page's 'replay' intent. The chart draws one line per configuration for the context
// tokens per call, a marker per compaction at its call, the window, the overflow of no-compaction, the
// cumulative cost; a legend gives each cost (as-recorded: its error vs recorded), compactions and path,
// prompt and ledger recall; the window's source and the recorded cost are said; malformed replays are refused.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import type { Message, RecordedUsage } from '../../src/core/conversation/conversation';
import type { ImportResult } from '../../src/core/importers';
import { DEFAULT_PLAN_CONTEXT, type PlanContext } from '../../src/core/pipeline/plan';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';
import { runInspectorReplay } from '../../src/inspector/inspectorReplay';
import type { ReplayView } from '../../src/protocol';
import { parseHostToInspector } from '../../webview/inspector/hostMessages';
import { openInspector, startInspectorHarness, type HarnessServer, type InspectorHarness } from './inspector-harness';
import { RecordingHost } from './inspector-recording-host';

const ARTIFACTS = join(import.meta.dirname ?? __dirname, '..', '..', 'test-artifacts');

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

const WINDOW = 100_000;
const counter = new MemoizedMessageCounter(new CharEstimateTokenizer());
/** `text` matched literally inside a RegExp. */
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** 200 model calls reading files (2,000-char results), a prompt every 10 calls; usage = 3,000 + the visible input. */
function generatedRecording(): ImportResult {
  const messages: Message[] = [];
  const usage = (): RecordedUsage => ({
    inputTokens: 3_000 + counter.countMessages(messages),
    cacheReadTokens: 0,
    cacheCreationTokens: 0,
    outputTokens: 40,
    model: 'claude-sonnet-4-5',
  });
  for (let k = 0; k < 200; k++) {
    if (k % 10 === 0)
      messages.push({ id: `p${k}`, role: 'user', content: `Step ${k / 10 + 1}: read the next ten modules and fix what is wrong.` });
    const u = usage();
    messages.push({
      id: `c${k}`,
      role: 'assistant',
      content: [{ type: 'tool_use', id: `t${k}`, name: 'Read', input: { file_path: `src/m${k}.ts` } }],
      usage: u,
    });
    messages.push({
      id: `r${k}`,
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: `t${k}`,
          content: `// module ${k}\n${'export const value = compute(input, options);\n'.repeat(45)}`,
        },
      ],
    });
  }
  messages.push({ id: 'done', role: 'assistant', content: 'All fixed.', usage: usage() });
  return { format: 'splitpoint-jsonl', messages, compactions: [], warnings: [], model: 'claude-sonnet-4-5' };
}

const ctx = (): PlanContext => ({ ...DEFAULT_PLAN_CONTEXT, contextWindow: WINDOW, tokens: counter });

test('Replay on an inspected file: context per call with compactions marked, the window, cumulative cost, legend', async () => {
  const opened = await openInspector(
    browser,
    server,
    ctx(),
    'dark',
    { width: 1280, height: 900 },
    (page, pc) => new RecordingHost(page, pc),
  );
  const { page, errors } = opened;
  const host = opened.host as RecordingHost;
  const result = generatedRecording();
  await host.showRecording({ source: '/recordings/generated.jsonl', result });
  await page.waitForSelector('[data-action="replay"]');
  assert.equal(await page.locator('.replay-chart').count(), 0, 'no chart before a replay');

  const asked = host.waitForPost((m) => m.type === 'replay');
  await page.click('[data-action="replay"]');
  await asked;
  const view: ReplayView = await runInspectorReplay('/recordings/generated.jsonl', result, { contextWindow: WINDOW });
  const byName = new Map(view.configs.map((c) => [c.name, c]));
  // The engine did what the chart is about: compactions, and an overflow without compaction.
  assert.ok(byName.get('codex-like')!.compactions >= 1, JSON.stringify(view.notes));
  assert.ok(byName.get('no-compaction')!.stoppedAt !== null);
  await host.send({ type: 'replay', replay: view });
  await page.waitForSelector('svg[data-chart="context"] .replay-series');

  const series = await page.$$eval('svg[data-chart="context"] .replay-series', (els) =>
    els.map((g) => ({
      name: (g as SVGGElement).dataset.config,
      points: (g.querySelector('polyline')?.getAttribute('points') ?? '').split(' ').filter(Boolean).length,
      compactions: [...g.querySelectorAll('.replay-compaction')].map((c) => Number((c as SVGCircleElement).dataset.call)),
      stop: (g.querySelector('.replay-stop') as SVGTextElement | null)?.dataset.call ?? null,
    })),
  );
  assert.deepEqual(
    series.map((s) => s.name),
    ['as-recorded', 'no-compaction', 'claude-code-like', 'codex-like', 'splitpoint-default'],
  );
  for (const s of series) {
    const c = byName.get(s.name!)!;
    assert.equal(s.points, c.points.length, `${s.name}: one vertex per replayed call`);
    assert.deepEqual(
      s.compactions,
      c.points.filter((p) => p.compaction).map((p) => p.call),
      `${s.name}: a marker at each compaction's call`,
    );
    assert.equal(s.stop, c.stoppedAt === null ? null : String(c.stoppedAt));
  }
  // The context chart's top is the window or, above it, the largest request: as-recorded replays what the
  // recording sent, which was more than the window this replay was given (a warning says so).
  const peak = Math.max(...view.configs.map((c) => c.peakContextTokens));
  const windowY = Number(await page.getAttribute('svg[data-chart="context"] .replay-window', 'y1'));
  const [top, bottom] = [8, 130 - 18];
  assert.ok(Math.abs(windowY - (bottom - ((bottom - top) * WINDOW) / Math.max(WINDOW, peak))) < 1e-6, `window line at ${windowY}`);
  assert.ok(byName.get('as-recorded')!.peakContextTokens > WINDOW, 'the recording read more than the window given');
  assert.ok(
    view.warnings.some((w) => w.includes(WINDOW.toLocaleString('en-US'))),
    view.warnings.join('; '),
  );
  assert.deepEqual(await page.locator('.replay-warnings li').allInnerTexts(), view.warnings);
  // The cost chart: the most expensive configuration ends at the top.
  const tops = await page.$$eval('svg[data-chart="cost"] .replay-series polyline', (els) =>
    els.map((p) => Number((p.getAttribute('points') ?? '').split(' ').at(-1)!.split(',')[1])),
  );
  const costs = view.configs.map((c) => c.points.at(-1)?.cumulativeCostUSD ?? 0);
  assert.equal(tops[costs.indexOf(Math.max(...costs))], 8);
  // The legend: each configuration's cost (as-recorded: its error vs recorded), compactions and recalls
  // (ledger recall "—" where the configuration carries no ledger).
  const legend = await page.locator('.replay-legend li').allInnerTexts();
  const pct = (x: number | null) => (x === null ? '—' : `${Math.round(x * 100)}%`);
  const signed = (x: number) => `${x < 0 ? '−' : '+'}${Math.abs(100 * x).toFixed(1)}%`;
  view.configs.forEach((c, i) => {
    const error = c.costErrorVsRecorded === null ? '' : ` \\(${literal(signed(c.costErrorVsRecorded))} vs recorded\\)`;
    assert.match(
      legend[i],
      new RegExp(
        `^${c.name} \\$${c.costUSD.toFixed(2)}${error} · ${c.compactions} compactions? · ` +
          `path recall ${pct(c.pathRecall)} · prompt recall ${pct(c.promptRecall)} · ledger recall ${pct(c.ledgerRecall)}`,
      ),
    );
  });
  assert.equal(byName.get('as-recorded')!.costErrorVsRecorded !== null, true, 'the as-recorded row has its error vs recorded');
  assert.equal(byName.get('claude-code-like')!.ledgerRecall, null, 'a baseline carries no ledger');
  assert.match(legend[series.findIndex((s) => s.name === 'no-compaction')], /window overflows at call/);
  // The window and where it comes from; the recorded cost at the recorded TTL.
  assert.equal(view.windowSource, 'user', 'the window the replay was given');
  assert.equal(
    await page.locator('[data-field="window"]').innerText(),
    `Window ${WINDOW.toLocaleString('en-US')} tokens (set by the user)`,
  );
  // This recording wrote nothing to the cache; one that did is priced at its TTL, and the view says which.
  const recordedLine = () => page.locator('.replay [data-field="recorded"]').innerText();
  assert.equal(view.recordedCacheWriteTokens, 0);
  assert.equal(await recordedLine(), `Recorded: $${view.recordedCostUSD!.toFixed(2)} (no cache writes recorded)`);
  await host.send({ type: 'replay', replay: { ...view, recordedCacheWriteTokens: 5_000, recordedTtl: '1h' } });
  await page.waitForFunction(() => document.querySelector('.replay [data-field="recorded"]')?.textContent?.includes('1-hour'));
  assert.equal(await recordedLine(), `Recorded: $${view.recordedCostUSD!.toFixed(2)} (cache writes priced at the recorded 1-hour TTL)`);
  // Series are told apart by colour (from the stylesheet, no inline style).
  const strokes = await page.$$eval('svg[data-chart="context"] .replay-line', (els) => els.map((e) => getComputedStyle(e).stroke));
  assert.equal(new Set(strokes).size, 5, `five colours: ${strokes.join(', ')}`);

  await page.locator('.replay').screenshot({ path: join(ARTIFACTS, 'inspector-replay.png') });
  const csp = await page.evaluate(() => (window as unknown as { __inspectorTest: { csp: string[] } }).__inspectorTest.csp);
  assert.deepEqual(csp, [], 'no CSP violations');
  assert.deepEqual(errors, [], 'no page errors');
  assert.deepEqual(host.malformed, []);

  // A replay for another file is not drawn over this one; the current session offers no replay.
  await host.send({ type: 'replay', replay: { ...view, source: '/elsewhere.jsonl', configs: view.configs.slice(0, 1) } });
  assert.equal(await page.locator('svg[data-chart="context"] .replay-series').count(), 5);
  await host.showSession({ messages: result.messages.slice(0, 4) });
  await page.waitForSelector('[data-action="replay"]', { state: 'detached' });
  await page.close();
});

test('the inspector refuses a malformed replay message', () => {
  const point = { call: 1, contextTokens: 10, cumulativeCostUSD: 0.1, compaction: false };
  const config = {
    name: 'x',
    calls: 1,
    compactions: 0,
    peakContextTokens: 10,
    costUSD: 0.1,
    pathRecall: 1,
    promptRecall: 0.5,
    ledgerRecall: null,
    costErrorVsRecorded: 0.004,
    stoppedAt: null,
    probeRecall: null,
    points: [point],
  };
  const frontierPoint = { name: 'x', costUSD: 0.1, probeRecall: null, onFrontier: false, marks: ['default', 'yours'] };
  const replay = {
    source: 'f',
    window: 100,
    windowSource: 'inferred-from-usage',
    recordedCalls: 1,
    recordedCostUSD: null,
    recordedTtl: '1h',
    recordedCacheWriteTokens: 12,
    configs: [config],
    frontier: [frontierPoint],
    yourSettings: { state: 'default', changed: [] },
    warnings: ['no price for claude-fable-5: priced as claude-sonnet'],
    notes: [],
  };
  const bad = (changes: Record<string, unknown>, configChanges: Record<string, unknown> = {}) =>
    parseHostToInspector({ type: 'replay', replay: { ...replay, ...changes, configs: [{ ...config, ...configChanges }] } });
  assert.ok(parseHostToInspector({ type: 'replay', replay }));
  assert.ok(bad({}, { ledgerRecall: 0.75, costErrorVsRecorded: null }), 'a ledger recall, no error vs recorded');
  assert.equal(bad({ window: 'big' }), null);
  assert.equal(bad({}, { points: [{ ...point, compaction: 1 }] }), null);
  assert.equal(bad({}, { stoppedAt: '3' }), null);
  assert.equal(bad({}, { ledgerRecall: '1' }), null);
  assert.equal(bad({}, { ledgerRecall: undefined }), null, 'ledgerRecall is a number or null, never absent');
  assert.equal(bad({}, { pathRecall: null }), null, 'every configuration has a path recall');
  assert.equal(bad({}, { promptRecall: 1.5 }), null, 'a recall is a fraction');
  assert.equal(bad({}, { costErrorVsRecorded: 'small' }), null);
  assert.equal(bad({ windowSource: 'guess' }), null);
  assert.equal(bad({ windowSource: undefined }), null);
  assert.equal(bad({ recordedTtl: '10m' }), null);
  assert.equal(bad({ recordedCacheWriteTokens: undefined }), null);
  assert.equal(bad({ warnings: [1] }), null);
  assert.equal(bad({ warnings: undefined }), null);
  assert.equal(parseHostToInspector({ type: 'replay' }), null);
  // The frontier: a probe rate is a fraction or null (nothing archived); marks are the default's and yours.
  assert.ok(bad({}, { probeRecall: 0.8 }), 'a probe rate');
  assert.equal(bad({}, { probeRecall: 1.2 }), null);
  assert.equal(bad({}, { probeRecall: undefined }), null, 'probeRecall is a number or null, never absent');
  const frontier = (changes: Record<string, unknown>) => bad({ frontier: [{ ...frontierPoint, ...changes }] });
  assert.ok(frontier({ probeRecall: 0.5, onFrontier: true, marks: [] }));
  assert.equal(frontier({ marks: ['mine'] }), null);
  assert.equal(frontier({ onFrontier: 'yes' }), null);
  assert.equal(frontier({ probeRecall: -0.1 }), null);
  assert.equal(bad({ frontier: undefined }), null);
  assert.ok(bad({ yourSettings: { state: 'invalid', changed: ['autoCompact.threshold'], error: 'bad' } }));
  assert.equal(bad({ yourSettings: { state: 'maybe', changed: [] } }), null);
  assert.equal(bad({ yourSettings: { state: 'default', changed: [3] } }), null);
  assert.equal(bad({ yourSettings: undefined }), null);
});
