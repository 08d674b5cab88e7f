// Section 10: `splitpoint tune` over 25 session files (the 5 real fixtures, each copied 5 times into a
// temporary folder) with 2 worker threads, as users run it (the built dist/cli.js and dist/tuneWorker.js,
// a child process). Target (issue 25): under 2 minutes on 2 cores. Also reported: the replays run, the
// configurations tried, the best settings against the current (shipped) ones, claude-code-like and
// no-compaction per session, and the frontier (cost vs probe answerable rate of every configuration tried).
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TuneJson } from '../src/cli/tuneReport';
import type { BenchContext } from './context';
import { realSessionsDir } from './hostwait';
import { fmtMs, fmtRatio, log, notAvailable, REPO, type SectionResult, type Table } from './lib';

const TITLE = '10. splitpoint tune: 25 session files, 2 jobs';
const COPIES = 5;
const JOBS = 2;
const BUDGET_MS = 120_000;

const usd = (x: number) => `$${x.toFixed(2)}`;

export async function benchTune(_ctx: BenchContext): Promise<SectionResult> {
  const src = realSessionsDir();
  const cli = join(REPO, 'dist', 'cli.js');
  if (!src) return notAvailable('tune', TITLE, 'no real sessions folder (test/fixtures/real-sessions)');
  if (!existsSync(join(REPO, 'dist', 'tuneWorker.js'))) return notAvailable('tune', TITLE, 'dist/tuneWorker.js missing: run npm run build');
  const fixtures = readdirSync(src)
    .filter((f) => f.endsWith('.jsonl'))
    .sort();
  const dir = mkdtempSync(join(tmpdir(), 'splitpoint-bench-tune-'));
  try {
    for (let copy = 1; copy <= COPIES; copy++) for (const f of fixtures) copyFileSync(join(src, f), join(dir, `${copy}-${f}`));
    const results = join(dir, 'results.jsonl');
    const files = fixtures.length * COPIES;
    log(`tune over ${files} files with ${JOBS} jobs`);
    const t = performance.now();
    const stdout = runTune(cli, dir, results);
    const ms = performance.now() - t;
    const j = JSON.parse(stdout) as TuneJson;
    const rows = readFileSync(results, 'utf8').trim().split('\n').length;
    log(`tune: ${(ms / 1000).toFixed(1)} s, ${j.replays} replays, ${j.configurationsTried} configurations`);
    const tables: Table[] = [
      {
        title: '10a. Time and work',
        columns: ['files', 'jobs', 'wall time', 'replays', 'configurations tried', 'passes', '--results rows', 'target rate', 'best'],
        rows: [
          [
            String(files),
            String(JOBS),
            fmtMs(ms),
            String(j.replays),
            String(j.configurationsTried),
            String(j.passes),
            String(rows),
            `${j.target.recall.toFixed(3)} (${j.target.source})`,
            j.bestSettings ? JSON.stringify(j.bestSettings) : 'none feasible',
          ],
        ],
        notes: [
          j.rateDefinition,
          'Each file is a separate session to the CLI (no sharing between copies): the work is that of 25 sessions.',
        ],
      },
      {
        title: '10b. Best vs the shipped defaults, claude-code-like and no-compaction (one copy of each fixture)',
        columns: [
          'session',
          'best',
          'current (shipped)',
          'claude-code-like',
          'no-compaction',
          'best / current',
          'best / cc-like',
          'best / no-comp',
          'best rate',
        ],
        rows: j.sessions
          .filter((s) => s.file.includes(`${join(dir, '1-')}`))
          .map((s) => [
            s.file.slice(dir.length + 3),
            s.best ? usd(s.best.costUSD) : 'n/a',
            usd(s.current.costUSD),
            usd(s.claudeCodeLike.costUSD),
            `${usd(s.noCompaction.costUSD)}${s.noCompaction.stoppedAt !== null ? ` (stopped at ${s.noCompaction.stoppedAt})` : ''}`,
            fmtRatio(s.ratioVsCurrent ?? NaN),
            fmtRatio(s.ratioVsClaudeCodeLike ?? NaN),
            fmtRatio(s.ratioVsNoCompaction ?? NaN),
            s.best ? (s.best.probeRecall ?? 1).toFixed(3) : 'n/a',
          ]),
        notes: [
          `Median over the ${files} files: best / current ${fmtRatio(j.median.vsCurrent.ratio ?? NaN)}, ` +
            `best / claude-code-like ${fmtRatio(j.median.vsClaudeCodeLike.ratio ?? NaN)}, best / no-compaction ` +
            `${fmtRatio(j.median.vsNoCompaction.ratio ?? NaN)} (on the ${j.median.vsNoCompaction.sessions} files where no-compaction fits the window).`,
        ],
      },
      {
        title: '10c. Every configuration tried: total cost over the 25 files vs probe answerable rate (* frontier)',
        columns: ['settings (vs shipped defaults)', 'cost', 'rate', 'overflowed sessions', 'feasible'],
        rows: j.tried
          .slice()
          .sort((a, b) => a.costUSD - b.costUSD)
          .map((c) => [
            `${c.onFrontier ? '* ' : ''}${JSON.stringify(c.settings)}${c.id === j.best?.id ? ' (best)' : ''}${c.id === j.current.id ? ' (current)' : ''}`,
            usd(c.costUSD),
            c.rate.toFixed(3),
            String(c.overflowed),
            c.feasible ? 'yes' : 'no',
          ]),
      },
    ];
    return {
      id: 'tune',
      title: TITLE,
      tables,
      targets: [
        {
          target: 'tune over 25 session files finishes in under 2 minutes on 2 cores',
          status: ms < BUDGET_MS ? 'met' : 'missed',
          detail: `${fmtMs(ms)} for ${j.replays} replays (${j.configurationsTried} configurations x ${files} files + 2 baselines each)`,
        },
      ],
      data: {
        ms,
        replays: j.replays,
        configurationsTried: j.configurationsTried,
        bestSettings: j.bestSettings,
        median: j.median,
        tried: j.tried,
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The built CLI's tune over `dir`; its JSON (exit 1, no configuration reaching the target, prints it too). */
function runTune(cli: string, dir: string, results: string): string {
  try {
    return execFileSync(process.execPath, [cli, 'tune', dir, '--jobs', String(JOBS), '--json', '--results', results], {
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch (e) {
    const stdout = (e as { stdout?: string }).stdout ?? '';
    if (!stdout) throw e;
    return stdout;
  }
}
