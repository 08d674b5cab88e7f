// Item 6: activation time of the extension bundle, and the size of each bundle and of the .vsix.
//
// Activation: a fresh process per run (bench/children/activation.ts) requires the bundle with a
// `vscode` stub and calls activate() with a fake ExtensionContext. Baseline: a minimal extension
// (one registered command) under the same harness.
//
// Sizes: the development build in dist/ (what `npm run build` just wrote; the baseline) and a
// production build (`node esbuild.mjs --production`, the first half of `npm run package`) made in a
// scratch copy of the project, so dist/ in the working tree is left alone; the .vsix is packaged
// from that copy with `npx @vscode/vsce package --no-dependencies -o <tmp>`.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { BenchContext } from './context';
import { fmtBytes, fmtMs, fmtRatio, log, median, REPO, runChild, type SectionResult, type Table, type TargetResult } from './lib';

const TITLE = '6. Extension: activation and sizes';

interface ActivationRun {
  requireMs: number;
  activateMs: number;
  totalMs: number;
  /** The longest block from the require until activate()'s promise resolved (children/activation.ts). */
  activationBlockMs?: number;
  heapActivateBytes: number;
  heapAfter2sBytes: number;
  maxEventLoopDelayAfterMs: number;
  subscriptions: number;
  error?: string;
}

const MINIMAL_EXTENSION = `"use strict";
const vscode = require('vscode');
exports.activate = (context) => {
  context.subscriptions.push(vscode.commands.registerCommand('bench.hello', () => undefined));
};
exports.deactivate = () => undefined;
`;

type ProductionBuild = { ok: true } | { ok: false; reason: string };
type VsixResult = { ok: true; path: string; ms: number } | { ok: false; reason: string };

export async function benchExtension(ctx: BenchContext): Promise<SectionResult> {
  const pkgDir = join(ctx.tmp, 'package');
  const { production, vsix } = buildProductionPackage(ctx, pkgDir);
  const activation = measureActivation(ctx, pkgDir, production);
  const sizes = measureSizes(pkgDir, production, vsix);
  return {
    id: 'extension',
    title: TITLE,
    tables: [activation.table, sizes.table],
    targets: [activation.target, sizes.target],
    data: { activation: activation.runs, sizes: sizes.data, vsix: sizes.vsixData },
  };
}

/** A production build (and the .vsix) in a scratch copy of the project. */
function buildProductionPackage(ctx: BenchContext, pkgDir: string): { production: ProductionBuild; vsix: VsixResult } {
  let production: ProductionBuild;
  let vsix: VsixResult;
  const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  try {
    prepareScratchCopy(pkgDir);
    const build = spawnSync(process.execPath, [join(REPO, 'esbuild.mjs'), '--production'], {
      cwd: pkgDir,
      encoding: 'utf8',
      timeout: 180_000,
    });
    production =
      build.status === 0
        ? { ok: true }
        : { ok: false, reason: `node esbuild.mjs --production failed: ${(build.stderr || build.stdout).slice(-300)}` };
  } catch (e) {
    production = { ok: false, reason: (e as Error).message };
  }
  if (!pkg.scripts?.package) vsix = { ok: false, reason: 'package.json has no "package" script' };
  else if (!production.ok) vsix = { ok: false, reason: `no production build (${production.reason})` };
  else {
    const out = join(ctx.tmp, 'splitpoint.vsix');
    const t = performance.now();
    const r = spawnSync('npx', ['--no-install', '@vscode/vsce', 'package', '--no-dependencies', '-o', out], {
      cwd: pkgDir,
      encoding: 'utf8',
      timeout: 240_000,
    });
    vsix =
      r.status === 0 && existsSync(out)
        ? { ok: true, path: out, ms: performance.now() - t }
        : { ok: false, reason: `vsce package failed: ${(r.stderr || r.stdout || String(r.error)).trim().split('\n').slice(-3).join(' ')}` };
  }
  log(`production build: ${production.ok ? 'ok' : production.reason}; vsix: ${vsix.ok ? 'ok' : vsix.reason}`);

  return { production, vsix };
}

/** Activation: a fresh process per run, the minimal extension (baseline) and each built bundle. */
function measureActivation(
  ctx: BenchContext,
  pkgDir: string,
  production: ProductionBuild,
): { table: Table; target: TargetResult; runs: Record<string, ActivationRun[]> } {
  const devBundle = join(REPO, 'dist', 'extension.js');
  const reps = ctx.quick ? 2 : 5;
  const minimal = join(ctx.tmp, 'minimal-extension.js');
  writeFileSync(minimal, MINIMAL_EXTENSION);
  const activate = (bundle: string, repo: string, i: number) =>
    runChild<ActivationRun>(ctx.activationScript, [bundle, join(ctx.tmp, `ws-${i}`), join(ctx.tmp, `storage-${i}`)], {
      nodeArgs: ['--expose-gc'],
      env: { SPLITPOINT_REPO: repo },
      timeoutMs: 60_000,
    });
  const runs: Record<string, ActivationRun[]> = { minimal: [] };
  const bundles: Array<[string, string, string]> = [];
  if (existsSync(devBundle)) bundles.push(['development build (dist/extension.js)', devBundle, REPO]);
  if (production.ok && existsSync(join(pkgDir, 'dist', 'extension.js')))
    bundles.push(['production build (minified)', join(pkgDir, 'dist', 'extension.js'), pkgDir]);
  for (const [label] of bundles) runs[label] = [];
  for (let i = 0; i < reps; i++) {
    runs.minimal.push(activate(minimal, REPO, i));
    for (const [label, bundle, repo] of bundles) runs[label].push(activate(bundle, repo, i));
  }
  if (bundles.length === 0) {
    return {
      table: {
        title: '6a. Activation',
        columns: ['measure', 'result'],
        rows: [['activation', 'not available: dist/extension.js does not exist (src/extension/extension.ts not built)']],
      },
      target: { target: 'activation (reported; no numeric target)', status: 'not available', detail: 'no extension bundle' },
      runs,
    };
  }
  return {
    ...activationReport(
      runs,
      bundles.map(([label]) => label),
      reps,
    ),
    runs,
  };
}

/** The activation table (ratios against the minimal extension) and target (the last bundle: production if built). */
function activationReport(runs: Record<string, ActivationRun[]>, labels: string[], reps: number): { table: Table; target: TargetResult } {
  const med = (label: string, f: (r: ActivationRun) => number) => median(runs[label].map(f));
  const base = med('minimal', (r) => r.totalMs);
  // Activation may take several turns (src/extension/shell.ts): the thread's longest block during it.
  const during = (r: ActivationRun) => r.activationBlockMs ?? r.totalMs;
  const errors = labels.map((label) => runs[label].find((r) => r.error)?.error).filter(Boolean);
  const rowsFor = (label: string): string[][] => {
    if (runs[label].some((r) => r.error))
      return [[label, `not available: activate() failed under the stub: ${runs[label].find((r) => r.error)!.error}`, '']];
    return [
      [`${label}: require(bundle)`, fmtMs(med(label, (r) => r.requireMs)), fmtRatio(med(label, (r) => r.requireMs) / base)],
      [`${label}: activate()`, fmtMs(med(label, (r) => r.activateMs)), fmtRatio(med(label, (r) => r.activateMs) / base)],
      [`${label}: require + activate`, fmtMs(med(label, (r) => r.totalMs)), fmtRatio(med(label, (r) => r.totalMs) / base)],
      [`${label}: longest block of the thread during require + activate`, fmtMs(med(label, during)), fmtRatio(med(label, during) / base)],
      [`${label}: heap retained after activate()`, fmtBytes(med(label, (r) => r.heapActivateBytes)), ''],
      [`${label}: heap retained 2 s later`, fmtBytes(med(label, (r) => r.heapAfter2sBytes)), ''],
      [
        `${label}: longest event-loop block in the 2 s after activation`,
        fmtMs(med(label, (r) => r.maxEventLoopDelayAfterMs)),
        fmtRatio(med(label, (r) => r.maxEventLoopDelayAfterMs) / base),
      ],
    ];
  };
  const table: Table = {
    title: '6a. Activation (fresh process per run, `vscode` stubbed); ratio = value / baseline',
    columns: ['measure', 'time / heap', 'ratio'],
    rows: [
      ['minimal extension, one command: require + activate (baseline)', fmtMs(base), fmtRatio(1)],
      ...labels.flatMap((label) => rowsFor(label)),
    ],
    notes: [
      `Median of ${reps} runs each. The stub answers settings with package.json's contributed defaults; ` +
        `the workspace and storage folders are empty scratch folders. ` +
        `"2 s later": the extension defers work off the activation path (the tokenizer's rank load in a setTimeout); ` +
        `a chain of 1 ms timers started right after activate() records the longest gap between its ticks, ` +
        `i.e. how long that deferred work blocks the host thread when it runs.`,
      ...(errors.length ? [`activate() errors: ${errors.join('; ')}`] : []),
    ],
  };
  const label = labels[labels.length - 1];
  if (!runs[label].some((r) => r.error)) {
    return {
      table,
      target: {
        target: 'activation time (reported; ranks must stay off the activation path)',
        status: 'reported',
        detail:
          `${label}: require + activate ${fmtMs(med(label, (r) => r.totalMs))} (minimal extension ${fmtMs(base)}), ` +
          `its longest block ${fmtMs(med(label, during))}; ` +
          `heap after activate ${fmtBytes(med(label, (r) => r.heapActivateBytes))}, 2 s later ${fmtBytes(med(label, (r) => r.heapAfter2sBytes))}; ` +
          `the deferred work then blocks the thread for ${fmtMs(med(label, (r) => r.maxEventLoopDelayAfterMs))}`,
      },
    };
  }
  return {
    table,
    target: {
      target: 'activation time (reported)',
      status: 'not available',
      detail: `activate() failed under the stub: ${runs[label].find((r) => r.error)!.error}`,
    },
  };
}

/** Sizes of the development and production bundles and of the .vsix. */
function measureSizes(
  pkgDir: string,
  production: ProductionBuild,
  vsix: VsixResult,
): { table: Table; target: TargetResult; data: unknown; vsixData: unknown } {
  const files = new Set<string>();
  for (const dir of [join(REPO, 'dist'), join(pkgDir, 'dist')])
    for (const f of listFiles(dir)) if (!f.endsWith('.map')) files.add(relative(dir, f));
  const sizeOf = (path: string) => (existsSync(path) ? statSync(path).size : undefined);
  const gzOf = (path: string) => (existsSync(path) ? gzipSync(readFileSync(path)).length : undefined);
  const sizeRows = [...files].sort().map((f) => {
    const dev = sizeOf(join(REPO, 'dist', f));
    const prod = production.ok ? sizeOf(join(pkgDir, 'dist', f)) : undefined;
    return [
      `dist/${f}`,
      fmtBytes(dev),
      prod === undefined ? (production.ok ? 'not built' : 'n/a') : fmtBytes(prod),
      dev && prod ? fmtRatio(prod / dev) : 'n/a',
      fmtBytes(production.ok ? gzOf(join(pkgDir, 'dist', f)) : gzOf(join(REPO, 'dist', f))),
    ];
  });
  const vsixSize = vsix.ok ? statSync(vsix.path).size : undefined;
  sizeRows.push([
    '.vsix (npx @vscode/vsce package --no-dependencies)',
    'n/a',
    vsix.ok ? fmtBytes(vsixSize) : `not available: ${vsix.reason}`,
    'n/a',
    vsix.ok ? '(zip)' : 'n/a',
  ]);
  const table: Table = {
    title: '6b. Sizes: development build (baseline) vs production build; ratio = production / development',
    columns: ['file', 'development (npm run build)', 'production (--production)', 'ratio', 'gzip of the shipped build'],
    rows: sizeRows.length > 1 ? sizeRows : [['bundles', 'not available: dist/ is empty (nothing built)', '', '', ''], ...sizeRows],
    notes: [
      'Source maps are not listed (.vscodeignore keeps them out of the .vsix). ' +
        'The production build and the .vsix are made in a scratch copy of the project, so dist/ in the working tree stays as `npm run build` left it.',
      ...(vsix.ok ? [`vsce package took ${fmtMs(vsix.ms)}; .vsix entries: ${vsixEntries(vsix.path).join(', ')}.`] : []),
    ],
  };
  const data = Object.fromEntries(
    [...files].map((f) => [
      f,
      {
        dev: sizeOf(join(REPO, 'dist', f)),
        production: production.ok ? sizeOf(join(pkgDir, 'dist', f)) : undefined,
        gzip: production.ok ? gzOf(join(pkgDir, 'dist', f)) : gzOf(join(REPO, 'dist', f)),
      },
    ]),
  );
  const vsixData = vsix.ok ? { bytes: vsixSize, entries: vsixEntries(vsix.path) } : { available: false, reason: vsix.reason };
  const target: TargetResult = {
    target: 'bundle and .vsix sizes (reported; no numeric target)',
    status: vsix.ok ? 'reported' : 'not available',
    detail: vsix.ok
      ? `.vsix ${fmtBytes(vsixSize)}; production dist/extension.js ${fmtBytes(sizeOf(join(pkgDir, 'dist', 'extension.js')))}, ` +
        `ranks file ${fmtBytes(sizeOf(join(pkgDir, 'dist', 'tokenizer', 'gpt-tokenizer-o200k.js')))}`
      : vsix.reason,
  };
  return { table, target, data, vsixData };
}

/** The project files a production build and `vsce package` need, copied (sources linked). */
function prepareScratchCopy(dir: string): void {
  mkdirSync(dir, { recursive: true });
  for (const name of ['package.json', 'README.md', 'CHANGELOG.md', 'LICENSE', '.vscodeignore', 'tsconfig.json']) {
    if (existsSync(join(REPO, name))) cpSync(join(REPO, name), join(dir, name));
  }
  if (existsSync(join(REPO, 'media'))) cpSync(join(REPO, 'media'), join(dir, 'media'), { recursive: true });
  for (const name of ['src', 'webview', 'node_modules']) if (existsSync(join(REPO, name))) symlinkSync(join(REPO, name), join(dir, name));
}

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? listFiles(join(dir, e.name)) : [join(dir, e.name)]));
}

/** Names and uncompressed sizes of the entries in a zip (central directory), largest first. */
function vsixEntries(path: string): string[] {
  const buf = readFileSync(path);
  const eocd = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) return ['(not a zip)'];
  const count = buf.readUInt16LE(eocd + 10);
  let at = buf.readUInt32LE(eocd + 16);
  const out: Array<[string, number]> = [];
  for (let i = 0; i < count && buf.readUInt32LE(at) === 0x02014b50; i++) {
    const size = buf.readUInt32LE(at + 24);
    const nameLen = buf.readUInt16LE(at + 28);
    const extra = buf.readUInt16LE(at + 30);
    const comment = buf.readUInt16LE(at + 32);
    out.push([buf.subarray(at + 46, at + 46 + nameLen).toString('utf8'), size]);
    at += 46 + nameLen + extra + comment;
  }
  return out.sort((a, b) => b[1] - a[1]).map(([n, s]) => `${n} ${fmtBytes(s)}`);
}
