// Item 4: heap through the life of a session (fresh process with --expose-gc per run).
import { sizeLabel, type BenchContext } from './context';
import { fmtBytes, fmtRatio, log, median, runChild, type SectionResult, type Table, type TargetResult } from './lib';
import type { BenchSize } from './sessions';

interface MemoryRun {
  size: number;
  tokens: number;
  jsonChars: number;
  samples: Array<{ step: string; heapUsed: number; retained?: number }>;
  peakHeapUsed: number;
  heapSizeLimit: number;
  peakMallocedMemory: number;
  maxRssBytes: number;
}

export async function benchMemory(ctx: BenchContext): Promise<SectionResult> {
  const runs = new Map<BenchSize, MemoryRun[]>();
  for (const size of ctx.sizes) {
    const reps = ctx.quick ? 1 : size >= 10_000 ? 3 : 1;
    for (let i = 0; i < reps; i++)
      runs.set(size, [
        ...(runs.get(size) ?? []),
        runChild<MemoryRun>(ctx.childScript, ['memory', String(size)], { nodeArgs: ['--expose-gc'], timeoutMs: 300_000 }),
      ]);
  }
  log('memory done');
  const sizes = ctx.sizes;
  const retainedAt = (r: MemoryRun, step: string) => r.samples.find((s) => s.step === step)?.retained ?? NaN;
  const med = (size: BenchSize, f: (r: MemoryRun) => number) => median(runs.get(size)!.map(f));
  const start = (r: MemoryRun) => retainedAt(r, 'start (modules loaded)');
  const sessionHeap = (r: MemoryRun) => retainedAt(r, 'session generated') - start(r);
  const steps: Array<[string, (r: MemoryRun) => number]> = [
    ['session messages retained (baseline)', sessionHeap],
    ['+ gpt-tokenizer ranks', (r) => retainedAt(r, 'gpt-tokenizer ranks loaded') - retainedAt(r, 'session generated')],
    [
      '+ token memo (every message counted)',
      (r) => retainedAt(r, 'session counted (memo filled)') - retainedAt(r, 'gpt-tokenizer ranks loaded'),
    ],
    [
      '+ pipeline micro-compacted view',
      (r) => retainedAt(r, 'pipeline synced (micro-compacted view)') - retainedAt(r, 'session counted (memo filled)'),
    ],
    [
      '+ one plan of every strategy, held',
      (r) => retainedAt(r, 'all plans held') - retainedAt(r, 'pipeline synced (micro-compacted view)'),
    ],
    ['retained at the end, above the start', (r) => retainedAt(r, 'all plans held') - start(r)],
    ['peak heapUsed, above the start (sampled)', (r) => r.peakHeapUsed - start(r)],
    ['peak heapUsed, absolute', (r) => r.peakHeapUsed],
    ['max RSS of the process', (r) => r.maxRssBytes],
  ];
  const table: Table = {
    title: '4. Memory: heap through the life of a session (fresh process, --expose-gc); ratio = value / session messages retained',
    columns: ['heap', ...sizes.flatMap((s) => [sizeLabel(ctx, s), 'ratio'])],
    rows: steps.map(([label, f]) => [label, ...sizes.flatMap((s) => [fmtBytes(med(s, f)), fmtRatio(med(s, f) / med(s, sessionHeap))])]),
    notes: [
      `"retained" = heapUsed after a forced full GC; "peak" = the highest heapUsed read before any GC, ` +
        `after every step and every 5 ms while the session is counted in the background ` +
        `(a sampler cannot see inside a synchronous step, so the true peak may be a little higher). ` +
        `Median of ${ctx.quick ? 1 : 3} runs at the largest size, 1 run at the others.`,
      `Session JSON size: ${sizes.map((s) => `${fmtBytes(med(s, (r) => r.jsonChars))} at ${s} msgs`).join(', ')}. ` +
        `js-tiktoken ranks instead of gpt-tokenizer's: see 1f.`,
    ],
  };
  const large = sizes[sizes.length - 1];
  const peak = med(large, (r) => r.peakHeapUsed);
  const targets: TargetResult[] = [
    {
      target: 'memory: peak heap for the ~1M-token session (reported; no numeric target)',
      status: 'reported',
      detail:
        `peak heapUsed ${fmtBytes(peak)} absolute, ${fmtBytes(med(large, (r) => r.peakHeapUsed - start(r)))} above the process start; ` +
        `session messages ${fmtBytes(med(large, sessionHeap))}; max RSS ${fmtBytes(med(large, (r) => r.maxRssBytes))}`,
    },
  ];
  return { id: 'memory', title: '4. Memory', tables: [table], targets, data: Object.fromEntries(runs) };
}
