// The inspector's live-session strip in headless Chromium, over a real Claude Code session shown by the
// real InspectorService: the strip asks the host for its view when it mounts, shows the host's figures
// (following live, the context now of the window, the agent's compaction point and calls away, the cost,
// the last compaction), previews Claude Code's next compaction as recursive-summarization with the
// claude-code-like parameters (the store's own preview, answered with a plan), posts Continue in
// Splitpoint, ignores a malformed view and goes away when the host sends none.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { importSessionFile } from '../../src/core';
import { DEFAULT_PLAN_CONTEXT, type PlanContext } from '../../src/core/pipeline/plan';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';
import { liveViewOf } from '../../src/extension/liveView';
import type { HostToInspector, InspectorToHost, LiveView } from '../../src/protocol';
import { openInspector, startInspectorHarness, type HarnessServer, type InspectorHarness } from './inspector-harness';
import { RecordingHost } from './inspector-recording-host';
import type { Browser } from 'playwright-core';

const FILE = join(import.meta.dirname ?? __dirname, '..', 'fixtures', 'real-sessions', 'claude-code-cipher-box-a.jsonl');
const fmt = (n: number) => new Intl.NumberFormat('en-US').format(n);

let browser: Browser;
let server: HarnessServer;
let harness: InspectorHarness | undefined;

before(async () => {
  harness = await startInspectorHarness();
  ({ browser, server } = harness);
});

after(async () => {
  await harness?.close();
});

test('the strip shows the followed session at a glance, previews its agent’s next compaction and continues it', async () => {
  const ctx: PlanContext = {
    ...DEFAULT_PLAN_CONTEXT,
    contextWindow: 200_000,
    tokens: new MemoizedMessageCounter(new CharEstimateTokenizer()),
  };
  const opened = await openInspector(browser, server, ctx, 'dark', { width: 1280, height: 820 }, (page, c) => new RecordingHost(page, c));
  const { page, errors } = opened;
  const host = opened.host as RecordingHost;
  try {
    const result = await importSessionFile(FILE);
    const strip = page.locator('section.live-strip');
    const liveReady = host.waitForPost((m) => m.type === 'liveReady', 10_000);
    await host.showRecording({ source: FILE, result });
    await page.waitForSelector(`.timeline[data-count="${result.messages.length}"]`);
    await liveReady;
    assert.equal(await strip.count(), 0, 'no strip until the host sends its view');

    const live: LiveView = liveViewOf(FILE, result, { following: true, gone: false, updatedAt: Date.now() });
    const send = (m: unknown) => host.send(m as HostToInspector);
    await send({ type: 'live', live });
    await strip.waitFor();
    assert.equal(await strip.locator('[data-field="live-state"]').innerText(), 'Following live');
    const s = live.status;
    assert.ok(s.contextTokens !== null && s.compactAt !== null && s.lastCompaction !== null && s.costSoFar !== null, 'a full status');
    assert.equal(await strip.locator('[data-field="live-context"] strong').innerText(), fmt(s.contextTokens));
    assert.match(await strip.locator('[data-field="live-context"]').innerText(), new RegExp(`of ${fmt(s.contextWindow)} \\(\\d+%\\)`));
    assert.match(
      await strip.locator('[data-field="live-compact-at"]').innerText(),
      new RegExp(`Claude Code compacts at ${fmt(s.compactAt)}`),
    );
    assert.match(await strip.locator('[data-field="live-cost"]').innerText(), /^\$[\d.]+ so far · [\d,]+ calls$/);
    assert.match(
      await strip.locator('[data-field="live-last-compaction"]').innerText(),
      new RegExp(`Last compaction #1 \\(auto.*archived ${fmt(s.lastCompaction.archivedMessages)} messages`),
    );

    // Claude Code's next compaction: the store previews recursive-summarization with claude-code-like's parameters.
    const since = host.posted.length;
    await strip.locator('[data-action="preview-agent-compaction"]').click();
    const preview = (await host.waitForPost((m) => m.type === 'preview', 5_000, since)) as Extract<InspectorToHost, { type: 'preview' }>;
    assert.equal(preview.strategy, 'recursive-summarization');
    assert.equal(preview.params.maxEventsToKeep, 1);
    assert.equal(preview.params.overlapSize, 0);
    await page.locator('section.plan-summary[data-strategy="recursive-summarization"]').waitFor();

    await strip.locator('[data-action="continue-in-splitpoint"]').click();
    await host.waitForPost((m) => m.type === 'continueInSplitpoint', 5_000, since);

    // A malformed view is ignored (the strip keeps the last good one); none removes it.
    await send({ type: 'live', live: { ...live, status: { ...live.status, contextWindow: 'big' } } });
    await send({ type: 'live', live: { ...live, gone: true } });
    await strip.locator('[data-field="live-state"]', { hasText: 'File gone' }).waitFor();
    await send({ type: 'live', live: null });
    await strip.waitFor({ state: 'detached' });

    const csp = await page.evaluate(() => (window as unknown as { __inspectorTest: { csp: string[] } }).__inspectorTest.csp);
    assert.deepEqual(csp, [], 'no CSP violations');
    assert.deepEqual(errors, [], 'no page errors');
  } finally {
    await page.close();
  }
});
