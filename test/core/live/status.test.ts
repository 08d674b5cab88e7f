// liveStatus / liveCalls on the real fixtures (figures checked against the raw lines and the agents'
// recorded compactions) and on synthetic growth series (the calls-to-compaction logic).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Message, RecordedUsage } from '../../../src/core/conversation/conversation';
import { importSessionFile, type ImportResult } from '../../../src/core/importers';
import { agentOf, callsOf, growthPerCall, liveCalls, liveStatus, windowOf } from '../../../src/core/live/status';
import { recordedTimeline } from '../../../src/core/replay/recording';
import { sessionWindow } from '../../../src/core/importers/window';
import { recordedCallCostUSD } from '../../../src/core/cost/recordedCost';
import { CLAUDE_FIXTURES, CODEX_FIXTURES, FIXTURES, rawCallTokens } from './fakeHome';

test('agentOf and the agent configurations', () => {
  assert.equal(agentOf('claude-code-jsonl'), 'claude-code');
  assert.equal(agentOf('codex-rollout-jsonl'), 'codex');
  assert.equal(agentOf('splitpoint-jsonl'), 'splitpoint');
  assert.equal(agentOf('anthropic-json'), 'unknown');
});

for (const name of [...CLAUDE_FIXTURES, ...CODEX_FIXTURES]) {
  test(`liveStatus of ${name}: the recorded figures and the agent's own compaction point`, async () => {
    const file = join(FIXTURES, name);
    const codex = CODEX_FIXTURES.includes(name);
    const result = await importSessionFile(file);
    const s = liveStatus(result, file);
    const raw = rawCallTokens(readFileSync(file, 'utf8'), codex);
    assert.equal(s.agent, codex ? 'codex' : 'claude-code');
    assert.equal(s.agentConfig, codex ? 'codex-like' : 'claude-code-like');
    assert.equal(s.contextTokens, raw.at(-1), 'the last call as recorded');
    assert.equal(s.calls, raw.length);
    assert.equal(s.compactions, result.compactions.length);
    assert.equal(s.contextWindow, codex ? 258_400 : 200_000);
    assert.equal(s.windowSource, codex ? 'recorded' : 'model-table');
    // Claude Code: 200,000 - 20,000 - 13,000; Codex: 90% of 272,000 (the recorded 258,400 is 95% of it).
    assert.equal(s.compactAt, codex ? 244_800 : 167_000);
    assert.match(s.compactAtSource, codex ? /90%.*258,400.*272,000/ : /200,000.*20,000.*13,000/);
    const last = result.compactions.at(-1)!;
    assert.deepEqual(s.lastCompaction, {
      index: result.compactions.length,
      trigger: last.trigger,
      preTokens: last.preTokens,
      at: last.at ?? null,
      archivedMessages: last.before.length,
      archivedTokens: last.preTokens,
    });
    // The cost: every call priced as billed, summed.
    const calls = liveCalls(result);
    assert.equal(calls.length, raw.length);
    assert.deepEqual(
      calls.map((c) => c.contextTokens),
      raw,
    );
    assert.ok(s.costSoFar !== null && s.costSoFar > 1, `a long session costs dollars (${s.costSoFar})`);
    assert.equal(s.costSoFar, calls.at(-1)!.costSoFar);
    assert.ok(Math.abs(calls[0].costSoFar - recordedCallCostUSD(firstUsage(result), {}, calls[0].at ?? undefined).costUSD) < 1e-9);
    assert.equal(s.priceSource, 'table');
    assert.equal(s.callsToCompaction, calls.at(-1)!.callsToCompaction);
  });
}

function firstUsage(result: ImportResult): RecordedUsage {
  const contexts = [...result.compactions.map((c) => c.before), result.messages];
  for (const ctx of contexts) for (const m of ctx) if (m.role === 'assistant' && m.usage) return m.usage;
  throw new Error('no usage');
}

test("the recordings agree with the compaction points: Claude Code compacted past 167,000; Codex's calls stayed under 244,800", async () => {
  for (const name of CLAUDE_FIXTURES) {
    const result = await importSessionFile(join(FIXTURES, name));
    const { compactAt } = liveStatus(result);
    for (const c of result.compactions) assert.ok(c.preTokens !== null && c.preTokens >= compactAt!, `${name}: preTokens ${c.preTokens}`);
  }
  let over90OfRecorded = 0;
  for (const name of CODEX_FIXTURES) {
    const result = await importSessionFile(join(FIXTURES, name));
    const { compactAt, contextWindow } = liveStatus(result);
    const calls = liveCalls(result);
    for (const c of calls) assert.ok(c.contextTokens < compactAt!, `${name}: call ${c.call} read ${c.contextTokens}`);
    over90OfRecorded += calls.filter((c) => c.contextTokens > contextWindow * 0.9).length;
  }
  // Calls over 90% of the recorded (usable) window ran on without a compaction: Codex's limit is not that.
  assert.ok(over90OfRecorded > 0);
});

const CLAUDE = 'claude-opus-4-6';
let nextId = 0;

function call(tokens: number, model = CLAUDE): Message {
  const usage: RecordedUsage = { inputTokens: 10, cacheReadTokens: tokens - 110, cacheCreationTokens: 100, outputTokens: 50, model };
  return { id: `m${nextId++}`, role: 'assistant', content: [{ type: 'text', text: 'ok' }], usage };
}

function prompt(): Message {
  return { id: `m${nextId++}`, role: 'user', content: 'go on' };
}

function session(series: number[], format: ImportResult['format'] = 'claude-code-jsonl'): ImportResult {
  return { format, messages: series.flatMap((t) => [prompt(), call(t)]), compactions: [], warnings: [] };
}

test('calls to compaction: the median growth of the last five calls, 0 at the point, null when not growing', () => {
  const growing = liveStatus(session([10_000, 11_000, 12_000, 13_000, 14_000, 15_000]));
  assert.equal(growing.contextTokens, 15_000);
  assert.equal(growing.growthPerCall, 1_000);
  assert.equal(growing.callsToCompaction, Math.ceil((167_000 - 15_000) / 1_000));
  // One big tool output among steady growth: the median is the steady rate.
  assert.equal(growthPerCall([10_000, 11_000, 61_000, 62_000, 63_000, 64_000]), 1_000);
  // Only the last five deltas count.
  assert.equal(growthPerCall([0, 100_000, 100_010, 100_020, 100_030, 100_040, 100_050]), 10);
  assert.equal(liveStatus(session([50_000, 50_000, 50_000])).callsToCompaction, null, 'not growing');
  assert.equal(liveStatus(session([60_000, 55_000, 50_000])).growthPerCall, null, 'shrinking');
  assert.equal(liveStatus(session([50_000])).callsToCompaction, null, 'one call: no rate');
  assert.equal(liveStatus(session([160_000, 168_000])).callsToCompaction, 0, 'past the point');
  const codex = liveStatus({ ...session([100_000, 110_000, 120_000], 'codex-rollout-jsonl'), contextWindow: 258_400 });
  assert.equal(codex.callsToCompaction, Math.ceil((244_800 - 120_000) / 10_000));
});

test('liveCalls: each call with the figures as they stood right after it; growth restarts after a compaction', () => {
  const before = session([100_000, 120_000, 140_000, 160_000]);
  const after = session([30_000, 32_000]);
  const result: ImportResult = {
    format: 'claude-code-jsonl',
    messages: after.messages,
    compactions: [{ source: 'claude-code-jsonl', trigger: 'auto', preTokens: 168_000, line: 9, before: before.messages, summary: [] }],
    warnings: [],
  };
  const calls = liveCalls(result);
  assert.deepEqual(
    calls.map((c) => [c.call, c.contextTokens, c.growthPerCall, c.callsToCompaction, c.percent]),
    [
      [1, 100_000, null, null, 50],
      [2, 120_000, 20_000, 3, 60],
      [3, 140_000, 20_000, 2, 70],
      [4, 160_000, 20_000, 1, 80],
      [5, 30_000, null, null, 15],
      [6, 32_000, 2_000, 68, 16],
    ],
  );
  for (let i = 1; i < calls.length; i++) assert.ok(calls[i].costSoFar > calls[i - 1].costSoFar);
  assert.deepEqual(
    liveCalls(result, 4).map((c) => c.call),
    [5, 6],
  );
  const s = liveStatus(result);
  assert.equal(s.lastCompaction?.archivedMessages, 8);
  assert.equal(s.lastCompaction?.archivedTokens, 168_000);
  // Compacted, no call since: what the model holds now is unknown until the next call.
  const justCompacted = liveStatus({ ...result, messages: [prompt()] });
  assert.equal(justCompacted.contextTokens, null);
  assert.equal(justCompacted.callsToCompaction, null);
  assert.equal(justCompacted.calls, 4);
});

test("Splitpoint and unknown formats: no agent compaction point unless the caller knows Splitpoint's threshold", () => {
  const sp = session([10_000, 12_000], 'splitpoint-jsonl');
  assert.equal(liveStatus(sp).compactAt, null);
  assert.equal(liveStatus(sp).agentConfig, null);
  assert.equal(liveStatus(sp, undefined, { splitpointCompactAt: 20_000 }).callsToCompaction, 4);
  assert.equal(liveStatus(session([10_000], 'anthropic-json')).agent, 'unknown');
  const empty = liveStatus({ format: 'claude-code-jsonl', messages: [], compactions: [], warnings: [] });
  assert.deepEqual(
    [empty.contextTokens, empty.costSoFar, empty.priceSource, empty.calls, empty.lastCompaction],
    [null, null, null, 0, null],
  );
});

test("the calls liveStatus reads are the replay timeline's calls (listed in linear time)", async () => {
  for (const name of [...CLAUDE_FIXTURES, ...CODEX_FIXTURES]) {
    const result = await importSessionFile(join(FIXTURES, name));
    const timeline = recordedTimeline(result);
    assert.deepEqual(
      callsOf(result).map((c) => [c.messageId, c.usage, c.segment]),
      timeline.calls.map((c) => [timeline.messages[c.index].id, c.usage, c.segment]),
      name,
    );
    assert.deepEqual(windowOf(result, callsOf(result)), sessionWindow(result), name);
  }
});
