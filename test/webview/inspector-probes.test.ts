// Probes in the inspector (issue 22), in headless Chromium over the real InspectorService and a real
// recorded Claude Code session: the recorded compaction's marker shows its summary's answerable rate,
// Time travel lists its probes on demand, a preview shows "answerable A/T (P%)" beside tokens and cost
// (a summarizing one says its summary is not counted yet), "What is lost" lists the missed probes with
// their expected answer and a link that opens the source message; "Check this compaction" on the
// current session's compaction (in Past compactions, and on the summary row it wrote) posts its id; the
// ledger card shows facts kept on request.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importSession, type CompactionRecord } from '../../src/core';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';
import { DEFAULT_PLAN_CONTEXT, type PlanContext } from '../../src/core/pipeline/plan';
import type { ProbeScoreView } from '../../src/protocol';
import { RecordingHost } from './inspector-recording-host';
import { ARTIFACTS, assertClean, clickPreview, EXAMPLE, exampleCtx, inspectorPagesForFile, waitRowCount } from './inspector-support';

const FILE = 'test/fixtures/real-sessions/claude-code-cipher-box-c.jsonl';

const pages = inspectorPagesForFile();

const ctx = (): PlanContext => ({
  ...DEFAULT_PLAN_CONTEXT,
  contextWindow: 200_000,
  tokens: new MemoizedMessageCounter(new CharEstimateTokenizer()),
});
const rate = (v: ProbeScoreView) => `answerable ${v.answerable}/${v.total} (${Math.round((100 * v.answerable) / v.total)}%)`;

async function openRecording() {
  const opened = await pages.open(ctx(), 'dark', { width: 1400, height: 900 }, (page, pc) => new RecordingHost(page, pc));
  const host = opened.host as RecordingHost;
  const file = { source: FILE, result: importSession(readFileSync(FILE, 'utf8'), FILE) };
  await host.showRecording(file);
  await opened.page.waitForSelector(`.timeline[data-count="${file.result.messages.length}"] [role=option]`);
  return { ...opened, host, file };
}

test('a recorded compaction shows its summary answerable rate on its marker, and its probes on demand', async () => {
  const { page, host, errors } = await openRecording();
  const probes = host.session.archived![0].compaction.probes!;
  assert.ok(probes.total > 0 && probes.answerable < probes.total, 'fixture: the summary misses some probes');
  assert.equal((await page.textContent('[data-marker="recorded-compaction"] [data-stat="probes"]'))?.trim(), rate(probes));
  const item = page.locator('[data-point="1"] [data-section="recorded-probes"]');
  assert.equal((await item.locator('summary [data-stat="probes"]').textContent())?.trim(), rate(probes));
  assert.equal(await item.locator('.probe').first().isVisible(), false, 'the list is collapsed');
  await item.locator('summary').click();
  assert.equal(await item.locator('.probe').count(), probes.total);
  assert.equal(await item.locator('.probe-missed').count(), probes.total - probes.answerable);
  const missed = probes.probes.find((p) => !p.answerable)!;
  const li = item.locator(`[data-probe="${missed.id}"]`);
  assert.equal(await li.locator('.probe-question').textContent(), missed.question);
  assert.equal(await li.locator('.probe-expected').textContent(), missed.expected[0]);
  await item.scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(ARTIFACTS, 'inspector-probes-recorded.png') });
  await assertClean(page, host, errors);
  await page.close();
});

test('previews show the answerable rate beside tokens and cost, and the missed probes under What is lost with their source', async () => {
  const { page, host, errors } = await openRecording();
  await host.showRecording(host.file, 1);
  await waitRowCount(page, host.file.result.compactions[0].before.length);
  for (const strategy of ['recursive-summarization', 'sliding-window']) {
    const post = await clickPreview(page, host, strategy);
    const view = host.views.get(post.requestId)!;
    const probes = view.probes!;
    const shown = (await page.textContent('.plan-summary .plan-tokens [data-stat="probes"]'))?.trim();
    assert.equal(shown, rate(probes) + (probes.summaryCounted ? '' : '*'), strategy);
    assert.equal(probes.summaryCounted, !view.needsSummary);
    assert.equal(await page.locator('.plan-summary [data-stat="probes-note"]').count(), view.needsSummary ? 1 : 0, `${strategy}: the note`);
    if (view.needsSummary)
      assert.match(
        (await page.textContent('[data-stat="probes-note"]'))!,
        /summary is not written yet: the rate counts the ledger and the kept/,
      );
    const missed = probes.probes.filter((p) => !p.answerable);
    assert.ok(missed.length > 0, `fixture: ${strategy} misses some probes`);
    const list = page.locator('[data-section="lost"] [data-section="probes-missed"] .probe');
    assert.equal(await list.count(), missed.length, strategy);
    assert.equal(await list.first().locator('.probe-question').textContent(), missed[0].question);
    assert.equal(await list.first().locator('.probe-expected').textContent(), missed[0].expected[0]);
  }
  await page.screenshot({ path: join(ARTIFACTS, 'inspector-probes-preview.png') });
  await page.locator('[data-section="probes-missed"]').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(ARTIFACTS, 'inspector-probes-lost.png') });
  // The source link opens the message the fact comes from (a row of the context shown).
  const view = [...host.views.values()].at(-1)!;
  const missed = view.probes!.probes.find((p) => !p.answerable)!;
  const since = host.posted.length;
  await page.click(`[data-section="probes-missed"] [data-probe="${missed.id}"] [data-action="probe-source"]`);
  await host.waitForPost((m) => m.type === 'showMessage' && m.id === missed.sources[0], 5_000, since);
  await page.waitForSelector(`.detail[data-detail-id="${missed.sources[0]}"]`);
  await assertClean(page, host, errors);
  await page.close();
});

test('"Check this compaction" on the current session posts the compaction id; the ledger shows facts kept on request', async () => {
  const opened = await pages.open(exampleCtx());
  const { page, host, errors } = opened;
  const messages = EXAMPLE.slice(0, 40);
  const record: CompactionRecord = {
    id: 'cmp_checked',
    at: Date.UTC(2026, 10, 26),
    strategy: 'turn-window',
    params: {},
    trigger: 'manual',
    tokensBefore: 9_000,
    tokensAfter: 3_000,
    archivedCount: 12,
    truncatedCount: 0,
    transcriptPath: '/t/x.jsonl',
    syntheticId: messages[0].id,
    tailStartId: messages[1].id,
    resultLength: messages.length,
    ledger: {
      files: [],
      commands: [{ command: 'pnpm test', exitCode: 0, runs: 3 }],
      errors: [],
      instructions: [],
      facts: ['Which test failed? → leap.test.ts'],
      names: ['getShareKeys', '@Unique'],
    },
  };
  const undone: CompactionRecord = { ...record, id: 'cmp_undo', strategy: 'undo', trigger: 'undo', ledger: undefined };
  await host.showSession({ messages, compactions: [record, undone] });
  await waitRowCount(page, messages.length);
  assert.equal(await page.locator('[data-compaction="cmp_undo"] [data-action="check-compaction"]').count(), 0, 'not on an undo');
  const since = host.posted.length;
  await page.click('[data-compaction="cmp_checked"] [data-action="check-compaction"]');
  await host.waitForPost((m) => m.type === 'checkCompaction' && m.compactionId === 'cmp_checked', 5_000, since);
  // The summary row's detail shows the compaction's ledger, its facts included.
  await page.click('[role=option][data-index="0"]');
  await page.waitForSelector('.detail [data-card=ledger] [data-field="facts"] .ledger-fact');
  assert.equal(await page.textContent('.detail [data-field="facts"] .ledger-fact'), 'Which test failed? → leap.test.ts');
  // The names in use, and a command run again with its runs.
  assert.equal(await page.textContent('.detail [data-field="names"] .ledger-names'), 'getShareKeys, @Unique');
  assert.match((await page.textContent('.detail [data-field="commands"] .ledger-command')) ?? '', /pnpm test exit 0 · run 3 times/);
  // ... and offers the check of the compaction that wrote it.
  const since2 = host.posted.length;
  await page.click('.detail [data-action="check-compaction"]');
  await host.waitForPost((m) => m.type === 'checkCompaction' && m.compactionId === 'cmp_checked', 5_000, since2);
  // A read-only view (a recording) offers no check.
  await host.showSession({ messages, compactions: [record], readOnly: true });
  await page.waitForSelector('.app.read-only');
  assert.equal(await page.locator('[data-action="check-compaction"]').count(), 0);
  await assertClean(page, host, errors);
  await page.close();
});
