// Item 1: token counting. Cold first counts (a fresh process per run), per-turn recounts, the two
// o200k encoders themselves (throughput, identical counts, rank loading) and the accuracy of chars/4.
// This file measures; countingTables.ts turns the measurements into the report's tables and targets.
import { createRequire } from 'node:module';
import type { Message } from '../src/core/conversation/conversation';
import { countMessagesInBackground } from '../src/core/counting/backgroundCounting';
import { createTokenizer, warmupTokenizer } from '../src/core/counting/tokenizers';
import { CharEstimateTokenizer, countMessageWith, MemoizedMessageCounter, type TextTokenizer } from '../src/core/counting/tokens';
import type { ColdMethod } from './children/child';
import type { BenchContext } from './context';
import {
  countingTables,
  countingTargets,
  type CharsAccuracy,
  type ColdRun,
  type CountingMeasurements,
  type EncoderRow,
  type RankLoadRun,
} from './countingTables';
import { fmtMs, log, median, runChild, sample, stat, type SectionResult } from './lib';
import { benchExchange } from './sessions';

const requireHere = createRequire(__filename);

/** gpt-tokenizer keeps a merge cache of 100,000 pieces; cleared before every timed gpt pass. */
function clearGptMergeCache(): void {
  (requireHere('gpt-tokenizer/encoding/o200k_base') as { clearMergeCache(): void }).clearMergeCache();
}

type Encoder = ReturnType<typeof createTokenizer>;

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
  const rankRuns = measureRankLoads(ctx, rankReps);
  const cold = measureColdCounts(ctx, coldReps);

  // --- Warm, in this process: the encoders and per-turn recounts.
  const gpt = createTokenizer('gpt-tokenizer');
  const tiktoken = createTokenizer('js-tiktoken');
  warmupTokenizer(gpt);
  warmupTokenizer(tiktoken);
  const encoderData: Record<number, unknown> = {};
  const perTurn: Record<number, Record<string, number[]>> = {};
  const accuracy: Record<number, CharsAccuracy> = {};
  const encoderRows: Record<number, EncoderRow> = {};
  for (const size of ctx.sizes) {
    const messages = ctx.sessions.get(size)!;
    const big = size >= 10_000;
    const encoders = measureEncoders(ctx, messages, big, gpt, tiktoken);
    encoderRows[size] = encoders.row;
    encoderData[size] = encoders.data;
    const counter = new MemoizedMessageCounter(gpt);
    perTurn[size] = measurePerTurnRecounts(ctx, messages, big, counter, gpt, tiktoken);
    accuracy[size] = measureChars4Accuracy(messages, counter);
    log(`encoders / per-turn / accuracy at ${size} messages done`);
  }

  // A background count in this (warm) process too, sharing the thread with a 1 ms timer, at the
  // largest size: the longest slice it reports, next to the event-loop delay the timer saw.
  const largest = ctx.sizes[ctx.sizes.length - 1];
  const bg = await countMessagesInBackground(new MemoizedMessageCounter(gpt), ctx.sessions.get(largest)!, { sliceMs: 8 });

  const m: CountingMeasurements = { coldReps, rankReps, rankRuns, cold, encoderRows, perTurn, accuracy, bg };
  return {
    id: 'counting',
    title: '1. Token counting',
    tables: countingTables(ctx, m),
    targets: countingTargets(ctx, m),
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

/** Rank loading, fresh process per run. */
function measureRankLoads(ctx: BenchContext, rankReps: number): Record<string, RankLoadRun[]> {
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
  return rankRuns;
}

/** Cold counts, fresh process per (size, method, run); methods interleaved across runs. Keyed `${size}:${method}`. */
function measureColdCounts(ctx: BenchContext, coldReps: number): Map<string, ColdRun[]> {
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
  return cold;
}

/** Encoders: every text the counter counts, one pass per encoder per rep; throughput and agreement. */
function measureEncoders(
  ctx: BenchContext,
  messages: Message[],
  big: boolean,
  gpt: Encoder,
  tiktoken: Encoder,
): { row: EncoderRow; data: unknown } {
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
  const row: EncoderRow = {
    tiktokenMBs: chars / 1e6 / (median(tiktokenTimes) / 1000),
    gptMBs: chars / 1e6 / (median(gptTimes) / 1000),
    chars,
    texts: texts.length,
    differing,
    tiktokenTotal: sum(tiktokenCounts),
    gptTotal: sum(gptCounts),
  };
  return { row, data: { ...row, gptPassMs: stat(gptTimes), tiktokenPassMs: stat(tiktokenTimes) } };
}

/** Per turn: one message (a 4 KB tool result) appended to the history, then the whole count. */
function measurePerTurnRecounts(
  ctx: BenchContext,
  messages: Message[],
  big: boolean,
  counter: MemoizedMessageCounter,
  gpt: Encoder,
  tiktoken: Encoder,
): Record<string, number[]> {
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
  return { memo, tiktokenRecount, gptRecount, json4 };
}

/** Accuracy of chars/4 against the o200k count. */
function measureChars4Accuracy(messages: Message[], counter: MemoizedMessageCounter): CharsAccuracy {
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
  return { o200k, json4: JSON.stringify(messages).length / 4, text4, meanAbsMessageError: absErr / messages.length };
}
