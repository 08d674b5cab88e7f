// `splitpoint probe` on the built CLI (issue 22 item 6) and `replay --json`'s probeRecall (item 5):
// the JSON contract (probes[{id, kind, question, expected, sources, answerable}], recall, recallByKind),
// --at N alone (the recording's own summary), --at N --strategy NAME (the same probes on the plan),
// --strategy NAME alone (the plan on the current context), the text form, exit 2 naming bad input, and
// as-recorded's probeRecall equal to the mean of the recorded compactions' rates.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runBuilt, runJson, scratchDir } from './builtCli';
import { REAL_SESSIONS } from './realSessions';

const KINDS = ['artifact', 'recall', 'decision', 'continuation'];
const PROBE_KEYS = ['id', 'kind', 'question', 'expected', 'sources', 'answerable'];

interface ProbeJson {
  at: number | null;
  strategy: string | null;
  scoredOn: string;
  summaryCounted: boolean;
  probes: Array<{ id: string; kind: string; question: string; expected: string[]; sources: string[]; answerable: boolean }>;
  recall: number | null;
  recallByKind: Record<string, number | null>;
  recordedRecall: number | null;
  note: string | null;
}

function assertContract(j: ProbeJson, label: string): void {
  assert.ok(j.probes.length > 0, label);
  for (const p of j.probes) {
    for (const k of PROBE_KEYS) assert.ok(k in p, `${label}: probe missing ${k}`);
    assert.ok(KINDS.includes(p.kind), p.kind);
    assert.ok(/^p-/.test(p.id) && typeof p.question === 'string' && p.expected.length > 0 && p.sources.length > 0, label);
    assert.equal(typeof p.answerable, 'boolean');
  }
  const answerable = j.probes.filter((p) => p.answerable).length;
  assert.equal(j.recall, answerable / j.probes.length, `${label}: recall is the answerable share`);
  assert.deepEqual(Object.keys(j.recallByKind).sort(), [...KINDS].sort(), label);
  for (const k of KINDS) {
    const of = j.probes.filter((p) => p.kind === k);
    assert.equal(j.recallByKind[k], of.length === 0 ? null : of.filter((p) => p.answerable).length / of.length, `${label} ${k}`);
  }
}

test('probe --at 1, with and without --strategy, and --strategy alone (a plan that archives, one that does not)', async () => {
  const file = REAL_SESSIONS[0].file;
  const [recorded, onPlan, current, noop] = await Promise.all([
    runJson<ProbeJson>('probe', file, '--at', '1', '--json'),
    runJson<ProbeJson>('probe', file, '--at', '1', '--strategy', 'recursive-summarization', '--json'),
    runJson<ProbeJson>('probe', file, '--strategy', 'sliding-window', '--json'),
    runJson<ProbeJson>('probe', file, '--strategy', 'recent-turns', '--json'),
  ]);
  assertContract(recorded, '--at 1');
  assert.equal(recorded.scoredOn, 'recorded');
  assert.ok(recorded.probes.length >= 20 && new Set(recorded.probes.map((p) => p.kind)).size === 4);
  assertContract(onPlan, '--at 1 --strategy');
  assert.deepEqual(
    onPlan.probes.map((p) => p.id),
    recorded.probes.map((p) => p.id),
    'the same probes, scored on the plan',
  );
  assert.equal(onPlan.recordedRecall, recorded.recall);
  assert.equal(onPlan.summaryCounted, false, 'a summarizing plan has no summary offline');
  assert.match(onPlan.note ?? '', /ledger and kept messages/);
  assertContract(current, '--strategy alone');
  assert.equal(current.at, null);
  assert.equal(current.summaryCounted, true, 'sliding-window writes no summary');
  // The current context is small for recent-turns: it archives nothing, so there is nothing to ask.
  assert.deepEqual([noop.probes.length, noop.recall], [0, null]);
  assert.match(noop.note ?? '', /changes nothing/);

  const text = await runBuilt('probe', file, '--at', '1');
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, new RegExp(`^answerable ${Math.round(100 * recorded.recall!)}%`, 'm'));
  const lines = text.stdout.split('\n');
  for (const p of recorded.probes)
    assert.ok(
      lines.some((l) => l.startsWith(p.answerable ? '+ ' : '- ') && l.includes(p.question)),
      p.id,
    );
});

test('probe: bad input exits 2 naming what is wrong', async () => {
  const dir = await scratchDir();
  const broken = join(dir, 'broken.jsonl');
  writeFileSync(broken, '{"type":"user"\n');
  const codexB = REAL_SESSIONS[3].file;
  const cases: Array<[string[], RegExp]> = [
    [['probe', codexB, '--at', '9', '--json'], /--at 9: .*codex-agentv-b\.jsonl has 2 recorded compactions \(--at takes 1\.\.2\)/],
    [['probe', codexB, '--strategy', 'no-such-strategy'], /no-such-strategy/],
    [['probe', codexB], /probe needs --at N .* or --strategy NAME/],
    [['probe', codexB, '--at', '0'], /--at must be a positive integer, got "0"/],
    [['probe', join(dir, 'missing.jsonl'), '--at', '1'], /missing\.jsonl: file not found/],
    [['probe', broken, '--at', '1'], /broken\.jsonl:1/],
    [['probe', codexB, '--at', '1', '--pin', 'x'], /probe does not take --pin/],
    [['probe', '--at', '1'], /probe needs exactly one FILE/],
  ];
  for (const [args, message] of cases) {
    const r = await runBuilt(...args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stdout, '', args.join(' '));
    assert.match(r.stderr, message, args.join(' '));
  }
});

test('replay --json: probeRecall per configuration, probeNote, as-recorded the mean of the recorded compactions', async () => {
  const file = REAL_SESSIONS[3].file;
  const replay = await runJson<{ probeNote: string; configs: Array<{ name: string; compactions: number; probeRecall: number | null }> }>(
    'replay',
    file,
    '--config',
    'as-recorded',
    '--config',
    'no-compaction',
    '--config',
    'claude-code-like',
    '--json',
  );
  assert.match(replay.probeNote, /stand-in summaries count for nothing/i);
  const byName = new Map(replay.configs.map((c) => [c.name, c]));
  const asRecorded = byName.get('as-recorded')!;
  const perCompaction = await Promise.all(
    Array.from({ length: asRecorded.compactions }, (_, k) => runJson<ProbeJson>('probe', file, '--at', String(k + 1), '--json')),
  );
  const mean = perCompaction.reduce((sum, j) => sum + j.recall!, 0) / perCompaction.length;
  assert.ok(Math.abs(asRecorded.probeRecall! - mean) < 1e-12, `${asRecorded.probeRecall} vs ${mean}`);
  assert.equal(byName.get('no-compaction')!.probeRecall, null, 'no compaction, no probe recall');
  const cc = byName.get('claude-code-like')!;
  assert.ok(cc.compactions > 0 && cc.probeRecall !== null && cc.probeRecall >= 0 && cc.probeRecall <= 1);
});
