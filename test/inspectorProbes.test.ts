// The inspector's probes (issue 22) on the real recorded sessions: each recorded compaction carries the
// answerable rate of what it archived, scored on what the recording kept (on its marker and its time-
// travel point), every preview carries the rate of what its plan would archive beside tokens and cost,
// and a missed probe links to a row the inspector shows. Expectations come from the recordings' raw
// lines (how many compactions the agent recorded, the text its summary holds), not from our own output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type InspectorService, type InspectedRecording } from '../src/agent/service/inspectorService';
import { CharEstimateTokenizer, importSession, MemoizedMessageCounter, microCompactedView, planWith } from '../src/core';
import { DEFAULT_PLAN_CONTEXT } from '../src/core/pipeline/plan';
import { buildInspectorSession } from '../src/inspector/inspectorModel';
import { planProbeView } from '../src/inspector/probeViews';
import type { ProbeScoreView } from '../src/protocol';
import { inspectorService } from './helpers/inspectorService';
import { withEventLoopTurns } from './helpers/async';

const DIR = 'test/fixtures/real-sessions';
const FIXTURES = [
  'claude-code-cipher-box-a.jsonl',
  'claude-code-cipher-box-b.jsonl',
  'claude-code-cipher-box-c.jsonl',
  'codex-agentv-a.jsonl',
  'codex-agentv-b.jsonl',
];

const service = (): InspectorService => inspectorService();

const open = (name: string): InspectedRecording => {
  const file = join(DIR, name);
  return { source: file, result: importSession(readFileSync(file, 'utf8'), file) };
};

/** Every string inside a value (a parsed JSONL record's summary part). */
function strings(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) strings(x, out);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) strings(x, out);
  return out;
}

/** The text of each compaction summary the agent recorded, in order, from the raw lines (Claude Code: isCompactSummary; Codex: compacted). */
function rawSummaries(name: string): string[] {
  return readFileSync(join(DIR, name), 'utf8')
    .split('\n')
    .filter((l) => l.includes('"isCompactSummary":true') || l.includes('"type":"compacted"'))
    .map((l) => JSON.parse(l) as { message?: { content?: unknown }; payload?: { replacement_history?: unknown; message?: unknown } })
    .map((j) => strings(j.message?.content ?? j.payload?.replacement_history ?? j.payload?.message).join('\n'));
}

const squash = (s: string) => s.toLowerCase().replace(/\s+/g, ' ');

function assertConsistent(v: ProbeScoreView, what: string): void {
  assert.ok(v.total > 0, `${what}: has probes`);
  assert.equal(v.total, v.probes.length, what);
  assert.equal(v.answerable, v.probes.filter((p) => p.answerable).length, what);
  assert.equal(v.recall, v.answerable / v.total, what);
  for (const p of v.probes) assert.ok(p.question !== '' && p.expected.length > 0 && p.sources.length > 0, `${what}: ${p.id} is complete`);
}

for (const name of FIXTURES) {
  test(`inspector probes: ${name}: each recorded compaction shows its summary's answerable rate, its missed facts absent from the summary`, () => {
    const rec = open(name);
    const summaries = rawSummaries(name);
    const view = service().sessionFor(rec);
    assert.equal(view.archived?.length, summaries.length, 'one archived segment per compaction the agent recorded');
    assert.equal(view.timeTravel?.points.length, summaries.length);
    view.archived!.forEach((segment, k) => {
      const probes = segment.compaction.probes!;
      assertConsistent(probes, `compaction ${k + 1}`);
      assert.equal(probes.summaryCounted, true, 'the recorded summary is counted');
      assert.deepEqual(view.timeTravel!.points[k].probes, probes, 'the time-travel point carries the same score');
      const summary = squash(summaries[k]);
      for (const p of probes.probes.filter((x) => !x.answerable))
        for (const e of p.expected) assert.ok(!summary.includes(squash(e)), `${p.id} is missed, yet the summary says "${e}"`);
      // Each probe's source is a row the inspector shows (the context that compaction replaced): its link resolves.
      const rows = new Set(segment.rows.map((r) => r.id));
      for (const p of probes.probes) assert.ok(rows.has(p.sources[0]), `${p.id}'s source ${p.sources[0]} is a row of segment ${k + 1}`);
    });
  });
}

test('inspector probes: a preview carries the answerable rate of what it archives; a summarizing one says its summary is not counted', () => {
  const rec = open('claude-code-cipher-box-c.jsonl');
  const s = service();
  const before = rec.result.compactions[0].before;
  const text = new Map(before.map((m) => [m.id, squash(JSON.stringify(m.content))]));
  for (const strategy of ['sliding-window', 'recent-turns', 'recursive-summarization']) {
    const view = s.preview(strategy, {}, 1, { file: rec, at: 1 });
    assert.equal(view.noop, false, strategy);
    const probes = view.probes!;
    assertConsistent(probes, strategy);
    assert.equal(probes.summaryCounted, !view.needsSummary, `${strategy}: summaryCounted`);
    const archived = new Set(view.archivedIds);
    for (const p of probes.probes) assert.ok(archived.has(p.sources[0]), `${strategy}: ${p.id} comes from an archived message`);
    // A missed fact is in none of the messages the plan keeps whole (a truncated one keeps only part of its text).
    const truncated = new Set(view.truncated.map((t) => t.id));
    const kept = view.keptIds
      .filter((id) => !truncated.has(id))
      .map((id) => text.get(id) ?? '')
      .join('\n');
    for (const p of probes.probes.filter((x) => !x.answerable))
      for (const e of p.expected) assert.ok(!kept.includes(squash(e)), `${strategy}: ${p.id} is missed, yet a kept message says "${e}"`);
  }
  // Split here: the same rate on the split-at plan, its probes from before the chosen message.
  const at = before[Math.floor(before.length / 2)];
  const split = s.preview('split-at', {}, 2, { file: rec, at: 1 }, at.id);
  assertConsistent(split.probes!, 'split here');
  assert.ok(split.probes!.probes.every((p) => split.archivedIds.includes(p.sources[0])));
});

test('inspector probes: the first, estimated paint of a recording goes without probes; the exact one has them', () => {
  const rec = open('claude-code-cipher-box-a.jsonl');
  const s = service();
  const estimated = s.sessionFor({ ...rec, counter: new MemoizedMessageCounter(new CharEstimateTokenizer()) });
  assert.equal(estimated.archived?.[0].compaction.probes, undefined);
  assert.equal(estimated.timeTravel?.points[0].probes, undefined);
  assert.ok(s.sessionFor(rec).archived?.[0].compaction.probes);
});

test('inspector probes: a live preview is scored on what the model would see of its output (the micro-compacted view)', () => {
  const rec = open('codex-agentv-a.jsonl');
  const history = rec.result.compactions[0].before;
  const ctx = { ...DEFAULT_PLAN_CONTEXT, tokens: new MemoizedMessageCounter(new CharEstimateTokenizer()), ledger: true };
  const plan = planWith('sliding-window', history, {}, ctx);
  const plain = planProbeView(history, plan)!;
  assert.ok(plain.answerable > 0, 'fixture: the kept messages answer some probes');
  assert.deepEqual(
    planProbeView(history, plan, (o) => o),
    plain,
    'the output itself: the same score',
  );
  const nothing = planProbeView(history, plan, () => [])!;
  assert.deepEqual([nothing.answerable, nothing.total], [0, plain.total], 'a view that shows nothing answers nothing');
  // Micro-compaction clears old tool results: the view answers at most what the output does.
  const micro = planProbeView(history, plan, (o) => microCompactedView(o, { keepRecent: 1, minChars: 10 }, ctx))!;
  assert.ok(micro.answerable <= plain.answerable);
  for (const p of micro.probes) if (p.answerable) assert.ok(plain.probes.find((q) => q.id === p.id)?.answerable, p.id);
});

test('inspector probes: a plan that archives nothing carries no probes', () => {
  const rec = open('codex-agentv-a.jsonl');
  const view = service().preview('sliding-window', { maxEvents: 1_000_000 }, 1, { file: rec, at: null });
  assert.equal(view.noop, true);
  assert.equal(view.probes, undefined);
});

test('inspector: a compaction record with facts kept on request shows them in its ledger', () => {
  const ctx = { ...DEFAULT_PLAN_CONTEXT, tokens: new MemoizedMessageCounter(new CharEstimateTokenizer()) };
  const ledger = { files: [], commands: [], errors: [], instructions: ['fix it'], facts: ['Which test failed? → parser.test.ts'] };
  const record = {
    id: 'cmp_1',
    at: 1,
    strategy: 'turn-window',
    params: {},
    trigger: 'manual' as const,
    tokensBefore: 10,
    tokensAfter: 5,
    archivedCount: 2,
    truncatedCount: 0,
    transcriptPath: '/t/x.jsonl',
    syntheticId: 'syn',
    tailStartId: 'u2',
    resultLength: 2,
    ledger,
  };
  const view = buildInspectorSession({
    source: 'Current session',
    readOnly: false,
    sessionId: 's',
    title: 't',
    messages: [],
    effective: [],
    compactions: [record],
    ctx,
    overhead: { system: 0, tools: 0 },
    autoCompactThreshold: null,
    canUndo: true,
    tailStartId: null,
  });
  assert.deepEqual(view.compactions[0].ledger?.facts, ['Which test failed? → parser.test.ts']);
});

test('a recording is scored ahead in slices (prepareRecording): the counted view shows the same scores as one computed at once', async () => {
  const expected = service().sessionFor(open('codex-agentv-b.jsonl'));
  const rec = open('codex-agentv-b.jsonl');
  const s = service();
  // The event loop gets turns while the recorded compaction's probes are generated.
  const { turns } = await withEventLoopTurns(() => s.prepareRecording(rec.result));
  assert.ok(turns > 1, `the event loop had ${turns} turn(s) while the probes were generated`);
  const view = s.sessionFor(rec);
  assert.ok(view.archived!.length > 0);
  assert.deepEqual(
    view.archived!.map((a) => a.compaction.probes),
    expected.archived!.map((a) => a.compaction.probes),
  );
});
