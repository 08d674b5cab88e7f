// The inspector on a recording, in headless Chromium: the host is the real InspectorService over a
// synthetic Claude Code recording with two compactions and recorded usage. The page shows the
// contexts the compactions replaced (greyed, collapsed by default, expandable), a marker per
// compaction, the current context, artefacts in their own style, the recorded usage beside the o200k
// estimate and per call, and time travel: the selector puts the rows and the showing preview on the
// context as it stood just before a compaction.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { Message } from '../../src/core/conversation/conversation';
import { DEFAULT_PLAN_CONTEXT, type PlanContext } from '../../src/core/pipeline/plan';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';
import type { InspectorToHost } from '../../src/protocol';
import { archiveItems } from '../../webview/inspector/archive';
import { makeLayout, rowAt, rowTop, totalHeight } from '../../webview/inspector/layout';
import { lastRecordedInput, RECORDING_MODEL, syntheticRecording } from '../helpers/syntheticRecording';
import { openInspector, startInspectorHarness, type HarnessServer, type InspectorHarness } from './inspector-harness';
import { RecordingHost } from './inspector-recording-host';

const ARTIFACTS = join(import.meta.dirname ?? __dirname, '..', '..', 'test-artifacts');
const fmt = (n: number) => new Intl.NumberFormat('en-US').format(n);
const ids = (ms: readonly { id: string }[]) => ms.map((m) => m.id);

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

const ctx = (): PlanContext => ({
  ...DEFAULT_PLAN_CONTEXT,
  contextWindow: 200_000,
  tokens: new MemoizedMessageCounter(new CharEstimateTokenizer()),
});

async function open(theme: 'light' | 'dark' = 'dark') {
  const c = ctx();
  const opened = await openInspector(browser, server, c, theme, { width: 1280, height: 820 }, (page, pc) => new RecordingHost(page, pc));
  const host = opened.host as RecordingHost;
  const result = syntheticRecording(c.tokens);
  const file = { source: '/recordings/cipher-box.jsonl', result };
  await host.showRecording(file);
  await opened.page.waitForSelector(`.timeline[data-count="${result.messages.length}"] [role=option]`);
  return { ...opened, host, result, file };
}

async function assertClean(page: Page, host: RecordingHost, errors: string[]): Promise<void> {
  const csp = await page.evaluate(() => (window as unknown as { __inspectorTest: { csp: string[] } }).__inspectorTest.csp);
  assert.deepEqual(csp, [], 'no CSP violations');
  assert.deepEqual(errors, [], 'no page errors');
  assert.deepEqual(host.malformed, [], 'every post is a valid protocol message');
}

test('archived history geometry: headers and markers always, rows only when expanded; the rows start below it', () => {
  const c = ctx();
  const result = syntheticRecording(c.tokens);
  const segments = result.compactions.map((k, i) => ({
    compaction: {
      index: i + 1,
      agent: 'Claude Code',
      trigger: k.trigger,
      preTokens: k.preTokens,
      line: k.line,
      archivedCount: k.before.length,
      archivedTokens: 0,
      summaryCount: 1,
      summaryTokens: 0,
      summaryPreview: '',
    },
    rows: k.before.map((m, index) => ({ id: m.id, index, role: m.role, kind: 'user-prompt' as const, tokens: 1, turn: 0, preview: '' })),
  }));
  assert.deepEqual(
    archiveItems(segments, new Set()).map((i) => i.kind),
    ['header', 'marker', 'header', 'marker'],
  );
  const open2 = archiveItems(segments, new Set([2]));
  assert.equal(open2.length, 4 + result.compactions[1].before.length);
  assert.deepEqual(
    open2.filter((i) => i.kind === 'row').map((i) => (i.kind === 'row' ? i.row.id : '')),
    ids(result.compactions[1].before),
  );
  const layout = makeLayout(10, [{ index: 3, kind: 'current' }], 96);
  assert.equal(rowTop(layout, 0), 96);
  assert.equal(rowTop(layout, 3), 96 + 3 * 24 + 24);
  assert.equal(totalHeight(layout), 96 + 10 * 24 + 24);
  assert.equal(rowAt(layout, 10), 0, 'above the rows: the first row');
  assert.equal(rowAt(layout, rowTop(layout, 5) + 1), 5);
});

test('a recording: archived contexts greyed and collapsed, compaction markers, artefacts, recorded usage on the bar and per call', async () => {
  const { page, host, errors, result } = await open();
  // Collapsed by default: a header and a marker per recorded compaction, no archived rows.
  assert.equal(await page.locator('[data-archive-toggle]').count(), 2);
  assert.equal(await page.locator('.history-row').count(), 0);
  const markers = await page.locator('[data-marker="recorded-compaction"]').allInnerTexts();
  assert.equal(markers.length, 2);
  assert.match(markers[0], /Compaction 1 · Claude Code · auto · 167,000 tokens recorded before/);
  assert.match(markers[1], /Compaction 2 · Claude Code · manual · 98,500 tokens recorded before/);
  // The current context is what the timeline's rows are (what strategies plan on).
  const optionIds = await page.$$eval('[role=option]', (els) => els.map((e) => (e as HTMLElement).dataset.id));
  assert.deepEqual(optionIds, ids(result.messages));

  // Expand the first: its context appears, greyed; collapse it again.
  await page.click('[data-archive-toggle="1"]');
  await page.waitForSelector('.history-row[data-compaction="1"]');
  const archivedIds = await page.$$eval('.history-row[data-compaction="1"]', (els) =>
    els.map((e) => (e as HTMLElement).dataset.archivedId),
  );
  assert.deepEqual(archivedIds, ids(result.compactions[0].before));
  const opacity = await page.$eval('.history-row .preview', (el) => Number(getComputedStyle(el).opacity));
  assert.ok(opacity < 0.7, `archived rows are greyed (opacity ${opacity})`);
  assert.equal(await page.getAttribute('[data-archive-toggle="1"]', 'aria-expanded'), 'true');

  // Artefacts: their own kind and style, never a turn start.
  const artefact = page.locator('[role=option][data-kind="artefact"]');
  assert.equal(await artefact.count(), 1);
  assert.ok(!(await artefact.getAttribute('class'))!.includes('turn-start'));
  assert.equal(await artefact.locator('.preview').evaluate((el) => getComputedStyle(el).fontStyle), 'italic');

  // Recorded usage: the last call's real input beside the o200k estimate, marked on the bar.
  const recorded = lastRecordedInput(result.messages);
  const line = await page.locator('[data-stat="recorded"]').innerText();
  assert.ok(line.includes(fmt(recorded)) && line.includes(RECORDING_MODEL), line);
  assert.match(await page.locator('[data-stat="used"]').innerText(), /^o200k estimate: /);
  await page.waitForSelector('[data-marker="recorded"]');
  assert.match(await page.locator('.usage-legend').innerText(), /System prompt \+ tools \(fitted\)/);
  await page.screenshot({ path: join(ARTIFACTS, 'inspector-recording.png') });

  // Per call in the detail pane.
  const a3 = result.messages.find((m) => m.id === 'a3')!;
  await page.click('[role=option][data-id="a3"]');
  await page.waitForSelector('.detail[data-detail-id="a3"] [data-field="recorded-call"]');
  const stat = (k: string) => page.locator(`[data-stat="${k}"]`).innerText();
  assert.equal(await stat('call-input'), `${fmt(recorded)} input`);
  assert.equal(await stat('call-cache-read'), fmt(a3.usage!.cacheReadTokens));
  assert.equal(await stat('call-cache-creation'), fmt(a3.usage!.cacheCreationTokens));
  assert.equal(await stat('call-output'), fmt(a3.usage!.outputTokens));
  assert.equal(await stat('call-model'), RECORDING_MODEL);

  // An archived message opens in the detail pane too, labelled with the compaction that archived it.
  await page.click('.history-row[data-archived-id="r1"]');
  await page.waitForSelector('.detail[data-detail-id="r1"] [data-detail="original"]');
  assert.match(await page.locator('.detail .tag-archived').innerText(), /archived by compaction 1/);
  assert.match(await page.locator('.detail [data-detail="original"]').innerText(), /upload\.test\.ts line/);
  await page.screenshot({ path: join(ARTIFACTS, 'inspector-recording-expanded.png') });

  await page.click('[data-archive-toggle="1"]');
  await page.waitForFunction(() => document.querySelectorAll('.history-row').length === 0);
  await assertClean(page, host, errors);
  await page.close();
});

test('time travel: the selector shows the context before a compaction, and the showing preview follows it', async () => {
  const { page, host, errors, result, file } = await open('light');
  const nextPreview = (since: number) =>
    host.waitForPost((m): m is Extract<InspectorToHost, { type: 'preview' }> => m.type === 'preview', 5_000, since);
  const travel = (since: number) =>
    host.waitForPost((m): m is Extract<InspectorToHost, { type: 'timeTravel' }> => m.type === 'timeTravel', 5_000, since);
  const covered = (requestId: number) => {
    const v = host.views.get(requestId)!;
    return [...v.archivedIds, ...v.keptIds].sort();
  };
  const sorted = (ms: readonly Message[]) => ids(ms).sort();

  const options = await page.$$eval('#sp-context option', (els) => els.map((e) => e.textContent));
  assert.deepEqual(options, ['current', 'before compaction 1 (Claude Code, auto, 167K)', 'before compaction 2 (Claude Code, manual, 99K)']);

  // A preview on the current context.
  await page.fill('[data-strategy="sliding-window"] input[data-param="maxEvents"]', '2');
  let since = host.posted.length;
  await page.click('[data-strategy="sliding-window"] [data-action=preview]');
  const first = await nextPreview(since);
  await page.waitForSelector(`.plan-summary[data-request-id="${first.requestId}"]`);
  assert.deepEqual(covered(first.requestId), sorted(result.messages));

  // Travel to just before compaction 1: the rows are that context, the preview follows by itself.
  since = host.posted.length;
  await page.selectOption('#sp-context', '1');
  assert.deepEqual(await travel(since), { type: 'timeTravel', at: 1 });
  since = host.posted.length;
  await host.showRecording(file, 1);
  const followed = await nextPreview(since);
  assert.equal(followed.strategy, 'sliding-window');
  assert.deepEqual(followed.params, { maxEvents: 2 });
  await page.waitForSelector(`.plan-summary[data-request-id="${followed.requestId}"]`);
  assert.deepEqual(covered(followed.requestId), sorted(result.compactions[0].before), 'the plan is on the context before compaction 1');
  await page.waitForSelector(`.timeline[data-count="${result.compactions[0].before.length}"]`);
  assert.match(await page.locator('[data-field="time-travel"]').innerText(), /before compaction 1 \(Claude Code, auto, 167K\)/);
  assert.equal(await page.locator('[data-archive-toggle]').count(), 0, 'nothing was archived before compaction 1');
  assert.equal(await page.$eval('#sp-context', (el) => (el as HTMLSelectElement).value), '1');
  await page.waitForSelector('[data-marker="preview-split"]');
  await page.screenshot({ path: join(ARTIFACTS, 'inspector-time-travel.png') });

  // The side panel's list travels too; before compaction 2, compaction 1's context is archived above.
  since = host.posted.length;
  await page.click('[data-point="2"] [data-action="travel"]');
  assert.deepEqual(await travel(since), { type: 'timeTravel', at: 2 });
  since = host.posted.length;
  await host.showRecording(file, 2);
  const second = await nextPreview(since);
  await page.waitForSelector(`.plan-summary[data-request-id="${second.requestId}"]`);
  assert.deepEqual(covered(second.requestId), sorted(result.compactions[1].before));
  assert.equal(await page.locator('[data-archive-toggle]').count(), 1);

  // And back.
  since = host.posted.length;
  await page.click('[data-action="time-travel-back"]');
  assert.deepEqual(await travel(since), { type: 'timeTravel', at: null });
  await host.showRecording(file, null);
  await page.waitForSelector(`.timeline[data-count="${result.messages.length}"]`);
  assert.equal(await page.locator('[data-field="time-travel"]').count(), 0);
  await assertClean(page, host, errors);
  await page.close();
});
