// Section 7: the host never waits (issue 14 §5). Every figure is new / old, both measured in this run:
//  - old = today's paths, kept callable for this: the extension bundle built from the commit before the
//    counting worker (activation), in-thread counting (first count, plan, first paint) and the
//    whole-text import (readSessionFile + importSession);
//  - new = the counting worker (dist/countWorker.js) and the streamed import (importSessionFile).
// Blocking is the longest stall of the thread (a 1 ms timer chain; perf_hooks' monitorEventLoopDelay
// agrees); memory is the process's peak RSS (the kernel's high-water mark, so nothing a sampler could
// miss) above its RSS before the step, over the file's size. Fresh process per run (children/hostwait.ts).
import { execSync, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, statSync, symlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchContext } from './context';
import { fmtBytes, fmtMs, fmtRatio, log, median, REPO, runChild, type SectionResult, type Table, type TargetResult } from './lib';
import { benchSession } from './sessions';

const TITLE = '7. The host never waits: counting worker and streamed import';
const BLOCK_TARGET_MS = 50;
const MEMORY_TARGET = 2;
const PAINT_TARGET_MS = 500;

interface Watched {
  maxBlockMs: number;
  eldMaxMs: number;
  elapsedMs: number;
}

/** Where the real recorded sessions are: the repository's own copies (test/fixtures/real-sessions/). */
export function realSessionsDir(): string | undefined {
  const dir = join(REPO, 'test', 'fixtures', 'real-sessions');
  return existsSync(dir) ? dir : undefined;
}

/**
 * A Claude Code session file of about `bytes` bytes: the bench's generated 10,000-message session as
 * Claude Code lines (uuid chain, tool calls and results), repeated with fresh ids until the size is reached.
 */
export function writeClaudeCodeSession(path: string, bytes: number): { size: number; messages: number } {
  const messages = benchSession({ messages: 10_000, seed: 11 });
  const lines = messages.map((m, i) => {
    const uuid = `@K@-${i}`;
    const parent = i === 0 ? '@P@' : `@K@-${i - 1}`;
    const content = typeof m.content === 'string' ? m.content : m.content.map((b) => reId(b as unknown as Record<string, unknown>));
    const message =
      m.role === 'assistant' ? { id: `msg_@K@_${i}`, role: 'assistant', model: 'claude-sonnet-4-5', content } : { role: 'user', content };
    return JSON.stringify({
      parentUuid: parent,
      isSidechain: false,
      type: m.role,
      uuid,
      sessionId: 'bench',
      timestamp: new Date(1_700_000_000_000 + i * 1000).toISOString(),
      message,
    });
  });
  const template = `${lines.join('\n')}\n`;
  const fd = openSync(path, 'w');
  let size = 0;
  let k = 0;
  try {
    while (size < bytes) {
      const chunk = template.replaceAll('@P@', k === 0 ? 'null' : `c${k - 1}-${lines.length - 1}`).replaceAll('@K@', `c${k}`);
      // The first line's parent is JSON null, not a string.
      const text = k === 0 ? chunk.replace('"parentUuid":"null"', '"parentUuid":null') : chunk;
      size += writeSync(fd, text);
      k++;
    }
  } finally {
    closeSync(fd);
  }
  return { size, messages: k * lines.length };
}

function reId(block: Record<string, unknown>): Record<string, unknown> {
  if (block.type === 'tool_use') return { ...block, id: `@K@_${String(block.id)}` };
  if (block.type === 'tool_result') return { ...block, tool_use_id: `@K@_${String(block.tool_use_id)}` };
  return block;
}

/** The extension bundle of the commit before the counting worker landed (today's activation), or why not. */
function baselineBundle(tmp: string): { path: string; commit: string } | { error: string } {
  try {
    const added = execSync('git log --diff-filter=A --format=%H -- src/core/workerTokenizer.ts', { cwd: REPO, encoding: 'utf8' })
      .trim()
      .split('\n')
      .pop();
    if (!added) return { error: 'src/core/workerTokenizer.ts is not in the history' };
    const commit = execSync(`git rev-parse --short ${added}^`, { cwd: REPO, encoding: 'utf8' }).trim();
    const dir = join(tmp, 'base');
    mkdirSync(dir, { recursive: true });
    execSync(`git archive ${commit} | tar -x -C ${dir}`, { cwd: REPO, shell: '/bin/bash' });
    symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'));
    const build = spawnSync(process.execPath, ['esbuild.mjs'], { cwd: dir, encoding: 'utf8', timeout: 180_000 });
    if (build.status !== 0) return { error: `building ${commit} failed: ${(build.stderr || build.stdout).slice(-300)}` };
    return { path: join(dir, 'dist', 'extension.js'), commit };
  } catch (e) {
    return { error: (e as Error).message.split('\n')[0] };
  }
}

interface ActivationRun {
  requireMs: number;
  activateMs: number;
  totalMs: number;
  /** The longest block from the require until activate()'s promise resolved (children/activation.ts). */
  activationBlockMs?: number;
  maxEventLoopDelayAfterMs: number;
  error?: string;
}

export async function benchHostWait(ctx: BenchContext): Promise<SectionResult> {
  const r = hostWaitRecorder(ctx);
  const noise = measureNoiseFloor(r);
  const base = measureActivation(ctx, r);
  log('hostwait: activation done');
  measureFirstCount(ctx, r);
  log('hostwait: first count done');
  measureImportAndPlan(ctx, r);
  log('hostwait: import and plan done');
  measureFirstPaint(r);
  const { reps, rows, targets, data } = r;
  const table: Table = {
    title: `${TITLE}; ratio = new / today (same run)`,
    columns: ['measure', 'today (old path)', 'new', 'ratio', 'target'],
    rows,
    notes: [
      `Today = ${'commit' in base ? `the extension built from ${base.commit} (before the counting worker) for activation; ` : ''}` +
        'in-thread counting, readSessionFile + importSession for the rest (kept in the code). New = dist/countWorker.js and importSessionFile.',
      `Noise floor: the same monitors with nothing to do for 1 s stall up to ${fmtMs(noise)} (median of ${reps}) on this shared machine ` +
        '(2 cores shared with other work): a block below that is scheduling, not Splitpoint.',
      `Medians of ${reps} fresh processes (import + count + plan: one each, it takes a while). Memory: peak RSS above the RSS before the step ` +
        '(the worker thread and the ranks included), over the file size.',
    ],
  };
  return { id: 'hostwait', title: TITLE, tables: [table], targets, data };
}

/** The run's shared pieces: fresh child processes, medians, and the table rows and targets the steps add. */
function hostWaitRecorder(ctx: BenchContext) {
  const reps = ctx.quick ? 1 : 3;
  const child = (args: string[], timeoutMs = 600_000) =>
    runChild<Record<string, number>>(ctx.hostwaitScript, args, { timeoutMs, nodeArgs: ['--max-old-space-size=8192'] });
  /** `reps` fresh processes each way, alternating: today's path ('old') and the new one. */
  const bothWays = (args: string[]) => {
    const r = { old: [] as Array<Record<string, number>>, now: [] as Array<Record<string, number>> };
    for (let i = 0; i < reps; i++) {
      r.old.push(child([...args, 'old']));
      r.now.push(child([...args, 'new']));
    }
    return r;
  };
  /** The median of field `k` over runs. */
  const m = (xs: Array<Record<string, number>>, k: string) => median(xs.map((x) => x[k]));
  const rows: string[][] = [];
  const targets: TargetResult[] = [];
  const data: Record<string, unknown> = {};
  const row = (measure: string, old: number, now: number, fmt: (x: number) => string, target?: { limit: number; label: string }) => {
    rows.push([
      measure,
      fmt(old),
      fmt(now),
      fmtRatio(now / old),
      target ? `${target.label}: ${now <= target.limit ? 'met' : 'missed'}` : '',
    ]);
    if (target)
      targets.push({
        target: `${measure} ${target.label}`,
        status: now <= target.limit ? 'met' : 'missed',
        detail: `${fmt(now)} (today ${fmt(old)}; ratio ${fmtRatio(now / old)})`,
      });
  };

  return { reps, child, bothWays, m, row, rows, targets, data };
}
type HostWaitRecorder = ReturnType<typeof hostWaitRecorder>;

/** Noise floor: the monitors alone for one second (median of the longest stall). */
function measureNoiseFloor({ reps, child, data }: HostWaitRecorder): number {
  const idle = Array.from({ length: reps }, () => child(['idle']) as unknown as Watched);
  data.idle = idle;
  const noise = median(idle.map((r) => r.maxBlockMs));

  return noise;
}

/** Activation: the extension before the counting worker (today) against dist/extension.js. */
function measureActivation(ctx: BenchContext, { reps, row, rows, data }: HostWaitRecorder): ReturnType<typeof baselineBundle> {
  const base = baselineBundle(ctx.tmp);
  data.baseline = base;
  const activation = (bundle: string, i: number) =>
    runChild<ActivationRun>(ctx.activationScript, [bundle, join(ctx.tmp, `hw-ws-${i}`), join(ctx.tmp, `hw-storage-${i}`)], {
      nodeArgs: ['--expose-gc'],
      timeoutMs: 60_000,
    });
  if ('path' in base) {
    const old = Array.from({ length: reps }, (_, i) => activation(base.path, i));
    const now = Array.from({ length: reps }, (_, i) => activation(join(REPO, 'dist', 'extension.js'), 100 + i));
    data.activation = { old, now };
    // Activation may take several turns (src/extension/shell.ts): its block is the timer chain's longest gap.
    const during = (r: ActivationRun) => r.activationBlockMs ?? r.totalMs;
    const block = (r: ActivationRun) => Math.max(during(r), r.maxEventLoopDelayAfterMs);
    const med = (xs: ActivationRun[], f: (r: ActivationRun) => number) => median(xs.map(f));
    row(
      'activation: require(bundle), one synchronous step',
      med(old, (r) => r.requireMs),
      med(now, (r) => r.requireMs),
      fmtMs,
    );
    row(
      'activation: activate(), until its promise resolves (wall time)',
      med(old, (r) => r.activateMs),
      med(now, (r) => r.activateMs),
      fmtMs,
    );
    row('activation: longest block from the require until activate() resolves', med(old, during), med(now, during), fmtMs);
    row(
      'activation: longest block in the 2 s after activate() (where the rank load ran)',
      median(old.map((r) => r.maxEventLoopDelayAfterMs)),
      median(now.map((r) => r.maxEventLoopDelayAfterMs)),
      fmtMs,
    );
    row('activation: max host-thread block', median(old.map(block)), median(now.map(block)), fmtMs, {
      limit: BLOCK_TARGET_MS,
      label: `≤ ${BLOCK_TARGET_MS} ms`,
    });
  } else {
    rows.push(['activation', `not available: ${base.error}`, '', '', '']);
  }

  return base;
}

/** First count of the ~1M-token session. */
function measureFirstCount(ctx: BenchContext, { bothWays, m, row, data }: HostWaitRecorder): void {
  const size = ctx.sizes[ctx.sizes.length - 1];
  const fc = bothWays(['first-count', String(size)]);
  data.firstCount = fc;
  const tok = ctx.tokens.get(size) ?? NaN;
  row(
    `first count of a ${(tok / 1e6).toFixed(2)}M-token session: max host-thread block`,
    m(fc.old, 'maxBlockMs'),
    m(fc.now, 'maxBlockMs'),
    fmtMs,
    {
      limit: BLOCK_TARGET_MS,
      label: `≤ ${BLOCK_TARGET_MS} ms`,
    },
  );
  row('  same, perf_hooks monitorEventLoopDelay max', m(fc.old, 'eldMaxMs'), m(fc.now, 'eldMaxMs'), fmtMs);
  row('  same, wall time until the meter has the count', m(fc.old, 'elapsedMs'), m(fc.now, 'elapsedMs'), fmtMs);
}

/** Import and plan of a generated ~200 MB Claude Code session: blocking and peak memory. */
function measureImportAndPlan(ctx: BenchContext, { child, bothWays, m, row, data }: HostWaitRecorder): void {
  const target = ctx.quick ? 40e6 : 200e6;
  const file = join(ctx.tmp, 'generated-claude-code.jsonl');
  const generated = writeClaudeCodeSession(file, target);
  const fileSize = statSync(file).size;
  data.generated = { ...generated, fileSize };
  log(`hostwait: wrote ${fmtBytes(fileSize)} (${generated.messages} message lines)`);
  const mem = (r: Record<string, number>) => (r.maxRss - r.rssStart) / fileSize;
  // Imports: `reps` each (a single one is at the mercy of one scheduling hiccup on a shared machine), medians.
  const imp = bothWays(['import', file]);
  data.import = imp;
  row(`import of the ${fmtBytes(fileSize)} session: max host-thread block`, m(imp.old, 'maxBlockMs'), m(imp.now, 'maxBlockMs'), fmtMs, {
    limit: BLOCK_TARGET_MS,
    label: `≤ ${BLOCK_TARGET_MS} ms`,
  });
  row('  same, wall time', m(imp.old, 'elapsedMs'), m(imp.now, 'elapsedMs'), fmtMs);
  row('import: peak memory / file size', median(imp.old.map(mem)), median(imp.now.map(mem)), (x) => `${x.toFixed(2)}x`, {
    limit: MEMORY_TARGET,
    label: `< ${MEMORY_TARGET}x`,
  });
  const plan = { old: child(['plan', file, 'old']), now: child(['plan', file, 'new']) };
  data.plan = plan;
  row('import + count + plan: peak memory / file size', mem(plan.old), mem(plan.now), (x) => `${x.toFixed(2)}x`, {
    limit: MEMORY_TARGET,
    label: `< ${MEMORY_TARGET}x`,
  });
  row('  same, max host-thread block', plan.old.maxBlockMs, plan.now.maxBlockMs, fmtMs);
  // The same, phase by phase (the child marks where import, count and plan start).
  const phase = (r: Record<string, number>, k: string) => (r.phases as unknown as Record<string, number> | undefined)?.[k] ?? NaN;
  for (const k of ['import', 'count', 'plan']) row(`    longest block in the ${k} phase`, phase(plan.old, k), phase(plan.now, k), fmtMs);
  // The inspector's strategy preview of that session once imported and counted (old: preview; new: previewSliced).
  const preview = bothWays(['preview', file]);
  data.preview = preview;
  row(
    'inspector preview (recursive-summarization): max host-thread block',
    m(preview.old, 'maxBlockMs'),
    m(preview.now, 'maxBlockMs'),
    fmtMs,
    {
      limit: BLOCK_TARGET_MS,
      label: `≤ ${BLOCK_TARGET_MS} ms`,
    },
  );
  row('  same, wall time', m(preview.old, 'elapsedMs'), m(preview.now, 'elapsedMs'), fmtMs);
}

/** First paint of Inspect Session File… on the largest real session. */
function measureFirstPaint({ bothWays, m, row, rows, data }: HostWaitRecorder): void {
  const dir = realSessionsDir();
  const real = dir
    ? readdirSync(dir)
        .filter((f) => f.endsWith('.jsonl'))
        .map((f) => join(dir, f))
        .sort((a, b) => statSync(b).size - statSync(a).size)[0]
    : undefined;
  if (real) {
    const fp = bothWays(['first-paint', real]);
    data.firstPaint = { file: real, ...fp };
    const label = `${real.split('/').pop()} (${fmtBytes(statSync(real).size)})`;
    row(`Inspect file… first paint, ${label}`, m(fp.old, 'firstPaintMs'), m(fp.now, 'firstPaintMs'), fmtMs, {
      limit: PAINT_TARGET_MS,
      label: `< ${PAINT_TARGET_MS} ms`,
    });
    row('  same, until exact counts are shown', m(fp.old, 'exactMs'), m(fp.now, 'exactMs'), fmtMs);
    row('  same, max host-thread block', m(fp.old, 'maxBlockMs'), m(fp.now, 'maxBlockMs'), fmtMs);
  } else {
    rows.push(['Inspect file… first paint', 'not available: no real sessions folder', '', '', '']);
  }
}
