// Small helpers shared by the bench sections: timing, statistics, formatting, markdown tables and
// child processes.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export const REPO = process.env.SPLITPOINT_REPO ?? join(import.meta.dirname ?? __dirname, '..');

export function now(): number {
  return performance.now();
}

let gcFn: (() => void) | undefined;

/** A full garbage collection now (exposed at run time, so the bench needs no --expose-gc flag). */
export function forceGc(): void {
  if (!gcFn) {
    setFlagsFromString('--expose-gc');
    gcFn = runInNewContext('gc') as () => void;
  }
  gcFn();
}

/** Wall time of one call, in ms. */
export function timeOnce(fn: () => unknown): number {
  const t = performance.now();
  fn();
  return performance.now() - t;
}

/** `reps` timings of fn after `warmup` untimed calls. */
export function sample(fn: (rep: number) => unknown, reps: number, warmup = 0): number[] {
  for (let i = 0; i < warmup; i++) fn(-1 - i);
  const out: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t = performance.now();
    fn(i);
    out.push(performance.now() - t);
  }
  return out;
}

export async function sampleAsync(fn: (rep: number) => Promise<unknown>, reps: number, warmup = 0): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn(-1 - i);
  const out: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
  }
  return out;
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export function quantile(xs: readonly number[], q: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.round(q * (s.length - 1))))];
}

/** Median with the spread, for the JSON. */
export interface Stat {
  median: number;
  min: number;
  max: number;
  n: number;
}

export function stat(xs: readonly number[]): Stat {
  return { median: median(xs), min: Math.min(...xs), max: Math.max(...xs), n: xs.length };
}

// ---------------------------------------------------------------------------------------------
// Formatting

export function fmtMs(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return 'n/a';
  if (ms >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms >= 1_000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 100) return `${ms.toFixed(0)} ms`;
  if (ms >= 10) return `${ms.toFixed(1)} ms`;
  if (ms >= 1) return `${ms.toFixed(2)} ms`;
  if (ms >= 0.01) return `${ms.toFixed(3)} ms`;
  return `${(ms * 1000).toFixed(2)} µs`;
}

/** A ratio: 3 significant figures, with a × sign. */
export function fmtRatio(r: number | undefined): string {
  if (r === undefined || !Number.isFinite(r)) return 'n/a';
  if (r < 1) return `×${r.toPrecision(2)}`;
  if (r >= 100) return `×${r.toFixed(0)}`;
  if (r >= 10) return `×${r.toFixed(1)}`;
  return `×${r.toFixed(2)}`;
}

export function fmtBytes(n: number | undefined): string {
  if (n === undefined || !Number.isFinite(n)) return 'n/a';
  if (n < 0) return `-${fmtBytes(-n)}`;
  if (n >= 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${n} B`;
}

export function fmtInt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

export function fmtPct(x: number): string {
  return `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;
}

// ---------------------------------------------------------------------------------------------
// Markdown

export interface Table {
  title: string;
  columns: string[];
  rows: string[][];
  /** Sentences under the table: what was measured, baseline, caveats. */
  notes?: string[];
}

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

export function tableMarkdown(t: Table): string {
  const lines = [
    `#### ${t.title}`,
    '',
    `| ${t.columns.map(cell).join(' | ')} |`,
    `| ${t.columns.map((_, i) => (i === 0 ? '---' : '---:')).join(' | ')} |`,
  ];
  for (const row of t.rows) lines.push(`| ${row.map(cell).join(' | ')} |`);
  if (t.notes?.length) lines.push('', ...t.notes.map((n) => `- ${n}`));
  return lines.join('\n');
}

export type TargetStatus = 'met' | 'missed' | 'not available' | 'reported';

export interface TargetResult {
  target: string;
  status: TargetStatus;
  detail: string;
}

export interface SectionResult {
  id: string;
  title: string;
  tables: Table[];
  targets: TargetResult[];
  /** Raw numbers for the JSON file. */
  data: unknown;
  notes?: string[];
}

export function notAvailable(id: string, title: string, reason: string, targets: string[] = []): SectionResult {
  return {
    id,
    title,
    tables: [{ title, columns: ['measure', 'result'], rows: [['all', `not available: ${reason}`]] }],
    targets: targets.map((target) => ({ target, status: 'not available', detail: reason })),
    data: { available: false, reason },
  };
}

// ---------------------------------------------------------------------------------------------
// Child processes

export interface ChildOptions {
  nodeArgs?: string[];
  timeoutMs?: number;
  env?: Record<string, string>;
}

/** Run a built child script and parse the JSON it prints on its last stdout line. */
export function runChild<T>(script: string, args: string[], o: ChildOptions = {}): T {
  const r = spawnSync(process.execPath, [...(o.nodeArgs ?? []), script, ...args], {
    encoding: 'utf8',
    timeout: o.timeoutMs ?? 120_000,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, SPLITPOINT_REPO: REPO, ...o.env },
    cwd: REPO,
  });
  if (r.status !== 0) {
    throw new Error(
      `child ${script} ${args.join(' ')} failed (status ${r.status}, signal ${r.signal}): ${(r.stderr || r.stdout || String(r.error)).slice(-2000)}`,
    );
  }
  const lines = r.stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]) as T;
}

export function log(message: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}
