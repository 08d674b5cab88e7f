// `npm run bench`: Splitpoint's benchmarks. Writes bench/results/bench-<timestamp>.{md,json} and
// bench/results/latest.{md,json}, and prints the markdown.
//
//   node --import tsx bench/run.ts [--quick] [--only=counting,pipeline,plans,memory,inspector,extension,hostwait,replay,follow,tune]
//
// Every figure is a median of repeated runs and is shown next to a baseline measured in the same
// run. Measurements that need a fresh process (rank loading, cold counts, peak heap, activation) run
// in child processes: bench/children/*.ts, bundled here with esbuild the way the extension is
// bundled (CommonJS, node20, the o200k ranks inlined and loaded lazily).
import { execSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { createTokenizer } from '../src/core/counting/tokenizers';
import { MemoizedMessageCounter } from '../src/core/counting/tokens';
import { benchCounting } from './counting';
import type { BenchContext } from './context';
import { benchExtension } from './extension';
import { benchHostWait } from './hostwait';
import { benchInspector } from './inspector';
import { fmtInt, log, REPO, tableMarkdown, type SectionResult } from './lib';
import { benchMemory } from './memory';
import { benchPipeline } from './pipeline';
import { benchPlans } from './plans';
import { benchReplay } from './replay';
import { BENCH_SIZES, benchSession, type BenchSize } from './sessions';

const SECTIONS: Array<[string, string, (ctx: BenchContext) => Promise<SectionResult>]> = [
  ['counting', '1. Token counting', benchCounting],
  ['pipeline', '2. Per-turn pipeline cost', benchPipeline],
  ['plans', '3. plan() per strategy', benchPlans],
  ['memory', '4. Memory', benchMemory],
  ['inspector', '5. Inspector', benchInspector],
  ['extension', '6. Extension: activation and sizes', benchExtension],
  ['hostwait', '7. The host never waits', benchHostWait],
  ['replay', '8. Replay of the real sessions', benchReplay],
  ['follow', '9. Following a live session', (ctx) => import('./follow').then((m) => m.benchFollow(ctx))],
  ['tune', '10. splitpoint tune over 25 session files', (ctx) => import('./tune').then((m) => m.benchTune(ctx))],
];

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const quick = args.includes('--quick');
  const only = args
    .find((a) => a.startsWith('--only='))
    ?.slice('--only='.length)
    .split(',');
  const started = Date.now();
  const loadStart = loadavg();
  const tmp = mkdtempSync(join(tmpdir(), 'splitpoint-bench-'));
  try {
    log('bundling the child scripts');
    await esbuild.build({
      entryPoints: {
        child: join(REPO, 'bench/children/child.ts'),
        activation: join(REPO, 'bench/children/activation.ts'),
        hostwait: join(REPO, 'bench/children/hostwait.ts'),
      },
      outdir: join(tmp, 'children'),
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      logLevel: 'error',
      external: ['playwright-core'],
      // As in esbuild.mjs: jsonc-parser's UMD build requires its parts at run time.
      alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
      plugins: [tokenizerFilesLikeTheExtension()],
    });

    log('generating sessions');
    const sessions = new Map<BenchSize, ReturnType<typeof benchSession>>();
    const tokens = new Map<BenchSize, number>();
    const counter = new MemoizedMessageCounter(createTokenizer('gpt-tokenizer'));
    for (const size of BENCH_SIZES) {
      const messages = benchSession({ messages: size });
      sessions.set(size, messages);
      tokens.set(size, counter.countMessages(messages));
    }
    const ctx: BenchContext = {
      sizes: BENCH_SIZES,
      sessions,
      tokens,
      childScript: join(tmp, 'children', 'child.js'),
      activationScript: join(tmp, 'children', 'activation.js'),
      hostwaitScript: join(tmp, 'children', 'hostwait.js'),
      tmp,
      quick,
    };

    const results: SectionResult[] = [];
    for (const [id, title, run] of SECTIONS) {
      if (only && !only.includes(id)) continue;
      log(`section ${title}`);
      const t = Date.now();
      try {
        results.push(await run(ctx));
      } catch (e) {
        const message = (e as Error).stack ?? String(e);
        log(`section ${id} failed: ${message}`);
        results.push({
          id,
          title,
          tables: [{ title, columns: ['measure', 'result'], rows: [['all', `error: ${(e as Error).message.split('\n')[0]}`]] }],
          targets: [],
          data: { error: message },
        });
      }
      log(`section ${id} took ${((Date.now() - t) / 1000).toFixed(1)} s`);
    }

    const finished = Date.now();
    const meta = {
      date: new Date(started).toISOString(),
      durationS: (finished - started) / 1000,
      commit: git('git rev-parse --short HEAD'),
      dirty: git('git status --porcelain') !== '',
      node: process.version,
      cpu: cpus()[0]?.model ?? 'unknown',
      cores: cpus().length,
      loadavgStart: loadStart,
      loadavgEnd: loadavg(),
      quick,
      sessions: BENCH_SIZES.map((s) => ({ messages: s, tokens: tokens.get(s), jsonChars: JSON.stringify(sessions.get(s)).length })),
    };
    const markdown = render(meta, results);
    const stamp = new Date(started).toISOString().replace(/[:.]/g, '-');
    const dir = join(REPO, 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    const json = JSON.stringify({ meta, sections: results }, null, 2);
    writeFileSync(join(dir, `bench-${stamp}.md`), markdown);
    writeFileSync(join(dir, `bench-${stamp}.json`), json);
    writeFileSync(join(dir, 'latest.md'), markdown);
    writeFileSync(join(dir, 'latest.json'), json);
    process.stdout.write(`${markdown}\n`);
    log(`wrote bench/results/bench-${stamp}.md and .json (and latest.*) in ${meta.durationS.toFixed(0)} s`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * The extension loads the encoders from their own files under dist/tokenizer/ (esbuild.mjs, on first
 * use); the child scripts do the same when those files exist, so rank loading is measured the way
 * the extension host pays for it. Without them the encoders are bundled into the child.
 */
function tokenizerFilesLikeTheExtension(): esbuild.Plugin {
  const files: Record<string, string> = {
    'gpt-tokenizer/encoding/o200k_base': 'gpt-tokenizer-o200k',
    'js-tiktoken/lite': 'js-tiktoken-lite',
    'js-tiktoken/ranks/o200k_base': 'js-tiktoken-o200k-ranks',
  };
  return {
    name: 'tokenizer-files',
    setup(build) {
      build.onResolve({ filter: /^(gpt-tokenizer\/encoding\/o200k_base|js-tiktoken\/lite|js-tiktoken\/ranks\/o200k_base)$/ }, (args) => {
        const file = join(REPO, 'dist', 'tokenizer', `${files[args.path]}.js`);
        return existsSync(file) ? { path: file, external: true } : undefined;
      });
    },
  };
}

function git(command: string): string {
  try {
    return execSync(command, { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'unknown';
  }
}

function render(
  meta: {
    date: string;
    durationS: number;
    commit: string;
    dirty: boolean;
    node: string;
    cpu: string;
    cores: number;
    loadavgStart: number[];
    loadavgEnd: number[];
    quick: boolean;
    sessions: Array<{ messages: number; tokens?: number; jsonChars: number }>;
  },
  results: SectionResult[],
): string {
  const out: string[] = [];
  out.push(`# Splitpoint bench — ${meta.date}${meta.quick ? ' (--quick: fewer repetitions)' : ''}`, '');
  out.push(
    `Commit ${meta.commit}${meta.dirty ? ' (with uncommitted changes)' : ''}; Node ${meta.node}; ${meta.cores} x ${meta.cpu}; ` +
      `load average ${meta.loadavgStart.map((x) => x.toFixed(2)).join(' ')} at the start, ` +
      `${meta.loadavgEnd.map((x) => x.toFixed(2)).join(' ')} at the end (the cores are shared with other work: expect run-to-run noise of 10-30%); ` +
      `run took ${meta.durationS.toFixed(0)} s.`,
    '',
  );
  out.push(
    'Sessions (bench/sessions.ts: tool-heavy coding sessions, reads of 1-40 KB real source files, command outputs, searches, edits, short prompts): ' +
      meta.sessions
        .map(
          (s) => `${fmtInt(s.messages)} messages = ${fmtInt(s.tokens ?? NaN)} o200k tokens (${(s.jsonChars / 1e6).toFixed(2)} MB of JSON)`,
        )
        .join('; ') +
      '.',
    '',
  );
  out.push('## Targets', '', '| target | status | where we are |', '| --- | --- | --- |');
  for (const r of results)
    for (const t of r.targets)
      out.push(`| ${t.target} | ${t.status === 'missed' ? '**missed**' : t.status} | ${t.detail.replace(/\|/g, '\\|')} |`);
  out.push('');
  for (const r of results) {
    out.push(`## ${r.title}`, '');
    for (const t of r.tables) out.push(tableMarkdown(t), '');
    if (r.notes?.length) out.push(...r.notes.map((n) => `- ${n}`), '');
  }
  return out.join('\n');
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
