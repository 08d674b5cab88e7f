// Probes on the real recorded sessions (test/fixtures/real-sessions): for each recorded compaction, at
// least 20 probes covering the four kinds, the same on a second import, each fact found in the raw
// recording and sourced from a message the compaction archived; the recorded summary's answerable rate;
// and the shipped default strategy (splitpoint-default's auto-compact strategy and parameters) planned on
// the same context just before the compaction, scored on the same probes. The default summarizes: offline
// it has no summary text, so its request counts its ledger and kept messages (a floor). Prints both rates.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createTokenizer,
  DEFAULT_PLAN_CONTEXT,
  DEFAULT_TOKENIZER,
  importSession,
  MemoizedMessageCounter,
  PROBE_KINDS,
  recordedCompactionProbes,
  resolveStrategy,
  scoreProbes,
  sessionWindow,
  textOf,
  type ImportResult,
  type ProbeKind,
} from '../../src/core/index';
import { recordedAfter, recordedArchived } from '../../src/core/probes';
import { loadReplayConfig } from '../../src/settings/replayConfigs';

const DIR = join(__dirname, '..', 'fixtures', 'real-sessions');
const FILES = readdirSync(DIR).filter((f) => f.endsWith('.jsonl'));
const rate = (x: number | null) => (x === null ? '-' : `${Math.round(100 * x)}%`);

function load(file: string): { raw: string; session: ImportResult } {
  const raw = readFileSync(join(DIR, file), 'utf8');
  return { raw, session: importSession(raw, file) };
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A string as it appears inside the recording's JSON (JSON-escaped; a space matches any run of whitespace or escaped newlines and tabs). */
function inRaw(raw: string, s: string): boolean {
  const words = s.split(/\s+/).filter((w) => w !== '');
  const pattern = words.map((w) => escapeRe(JSON.stringify(w).slice(1, -1))).join('(?:\\s|\\\\[ntr])+');
  return new RegExp(pattern).test(raw);
}

test('the real sessions are all here, each with recorded compactions', () => {
  assert.ok(FILES.length >= 5, FILES.join(', '));
  for (const f of FILES) {
    const boundaries = readFileSync(join(DIR, f), 'utf8')
      .split('\n')
      .filter((l) => l.includes('"subtype":"compact_boundary"') || l.includes('"type":"compacted"')).length;
    assert.equal(load(f).session.compactions.length, boundaries, f);
  }
});

for (const file of FILES) {
  test(`probes of ${file}: ≥20 per compaction over the four kinds, deterministic, facts from the recording`, () => {
    const { raw, session } = load(file);
    const again = load(file).session;
    for (let n = 1; n <= session.compactions.length; n++) {
      const label = `${file} compaction ${n}`;
      const { probes, score } = recordedCompactionProbes(session, n);
      assert.ok(probes.length >= 20 && probes.length <= 30, `${label}: ${probes.length} probes`);
      const kinds = new Set(probes.map((p) => p.kind));
      assert.deepEqual([...kinds].sort(), [...PROBE_KINDS].sort(), `${label}: every kind`);
      assert.deepEqual(recordedCompactionProbes(again, n).probes, probes, `${label}: same input, same probes`);
      assert.equal(new Set(probes.map((p) => p.id)).size, probes.length, `${label}: unique ids`);
      const archivedIds = new Set(recordedArchived(session, n - 1).map((m) => m.id));
      for (const p of probes) {
        assert.ok(p.sources.length > 0 && p.sources.every((id) => archivedIds.has(id)), `${label} ${p.id}: sources archived`);
        // An expected answer is a fact of the recording (a path, command, prompt clause, name, …), not ours.
        assert.ok(
          p.expected.some((e) => inRaw(raw, e)),
          `${label} ${p.id}: ${JSON.stringify(p.expected)} not in the recording`,
        );
        for (const e of p.expected) assert.ok(!p.question.toLowerCase().includes(e.toLowerCase()), `${label} ${p.id}: asks its answer`);
      }
      // The score, checked against the recorded summary's own text: an answerable probe's answer is in
      // what the recording kept; an unanswerable one's, as written, is not.
      const kept = recordedAfter(session, n - 1)
        .received.map((m) => textOf(m))
        .join('\n')
        .toLowerCase()
        .replace(/\s+/g, ' ');
      for (const p of score.probes)
        if (!p.answerable) for (const e of p.expected) assert.ok(!kept.includes(e.toLowerCase().replace(/\s+/g, ' ')), `${label} ${p.id}`);
      assert.ok(
        score.probes.some((p) => p.answerable),
        `${label}: the recorded summary answers some probes`,
      );
    }
  });
}

const LEDGER_KINDS: ProbeKind[] = ['artifact', 'decision', 'continuation'];

test('the shipped default strategy, planned just before each recorded compaction, against the recorded summary', () => {
  const config = loadReplayConfig('splitpoint-default', (f) => readFileSync(f, 'utf8'));
  const { strategy, params } = config.pipeline.autoCompact;
  const lines: string[] = [
    `shipped default: ${strategy} ${JSON.stringify(params)} (no summary offline: its ledger and kept messages count)`,
  ];
  for (const file of FILES) {
    const { session } = load(file);
    for (let n = 1; n <= session.compactions.length; n++) {
      const { probes, score: recorded } = recordedCompactionProbes(session, n);
      const ctx = {
        ...DEFAULT_PLAN_CONTEXT,
        contextWindow: sessionWindow(session, undefined).window,
        tokens: new MemoizedMessageCounter(createTokenizer(DEFAULT_TOKENIZER)),
        ledger: true,
      };
      const plan = resolveStrategy(strategy, params).plan(session.compactions[n - 1].before, ctx);
      assert.equal(plan.noop, false, `${file} ${n}: the default compacts the context the recording compacted`);
      const shipped = scoreProbes(probes, plan.output);
      const byKind = PROBE_KINDS.map((k) => `${k} ${probes.filter((p) => p.kind === k).length}`).join(', ');
      const perKind = (s: typeof recorded) => PROBE_KINDS.map((k) => rate(s.recallByKind[k])).join('/');
      lines.push(
        `${file} #${n}: ${probes.length} probes (${byKind}); recorded summary ${rate(recorded.recall)} [${perKind(recorded)}]; ` +
          `shipped default ${rate(shipped.recall)} [${perKind(shipped)}]`,
      );
      // What the ledger and the kept tail carry without a model (files, commands, prompts, the open task,
      // the names in use) answers at least as much as the recording agent's own summary did, overall and
      // on each of the kinds the ledger records.
      assert.ok((shipped.recall ?? 1) >= (recorded.recall ?? 0), `${file} #${n}: ${lines[lines.length - 1]}`);
      for (const k of LEDGER_KINDS)
        assert.ok((shipped.recallByKind[k] ?? 1) >= (recorded.recallByKind[k] ?? 0), `${file} #${n} ${k}: ${lines[lines.length - 1]}`);
    }
  }
  console.log(lines.join('\n'));
});
