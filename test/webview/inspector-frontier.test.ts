// The replay's frontier (issue 25), in headless Chromium: the real replay of a real Claude Code session
// (test/fixtures/real-sessions/) under the built-ins and the user's settings (a threshold of 50%, so it
// compacts) draws every configuration as a point, cost against probe answerable rate; configurations
// that archived nothing sit on their own row, neither at 0 nor at 100%; the shipped default and the
// user's settings are marked; each point is said in words; colours come from the stylesheet (no CSP
// violation); and with the user's settings at the defaults, the default's point is marked as theirs.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { importSessionFile } from '../../src/core/index';
import { DEFAULT_PLAN_CONTEXT, type PlanContext } from '../../src/core/pipeline/plan';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';
import { runInspectorReplay } from '../../src/inspector/inspectorReplay';
import { shippedSettings } from '../../src/settings/schema';
import { yourSettingsConfig } from '../../src/settings/yourSettings';
import { openInspector, startInspectorHarness, type HarnessServer, type InspectorHarness } from './inspector-harness';
import { RecordingHost } from './inspector-recording-host';

const ARTIFACTS = join(import.meta.dirname ?? __dirname, '..', '..', 'test-artifacts');
const FIXTURE = 'test/fixtures/real-sessions/claude-code-cipher-box-a.jsonl';

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

const ctx = (): PlanContext => ({ ...DEFAULT_PLAN_CONTEXT, tokens: new MemoizedMessageCounter(new CharEstimateTokenizer()) });
/** The chart's rate axis: 100% at y 10, 0% at y 112; the "nothing archived" row at y 134; x from 46 + 12 to 320 - 34 (ReplayFrontier.tsx). */
const yOfRate = (rate: number) => 112 - rate * (112 - 10);
const NONE_ROW = 134;

test('the frontier: every configuration a point, cost against probe rate, nothing-archived apart, default and yours marked', async () => {
  const result = await importSessionFile(FIXTURE);
  const yours = yourSettingsConfig(shippedSettings(new Map<string, unknown>([['autoCompact.threshold', 0.4]])));
  assert.equal(yours.state, 'replayed');
  const view = await runInspectorReplay(FIXTURE, result, { yours });
  const byName = new Map(view.frontier.map((p) => [p.name, p]));
  // The engine did what the chart is about: the defaults archive nothing here, your settings compact.
  assert.equal(byName.get('splitpoint-default')!.probeRecall, null);
  assert.ok(byName.get('your-settings')!.probeRecall !== null, 'your settings compacted: a probe rate');
  assert.ok(view.frontier.some((p) => p.onFrontier));

  const opened = await openInspector(
    browser,
    server,
    ctx(),
    'light',
    { width: 1280, height: 1600 },
    (page, pc) => new RecordingHost(page, pc),
  );
  const { page, errors } = opened;
  const host = opened.host as RecordingHost;
  await host.showRecording({ source: FIXTURE, result });
  await page.waitForSelector('[data-action="replay"]');
  const asked = host.waitForPost((m) => m.type === 'replay');
  await page.click('[data-action="replay"]');
  await asked;
  await host.send({ type: 'replay', replay: view });
  await page.waitForSelector('svg[data-chart="frontier"] .frontier-point');

  const drawn = await page.$$eval('svg[data-chart="frontier"] .frontier-point', (els) =>
    els.map((g) => ({
      name: (g as SVGGElement).dataset.config!,
      rate: (g as SVGGElement).dataset.rate!,
      marks: (g as SVGGElement).dataset.marks!,
      onFrontier: g.classList.contains('on-frontier'),
      cx: Number(g.querySelector('.frontier-dot')!.getAttribute('cx')),
      cy: Number(g.querySelector('.frontier-dot')!.getAttribute('cy')),
      ring: g.querySelector('.frontier-mark-default') !== null,
      diamond: g.querySelector('.frontier-mark-yours') !== null,
      stroke: getComputedStyle(g.querySelector('.frontier-dot')!).fill,
    })),
  );
  assert.deepEqual(
    drawn.map((d) => d.name),
    view.configs.map((c) => c.name),
    'one point per configuration',
  );
  assert.equal(drawn.length, 6);
  for (const d of drawn) {
    const p = byName.get(d.name)!;
    if (p.probeRecall === null) {
      assert.equal(d.rate, 'none');
      assert.equal(d.cy, NONE_ROW, `${d.name}: on the nothing-archived row, not at 0% (${yOfRate(0)}) or 100%`);
    } else assert.ok(Math.abs(d.cy - yOfRate(p.probeRecall)) < 1e-6, `${d.name}: y ${d.cy} for ${p.probeRecall}`);
    assert.equal(d.onFrontier, p.onFrontier, d.name);
    assert.equal(d.marks, p.marks.join(' '));
    assert.equal(d.ring, d.name === 'splitpoint-default', `${d.name}: the shipped default is ringed`);
    assert.equal(d.diamond, d.name === 'your-settings', `${d.name}: your settings are marked`);
  }
  // x is the cost: the cheapest at the left end, the dearest at the right.
  const cheapest = view.frontier.reduce((a, b) => (b.costUSD < a.costUSD ? b : a));
  const dearest = view.frontier.reduce((a, b) => (b.costUSD > a.costUSD ? b : a));
  assert.equal(drawn.find((d) => d.name === cheapest.name)!.cx, 46 + 12);
  assert.equal(drawn.find((d) => d.name === dearest.name)!.cx, 320 - 34);
  assert.ok(new Set(drawn.map((d) => d.stroke)).size >= 5, 'coloured per configuration by the stylesheet');
  // Said in words: the chart's label and one line per point; what your settings are.
  const label = await page.getAttribute('svg[data-chart="frontier"]', 'aria-label');
  const on = view.frontier.filter((p) => p.onFrontier).length;
  const none = view.frontier.filter((p) => p.probeRecall === null).length;
  assert.equal(label, `Cost against probe answerable rate for 6 configurations: ${on} on the frontier, ${none} archived nothing (no rate)`);
  const lines = await page.locator('.frontier-list li').allInnerTexts();
  assert.match(
    lines[view.frontier.indexOf(byName.get('splitpoint-default')!)],
    /^splitpoint-default: \$\d+\.\d\d · nothing archived \(no probe rate\) · shipped default$/,
  );
  const yoursRate = Math.round(byName.get('your-settings')!.probeRecall! * 100);
  assert.match(
    lines[view.frontier.indexOf(byName.get('your-settings')!)],
    new RegExp(`^your-settings: \\$\\d+\\.\\d\\d · probe rate ${yoursRate}%.* · your settings$`),
  );
  assert.equal(
    await page.locator('[data-field="your-settings"]').innerText(),
    'your-settings: your settings (splitpoint.autoCompact.threshold changed; the rest at the defaults).',
  );
  await page.locator('.replay').screenshot({ path: join(ARTIFACTS, 'inspector-replay-frontier.png') });

  // Settings at the defaults: no your-settings configuration; the default's point is theirs.
  const atDefaults = await runInspectorReplay(FIXTURE, result, { yours: yourSettingsConfig(shippedSettings()) });
  assert.equal(atDefaults.frontier.length, 5);
  await host.send({ type: 'replay', replay: atDefaults });
  await page.waitForFunction(() => document.querySelectorAll('svg[data-chart="frontier"] .frontier-point').length === 5);
  const def = page.locator('svg[data-chart="frontier"] .frontier-point[data-config="splitpoint-default"]');
  assert.equal(await def.getAttribute('data-marks'), 'default yours');
  assert.equal(await def.locator('.frontier-label').textContent(), 'default = yours');
  assert.equal(
    await page.locator('[data-field="your-settings"]').innerText(),
    'Your compaction settings are the shipped defaults: splitpoint-default is yours.',
  );
  const csp = await page.evaluate(() => (window as unknown as { __inspectorTest: { csp: string[] } }).__inspectorTest.csp);
  assert.deepEqual(csp, [], 'no CSP violations');
  assert.deepEqual(errors, [], 'no page errors');
  assert.deepEqual(host.malformed, []);
  await page.close();
});
