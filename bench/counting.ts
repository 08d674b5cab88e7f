// Item 1: token counting. Cold first counts (a fresh process per run), per-turn recounts, the two
// o200k encoders themselves (throughput, identical counts, rank loading) and the accuracy of chars/4.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Message } from '../src/core/conversation/conversation';
import { countMessagesInBackground } from '../src/core/counting/backgroundCounting';
import { createTokenizer, warmupTokenizer, type TokenizerName } from '../src/core/counting/tokenizers';
import { CharEstimateTokenizer, countMessageWith, MemoizedMessageCounter, type TextTokenizer } from '../src/core/counting/tokens';
import type { ColdMethod } from './children/child';
import { sizeLabel, type BenchContext } from './context';
import {
  fmtBytes,
  fmtInt,
  fmtMs,
  fmtPct,
  fmtRatio,
  log,
  median,
  REPO,
  runChild,
  sample,
  stat,
  type SectionResult,
  type Table,
  type TargetResult,
} from './lib';
import { benchExchange, type BenchSize } from './sessions';

const requireHere = createRequire(__filename);

/** gpt-tokenizer keeps a merge cache of 100,000 pieces; cleared before every timed gpt pass. */
function clearGptMergeCache(): void {
  (requireHere('gpt-tokenizer/encoding/o200k_base') as { clearMergeCache(): void }).clearMergeCache();
}

interface ColdRun {
  method: ColdMethod;
  size: number;
  tokens: number;
  ms: number;
  loadMs: number;
  elapsedMs?: number;
  busyMs?: number;
  longestSliceMs?: number;
  longestSliceCpuMs?: number;
  slices?: number;
  maxEventLoopDelayMs?: number;
}

interface RankLoadRun {
  encoder: TokenizerName;
  loadMs: number;
  firstCallMs: number;
  heapBytes: number;
}

const COLD_METHODS: ColdMethod[] = ['tiktoken-pass', 'gpt-memo', 'tiktoken-memo', 'gpt-background', 'chars4-json'];

/** The texts countMessageWith counts for these messages, in order. */
function textsOf(messages: readonly Message[]): string[] {
  const texts: string[] = [];
  const recorder: TextTokenizer = { name: 'recorder', countText: (t) => (texts.push(t), 0) };
  for (const m of messages) countMessageWith(recorder, m);
  return texts;
}

export async function benchCounting(ctx: BenchContext): Promise<SectionResult> {
  const coldReps = ctx.quick ? 1 : 3;
  const rankReps = ctx.quick ? 2 : 5;

  // --- Rank loading, fresh process per run.
  const rankRuns: Record<string, RankLoadRun[]> = { 'js-tiktoken': [], 'gpt-tokenizer': [] };
  for (let rep = 0; rep < rankReps; rep++) {
    for (const encoder of ['js-tiktoken', 'gpt-tokenizer'] as const) {
      rankRuns[encoder].push(runChild<RankLoadRun>(ctx.childScript, ['rank-load', encoder], { nodeArgs: ['--expose-gc'] }));
    }
  }
  log(
    `rank load: js-tiktoken ${fmtMs(median(rankRuns['js-tiktoken'].map((r) => r.loadMs)))}, ` +
      `gpt-tokenizer ${fmtMs(median(rankRuns['gpt-tokenizer'].map((r) => r.loadMs)))}`,
  );

  // --- Cold counts, fresh process per (size, method, run); methods interleaved across runs.
  const cold = new Map<string, ColdRun[]>();
  for (const size of ctx.sizes) {
    for (let rep = 0; rep < coldReps; rep++) {
      for (const method of COLD_METHODS) {
        const run = runChild<ColdRun>(ctx.childScript, ['cold-count', String(size), method], { timeoutMs: 300_000 });
        const key = `${size}:${method}`;
        cold.set(key, [...(cold.get(key) ?? []), run]);
      }
    }
    log(`cold counts at ${size} messages done`);
  }
  const coldMed = (size: number, method: ColdMethod, field: keyof ColdRun = 'ms') =>
    median((cold.get(`${size}:${method}`) ?? []).map((r) => Number(r[field])));
  const coldTokens = (size: number, method: ColdMethod) => (cold.get(`${size}:${method}`) ?? [])[0]?.tokens;

  // --- Warm, in this process: the encoders and per-turn recounts.
  const gpt = createTokenizer('gpt-tokenizer');
  const tiktoken = createTokenizer('js-tiktoken');
  warmupTokenizer(gpt);
  warmupTokenizer(tiktoken);
  const encoderData: Record<number, unknown> = {};
  const perTurn: Record<number, Record<string, number[]>> = {};
  const accuracy: Record<number, { o200k: number; json4: number; text4: number; meanAbsMessageError: number }> = {};
  const encoderRows: Record<
    number,
    { tiktokenMBs: number; gptMBs: number; chars: number; texts: number; differing: number; tiktokenTotal: number; gptTotal: number }
  > = {};

  for (const size of ctx.sizes) {
    const messages = ctx.sessions.get(size)!;
    const big = size >= 10_000;
    // Encoders: every text the counter counts, one pass per encoder per rep.
    const texts = textsOf(messages);
    const chars = texts.reduce((n, t) => n + t.length, 0);
    const passReps = ctx.quick ? 1 : big ? 3 : 5;
    let gptCounts: number[] = [];
    let tiktokenCounts: number[] = [];
    // Passes alternate between the encoders, so a noisy moment on the shared cores hits both alike.
    const gptPass = () => {
      clearGptMergeCache();
      gptCounts = texts.map((t) => gpt.countText(t));
    };
    const tiktokenPass = () => (tiktokenCounts = texts.map((t) => tiktoken.countText(t)));
    gptPass();
    if (!big) tiktokenPass();
    const gptTimes: number[] = [];
    const tiktokenTimes: number[] = [];
    for (let i = 0; i < passReps; i++) {
      gptTimes.push(...sample(gptPass, 1));
      tiktokenTimes.push(...sample(tiktokenPass, 1));
    }
    let differing = 0;
    for (let i = 0; i < texts.length; i++) if (gptCounts[i] !== tiktokenCounts[i]) differing++;
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    encoderRows[size] = {
      tiktokenMBs: chars / 1e6 / (median(tiktokenTimes) / 1000),
      gptMBs: chars / 1e6 / (median(gptTimes) / 1000),
      chars,
      texts: texts.length,
      differing,
      tiktokenTotal: sum(tiktokenCounts),
      gptTotal: sum(gptCounts),
    };
    encoderData[size] = { ...encoderRows[size], gptPassMs: stat(gptTimes), tiktokenPassMs: stat(tiktokenTimes) };

    // Per turn: one message (a 4 KB tool result) appended to the history, then the whole count.
    const counter = new MemoizedMessageCounter(gpt);
    counter.countMessages(messages);
    const withTurn = (rep: number) => [...messages, benchExchange(1_000 + rep)[1]];
    const turns = Array.from({ length: 40 }, (_, i) => withTurn(i));
    let k = 0;
    const memo = sample(() => counter.countMessages(turns[k++ % turns.length]), ctx.quick ? 5 : 31, 3);
    const recountReps = ctx.quick ? 1 : big ? 3 : 5;
    const tiktokenRecount = sample(() => new MemoizedMessageCounter(tiktoken).countMessages(turns[k++ % turns.length]), recountReps);
    const gptRecount = sample(() => {
      clearGptMergeCache();
      new MemoizedMessageCounter(gpt).countMessages(turns[k++ % turns.length]);
    }, recountReps);
    const json4 = sample(() => JSON.stringify(turns[k++ % turns.length]).length / 4, ctx.quick ? 2 : 7, 1);
    perTurn[size] = { memo, tiktokenRecount, gptRecount, json4 };

    // Accuracy of chars/4 against the o200k count.
    const chars4 = new CharEstimateTokenizer();
    let o200k = 0;
    let text4 = 0;
    let absErr = 0;
    for (const m of messages) {
      const exact = counter.countMessage(m);
      const estimate = countMessageWith(chars4, m);
      o200k += exact;
      text4 += estimate;
      absErr += Math.abs(estimate - exact) / exact;
    }
    accuracy[size] = { o200k, json4: JSON.stringify(messages).length / 4, text4, meanAbsMessageError: absErr / messages.length };
    log(`encoders / per-turn / accuracy at ${size} messages done`);
  }

  // A background count in this (warm) process too, sharing the thread with a 1 ms timer, at the
  // largest size: the longest slice it reports, next to the event-loop delay the timer saw.
  const largest = ctx.sizes[ctx.sizes.length - 1];
  const bg = await countMessagesInBackground(new MemoizedMessageCounter(gpt), ctx.sessions.get(largest)!, { sliceMs: 8 });

  // --- Tables.
  const sizes = ctx.sizes;
  const header = ['method', ...sizes.flatMap((s) => [sizeLabel(ctx, s), 'ratio'])];
  const row = (
    label: string,
    value: (s: BenchSize) => number,
    baseline: (s: BenchSize) => number,
    fmt = fmtMs,
    ratio: 'speedup' | 'ratio' = 'speedup',
  ) => [
    label,
    ...sizes.flatMap((s) => {
      const v = value(s);
      const b = baseline(s);
      return [fmt(v), fmtRatio(ratio === 'speedup' ? b / v : v / b)];
    }),
  ];
  const basePass = (s: BenchSize) => coldMed(s, 'tiktoken-pass');
  const coldTable: Table = {
    title: '1a. Cold count: first count of the whole session (fresh process per run; ranks already loaded)',
    columns: header,
    rows: [
      row('js-tiktoken, one uncached pass (baseline)', basePass, basePass),
      row('Splitpoint memoized counter, gpt-tokenizer (default)', (s) => coldMed(s, 'gpt-memo'), basePass),
      row('Splitpoint memoized counter, js-tiktoken', (s) => coldMed(s, 'tiktoken-memo'), basePass),
      row('Splitpoint background count, gpt-tokenizer, 8 ms slices: wall time', (s) => coldMed(s, 'gpt-background'), basePass),
      row('  … of which busy (slices summed)', (s) => coldMed(s, 'gpt-background', 'busyMs'), basePass),
      row('chars/4 of JSON.stringify(messages) (seeds)', (s) => coldMed(s, 'chars4-json'), basePass),
    ],
    notes: [
      `Median of ${coldReps} fresh processes per cell (esbuild bundle of bench/children/child.ts, like the extension's); ` +
        `ratio = baseline time / time (×4 means four times faster).`,
      'Counts: ' +
        sizes
          .map((s) => {
            const ref = coldTokens(s, 'tiktoken-pass');
            const same = (['gpt-memo', 'tiktoken-memo', 'gpt-background'] as ColdMethod[]).every((m) => coldTokens(s, m) === ref);
            return (
              `${s} msgs: js-tiktoken ${fmtInt(ref ?? NaN)}, gpt-tokenizer ${fmtInt(coldTokens(s, 'gpt-memo') ?? NaN)} ` +
              `(${same ? 'identical in every method' : 'DIFFERENT'})`
            );
          })
          .join('; ') +
        '.',
    ],
  };
  const baseLoadPass = (s: BenchSize) => coldMed(s, 'tiktoken-pass') + coldMed(s, 'tiktoken-pass', 'loadMs');
  const coldWithLoadTable: Table = {
    title: '1b. Cold count including the rank load (what a fresh extension host pays on its first count)',
    columns: header,
    rows: [
      row('js-tiktoken: load ranks + one pass (baseline)', baseLoadPass, baseLoadPass),
      row(
        'Splitpoint memoized, gpt-tokenizer: load ranks + first count',
        (s) => coldMed(s, 'gpt-memo') + coldMed(s, 'gpt-memo', 'loadMs'),
        baseLoadPass,
      ),
      row(
        'Splitpoint background, gpt-tokenizer: load ranks + sliced count (wall)',
        (s) => coldMed(s, 'gpt-background', 'elapsedMs'),
        baseLoadPass,
      ),
    ],
  };
  const baseBlock = basePass;
  const blockingTable: Table = {
    title: '1c. Longest time the thread is blocked by one synchronous step during a cold count (target: <= 50 ms)',
    columns: header,
    rows: [
      row('js-tiktoken, one uncached pass (baseline: all one step)', baseBlock, baseBlock, fmtMs, 'ratio'),
      row('Splitpoint memoized countMessages, gpt-tokenizer (one step)', (s) => coldMed(s, 'gpt-memo'), baseBlock, fmtMs, 'ratio'),
      row(
        'Splitpoint background count: longest counting slice (wall time)',
        (s) => coldMed(s, 'gpt-background', 'longestSliceMs'),
        baseBlock,
        fmtMs,
        'ratio',
      ),
      row(
        '  … the same in process CPU time (not stretched by other processes; GC helper threads count too)',
        (s) => coldMed(s, 'gpt-background', 'longestSliceCpuMs'),
        baseBlock,
        fmtMs,
        'ratio',
      ),
      row(
        '  … longest gap between ticks of a 1 ms timer meanwhile (includes the rank load)',
        (s) => coldMed(s, 'gpt-background', 'maxEventLoopDelayMs'),
        baseBlock,
        fmtMs,
        'ratio',
      ),
      row(
        '  … rank load, gpt-tokenizer (one synchronous step, not sliceable)',
        (s) => coldMed(s, 'gpt-background', 'loadMs'),
        baseBlock,
        fmtMs,
        'ratio',
      ),
    ],
    notes: [
      'ratio = step / baseline (smaller is better).',
      `Background count slices: ${sizes.map((s) => `${s} msgs ${fmtInt(coldMed(s, 'gpt-background', 'slices'))}`).join(', ')}. ` +
        `Warm re-run in the bench process at ${largest} messages: longest slice ${fmtMs(bg.longestSliceMs)}, ${bg.slices} slices, ` +
        `busy ${fmtMs(bg.busyMs)} over ${fmtMs(bg.elapsedMs)} wall.`,
    ],
  };
  const baseTurn = (s: BenchSize) => median(perTurn[s].tiktokenRecount);
  const perTurnTable: Table = {
    title: '1d. Per turn: one message (a 4 KB tool result) appended, then the whole history counted again',
    columns: header,
    rows: [
      row('js-tiktoken, uncached recount of everything (baseline)', baseTurn, baseTurn),
      row('gpt-tokenizer, uncached recount of everything', (s) => median(perTurn[s].gptRecount), baseTurn),
      row('Splitpoint memoized counter (gpt-tokenizer): countMessages(all)', (s) => median(perTurn[s].memo), baseTurn),
      row('chars/4 of JSON.stringify(messages) (seeds)', (s) => median(perTurn[s].json4), baseTurn),
    ],
    notes: [
      'Warm process; medians of 31 (memoized), 3-5 (recounts) and 7 (chars/4) runs; ratio = baseline / time. ' +
        'The memoized cost is one new message encoded plus a memo lookup per message; the pipeline keeps a running total instead (item 2).',
    ],
  };
  const encTable: Table = {
    title: '1e. The encoders: o200k throughput over every text the counter counts (warm, merge cache cleared per pass)',
    columns: ['encoder', ...sizes.flatMap((s) => [sizeLabel(ctx, s), 'ratio'])],
    rows: [
      ['js-tiktoken (baseline)', ...sizes.flatMap((s) => [`${encoderRows[s].tiktokenMBs.toFixed(2)} MB/s`, fmtRatio(1)])],
      [
        'gpt-tokenizer',
        ...sizes.flatMap((s) => [`${encoderRows[s].gptMBs.toFixed(2)} MB/s`, fmtRatio(encoderRows[s].gptMBs / encoderRows[s].tiktokenMBs)]),
      ],
      [
        'texts with different counts',
        ...sizes.flatMap((s) => [
          `${encoderRows[s].differing} of ${fmtInt(encoderRows[s].texts)}`,
          encoderRows[s].tiktokenTotal === encoderRows[s].gptTotal ? 'totals equal' : 'TOTALS DIFFER',
        ]),
      ],
    ],
    notes: [`MB = 10^6 UTF-16 code units of text (${sizes.map((s) => `${fmtBytes(encoderRows[s].chars)} at ${s} msgs`).join(', ')}).`],
  };
  const rl = (e: TokenizerName, f: keyof RankLoadRun) => median(rankRuns[e].map((r) => Number(r[f])));
  const rankTable: Table = {
    title: `1f. Rank loading (one synchronous step; fresh process each, median of ${rankReps})`,
    columns: ['encoder', 'load', 'ratio', 'heap retained', 'first countText after load'],
    rows: [
      [
        'js-tiktoken (baseline)',
        fmtMs(rl('js-tiktoken', 'loadMs')),
        fmtRatio(1),
        fmtBytes(rl('js-tiktoken', 'heapBytes')),
        fmtMs(rl('js-tiktoken', 'firstCallMs')),
      ],
      [
        'gpt-tokenizer',
        fmtMs(rl('gpt-tokenizer', 'loadMs')),
        fmtRatio(rl('gpt-tokenizer', 'loadMs') / rl('js-tiktoken', 'loadMs')),
        fmtBytes(rl('gpt-tokenizer', 'heapBytes')),
        fmtMs(rl('gpt-tokenizer', 'firstCallMs')),
      ],
    ],
    notes: [
      `ratio = load / baseline load (smaller is better). ` +
        (existsSync(join(REPO, 'dist', 'tokenizer', 'gpt-tokenizer-o200k.js'))
          ? 'Loaded from dist/tokenizer/*.js, the files the extension requires on first use (esbuild.mjs).'
          : 'Loaded from the encoders bundled into the child script (dist/tokenizer/ was not built).') +
        ` "first countText": the first call after the load, which compiles the encoder's hot paths.`,
    ],
  };
  const accTable: Table = {
    title: '1g. Accuracy of chars/4 against the o200k count',
    columns: ['estimate', ...sizes.flatMap((s) => [sizeLabel(ctx, s), 'error'])],
    rows: [
      ['o200k tokens, gpt-tokenizer = js-tiktoken (baseline)', ...sizes.flatMap((s) => [fmtInt(accuracy[s].o200k), fmtPct(0)])],
      [
        'chars/4 of JSON.stringify(messages) (seeds)',
        ...sizes.flatMap((s) => [fmtInt(accuracy[s].json4), fmtPct(accuracy[s].json4 / accuracy[s].o200k - 1)]),
      ],
      [
        "chars/4 per text, with Splitpoint's framing ('chars/4' tokenizer)",
        ...sizes.flatMap((s) => [fmtInt(accuracy[s].text4), fmtPct(accuracy[s].text4 / accuracy[s].o200k - 1)]),
      ],
      ['  … mean |error| per message', ...sizes.flatMap((s) => ['', `${(accuracy[s].meanAbsMessageError * 100).toFixed(1)}%`])],
    ],
    notes: [
      'The sign depends on the content: JSON escapes (\\n, \\", \\t), keys and random tool ids inflate the JSON length, ' +
        'while dense code and non-Latin text have fewer characters per token. ' +
        'DESIGN.md measured chars/4 of JSON 11% low on 5.3 MB of real sessions; on these sessions (real source files from node_modules) it is high.',
    ],
  };

  // --- Targets.
  const targets: TargetResult[] = [];
  const speedup = basePass(largest) / coldMed(largest, 'gpt-memo');
  const identical = sizes.every(
    (s) =>
      (['gpt-memo', 'tiktoken-memo', 'gpt-background'] as ColdMethod[]).every((m) => coldTokens(s, m) === coldTokens(s, 'tiktoken-pass')) &&
      encoderRows[s].differing === 0,
  );
  targets.push({
    target: 'cold counting >= 4x faster than one js-tiktoken pass, identical counts',
    status: speedup >= 4 && identical ? 'met' : 'missed',
    detail:
      `${fmtRatio(speedup)} at ${sizeLabel(ctx, largest)} (memoized gpt-tokenizer vs one js-tiktoken pass, fresh processes, ranks excluded; ` +
      `background count ${fmtRatio(basePass(largest) / coldMed(largest, 'gpt-background'))} wall); ` +
      `smaller sessions: ${sizes
        .slice(0, -1)
        .map((s) => `${fmtRatio(basePass(s) / coldMed(s, 'gpt-memo'))} at ${s} msgs`)
        .join(', ')} (there a cold process's JIT warm-up weighs more); counts ${identical ? 'identical' : 'DIFFER'}`,
  });
  const longest = Math.max(...sizes.map((s) => coldMed(s, 'gpt-background', 'longestSliceMs')));
  const load = rl('gpt-tokenizer', 'loadMs');
  targets.push({
    target: 'cold counting never blocks the thread > 50 ms at a time',
    status: longest <= 50 && load <= 50 ? 'met' : 'missed',
    detail:
      `background counting slices: longest ${fmtMs(longest)} (${longest <= 50 ? 'within' : 'OVER'} 50 ms); ` +
      `the gpt-tokenizer rank load is one synchronous step of ${fmtMs(load)}${load > 50 ? ' (OVER 50 ms: not sliceable in-thread)' : ''}; ` +
      `the plain memoized countMessages blocks ${fmtMs(coldMed(largest, 'gpt-memo'))} at ${largest} msgs`,
  });

  return {
    id: 'counting',
    title: '1. Token counting',
    tables: [coldTable, coldWithLoadTable, blockingTable, perTurnTable, encTable, rankTable, accTable],
    targets,
    data: {
      cold: Object.fromEntries(cold),
      rankLoad: rankRuns,
      encoders: encoderData,
      perTurn: Object.fromEntries(
        Object.entries(perTurn).map(([s, v]) => [s, Object.fromEntries(Object.entries(v).map(([k, xs]) => [k, stat(xs)]))]),
      ),
      accuracy,
      warmBackground: bg,
    },
  };
}
