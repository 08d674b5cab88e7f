// Section 8: replay of the real recorded sessions (issues 14 §3 and 21) with the five built-in
// configurations: the cost of each (priced as billed, with the prompt cache as documented), as-recorded's
// error against the recorded bill, and the ratio of splitpoint-default's cost to each baseline's (below 1:
// splitpoint-default is cheaper). Same code as `splitpoint replay`.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { importSession, readSessionFile, replaySession } from '../src/core';
import type { ReplayConfigResult } from '../src/core/replay';
import { builtinReplayConfigs } from '../src/settings/replayConfigs';
import type { BenchContext } from './context';
import { realSessionsDir } from './hostwait';
import { fmtRatio, log, notAvailable, type SectionResult, type Table, type TargetResult } from './lib';

const TITLE = '8. Replay of the real sessions: cost per configuration';
const DEFAULT = 'splitpoint-default';
const BASELINES = ['no-compaction', 'claude-code-like', 'codex-like'];

const usd = (x: number) => `$${x.toFixed(2)}`;

export async function benchReplay(_ctx: BenchContext): Promise<SectionResult> {
  const dir = realSessionsDir();
  if (!dir) return notAvailable('replay', TITLE, 'no real sessions folder (test/fixtures/real-sessions)');
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort();
  const configs = builtinReplayConfigs();
  const costRows: string[][] = [];
  const ratioRows: string[][] = [];
  const data: Record<string, unknown> = {};
  let cheaperThanBoth = 0;
  for (const f of files) {
    const path = join(dir, f);
    const t = performance.now();
    const report = await replaySession(importSession(readSessionFile(path), path), configs);
    log(`replay ${f}: ${((performance.now() - t) / 1000).toFixed(1)} s`);
    const by = new Map<string, ReplayConfigResult>(report.configs.map((c) => [c.name, c]));
    data[f] = report.configs.map(({ points: _points, ...c }) => c);
    const cell = (c: ReplayConfigResult | undefined) => {
      if (!c) return 'n/a';
      const stopped = c.stoppedAt !== null ? `, stopped at call ${c.stoppedAt}` : '';
      const error = c.costErrorVsRecorded !== null ? `, ${(100 * c.costErrorVsRecorded).toFixed(2)}% vs recorded` : '';
      const recall = `paths ${(c.pathRecall * 100).toFixed(0)}%, prompts ${(c.promptRecall * 100).toFixed(0)}%`;
      return `${usd(c.costUSD)} (${c.compactions} comp., ${recall}${stopped}${error})`;
    };
    costRows.push([f, report.recorded ? usd(report.recorded.costUSD) : 'n/a', ...configs.map((c) => cell(by.get(c.name)))]);
    const own = by.get(DEFAULT);
    const ratio = (name: string) => (own && by.get(name) ? own.costUSD / by.get(name)!.costUSD : NaN);
    ratioRows.push([f, ...BASELINES.map((b) => fmtRatio(ratio(b)))]);
    if (ratio('claude-code-like') < 1 && ratio('codex-like') < 1) cheaperThanBoth++;
  }
  const tables: Table[] = [
    {
      title: '8a. Cost of each configuration (recorded usage priced the same way in the first column)',
      columns: ['session', 'recorded', ...configs.map((c) => c.name)],
      rows: costRows,
      notes: [
        'Each cell: cost in USD at the model table of src/core/cost/cost.ts, compactions, ' +
          'ledger recall (archived paths and prompts still named in the final request).',
      ],
    },
    {
      title: `8b. Cost ratio ${DEFAULT} / baseline (below ×1: ${DEFAULT} is cheaper)`,
      columns: ['session', ...BASELINES.map((b) => `${DEFAULT} / ${b}`)],
      rows: ratioRows,
      notes: ['no-compaction stops where the window overflows (8a says at which call), so its cost covers fewer calls than the others.'],
    },
  ];
  const targets: TargetResult[] = [
    {
      target: `replay: ${DEFAULT} cheaper than claude-code-like and codex-like on most real sessions`,
      status: cheaperThanBoth * 2 > files.length ? 'met' : 'missed',
      detail: `cheaper than both on ${cheaperThanBoth} of ${files.length} sessions`,
    },
  ];
  return { id: 'replay', title: TITLE, tables, targets, data };
}
