// The artifact ledger on real recorded sessions and generated ones: every file path and every genuine
// prompt a plan archives is still in the request it produces (prompts verbatim, or clipped with a
// pointer to the transcript), and the ledger stays within its budget. Prints recall and token cost.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CharEstimateTokenizer,
  importSession,
  isTurnStart,
  MemoizedMessageCounter,
  planRequest,
  planWith,
  STRATEGY_NAMES,
  textOf,
} from '../../src/core/index';
import type { Message } from '../../src/core/index';
import { ledgerTokens } from '../../src/core/ledger/ledgerMerge';
import { ledgerBudget } from '../../src/core/strategies/ledgerStep';
import { syntheticSession } from '../helpers/synthetic';

const DIR = join(__dirname, '..', 'fixtures', 'real-sessions');
const SESSIONS = ['claude-code-cipher-box-a.jsonl', 'claude-code-cipher-box-b.jsonl', 'codex-agentv-a.jsonl', 'codex-agentv-b.jsonl'];
const FILE_KEYS = ['path', 'file_path', 'notebook_path'];
const FILE_TOOLS = new Set(['read_file', 'edit_file', 'write_file', 'list_files', 'Read', 'Edit', 'MultiEdit', 'Write', 'NotebookEdit']);

/** Paths the archived messages touched, found independently of the extractor: file tools' inputs and patch headers. */
function archivedPaths(archived: readonly Message[]): Set<string> {
  const paths = new Set<string>();
  for (const m of archived) {
    if (typeof m.content === 'string') continue;
    for (const b of m.content) {
      if (b.type !== 'tool_use') continue;
      const input = (b.input ?? {}) as Record<string, unknown>;
      if (FILE_TOOLS.has(b.name as string))
        for (const k of FILE_KEYS) if (typeof input[k] === 'string' && input[k]) paths.add(input[k] as string);
      if (b.name === 'apply_patch') {
        const patch = typeof b.input === 'string' ? b.input : String(input.input ?? '');
        for (const line of patch.split('\n')) {
          const hit = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/.exec(line);
          if (hit && hit[1].trim()) paths.add(hit[1].trim());
        }
      }
    }
  }
  return paths;
}

interface Tally {
  paths: number;
  pathsFound: number;
  prompts: number;
  promptsFound: number;
  costs: number[];
  plans: number;
  withoutLedger: number;
}

function check(label: string, messages: Message[], tally: Tally): void {
  const counter = new MemoizedMessageCounter(new CharEstimateTokenizer());
  for (const contextWindow of [32_000, 200_000]) {
    const ctx = { tokens: counter, contextWindow, maxOutputTokens: 8_192, summaryMaxTokens: 2_000, ledger: true };
    for (const name of STRATEGY_NAMES.filter((n) => n !== 'split-at')) {
      const plan = planWith(name, messages, {}, ctx);
      const archived = plan.archived.map((e) => messages[e.index]).filter((m) => !m.synthetic);
      if (plan.noop || archived.length === 0) continue;
      const where = `${label} window ${contextWindow} ${name}`;
      if (!plan.ledger) {
        // The ledger would cost more than the plan saves: it goes without, and the loss report says what leaves.
        assert.ok(plan.lost, `${where}: a plan without a ledger reports its losses`);
        const lostPaths = new Set(plan.lost.files.map((f) => f.path));
        for (const p of archivedPaths(archived))
          assert.ok(lostPaths.has(p) || planRequest(plan).some((m) => textOf(m).includes(p)), `${where}: ${p}`);
        tally.withoutLedger++;
        continue;
      }
      tally.plans++;
      const text = planRequest(plan)
        .map((m) => textOf(m))
        .join('\n');
      for (const p of archivedPaths(archived)) {
        tally.paths++;
        if (text.includes(p)) tally.pathsFound++;
        else assert.fail(`${where}: archived path ${p} is not in the request`);
      }
      for (const m of archived.filter(isTurnStart)) {
        const prompt = textOf(m).trim();
        if (prompt === '') continue;
        tally.prompts++;
        const found = text.includes(prompt) || (text.includes(prompt.slice(0, 600)) && text.includes(`message ${m.id}`));
        if (found) tally.promptsFound++;
        else assert.fail(`${where}: archived prompt ${m.id} is neither verbatim nor clipped with a pointer in the request`);
      }
      if (plan.ledger) {
        const cost = ledgerTokens(plan.ledger, counter);
        assert.ok(cost <= ledgerBudget(ctx), `${where}: ledger ${cost} tokens over its ${ledgerBudget(ctx)}-token budget`);
        tally.costs.push(cost);
        assert.ok(plan.fitsWindow, `${where}: the plan with its ledger fits the window (${plan.tokensAfter} tokens)`);
      }
      assert.ok(plan.tokensAfter < plan.tokensBefore, `${where}: ${plan.tokensBefore} -> ${plan.tokensAfter}`);
    }
  }
}

function report(label: string, t: Tally): string {
  const sorted = [...t.costs].sort((a, b) => a - b);
  const median = sorted.length ? sorted[Math.floor(sorted.length / 2)] : 0;
  const pct = (a: number, b: number) => (b === 0 ? 'n/a' : `${((100 * a) / b).toFixed(1)}%`);
  const plans = `${t.plans} plans with a ledger (${t.withoutLedger} saving less than it costs, losses reported)`;
  const recall = `files ${t.pathsFound}/${t.paths} (${pct(t.pathsFound, t.paths)}), prompts ${t.promptsFound}/${t.prompts} (${pct(t.promptsFound, t.prompts)})`;
  return `${label}: ${plans}; ${recall}; ledger tokens median ${median}, max ${sorted.at(-1) ?? 0}`;
}

for (const file of SESSIONS) {
  test(`ledger: every archived file path and prompt of ${file} survives in the request, within the budget`, () => {
    const path = join(DIR, file);
    const r = importSession(readFileSync(path, 'utf8'), path);
    const tally: Tally = { paths: 0, pathsFound: 0, prompts: 0, promptsFound: 0, costs: [], plans: 0, withoutLedger: 0 };
    check(`${file} current`, r.messages, tally);
    r.compactions.forEach((c, i) => check(`${file} compaction ${i + 1} before`, c.before, tally));
    assert.ok(tally.plans > 0 && tally.paths > 0, `${file}: some plan archives some file`);
    console.log(report(file, tally));
  });
}

test('ledger: every archived file path and prompt of generated sessions survives in the request, within the budget', () => {
  const tally: Tally = { paths: 0, pathsFound: 0, prompts: 0, promptsFound: 0, costs: [], plans: 0, withoutLedger: 0 };
  for (const seed of [1, 2, 3, 4, 5]) check(`synthetic seed ${seed}`, syntheticSession({ seed, messages: 400 }), tally);
  assert.ok(tally.plans > 0 && tally.paths > 0);
  console.log(report('generated', tally));
});
