// Measurements that need a fresh process (cold JIT, no ranks loaded, empty encoder caches, a clean
// heap). bench/run.ts bundles this file with esbuild (like the extension: CommonJS, ranks bundled
// and loaded lazily) and runs it once per measurement; it prints one JSON line.
//
//   child rank-load <encoder>              load the o200k ranks of one encoder (run with --expose-gc)
//   child cold-count <messages> <method>   first count of a session with one method
//   child memory <messages>                heap through the life of a session (run with --expose-gc)
import { getHeapStatistics } from 'node:v8';
import { countMessagesInBackground } from '../../src/core/counting/backgroundCounting';
import { DEFAULT_PLAN_CONTEXT } from '../../src/core/pipeline/plan';
import { CompactionPipeline } from '../../src/core/pipeline/pipeline';
import { newSessionMeta, SessionLog } from '../../src/core/session/session';
import { resolveParams, STRATEGIES } from '../../src/core/strategies';
import { createTokenizer, warmupTokenizer, type TokenizerName } from '../../src/core/counting/tokenizers';
import { countMessageWith, MemoizedMessageCounter } from '../../src/core/counting/tokens';
import { TranscriptStore } from '../../src/core/transcripts/transcripts';
import { budgetTrigger } from '../../src/core/pipeline/triggers';
import { benchSession, sourcePool } from '../sessions';
import { timerChain } from './timerChain';

function gc(): void {
  const g = (globalThis as { gc?: () => void }).gc;
  if (!g) throw new Error('run this child with --expose-gc');
  g();
  g();
}

function heapUsed(): number {
  return process.memoryUsage().heapUsed;
}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

export type ColdMethod = 'tiktoken-pass' | 'gpt-memo' | 'tiktoken-memo' | 'gpt-background' | 'chars4-json';

async function coldCount(size: number, method: ColdMethod): Promise<unknown> {
  const messages = benchSession({ messages: size });
  const encoder: TokenizerName | null = method.startsWith('gpt') ? 'gpt-tokenizer' : method.startsWith('tiktoken') ? 'js-tiktoken' : null;
  const tokenizer = encoder ? createTokenizer(encoder) : null;
  // The background method loads the ranks itself (and reports that step); the others get them first.
  const loadMs = tokenizer && method !== 'gpt-background' ? warmupTokenizer(tokenizer) : 0;
  const t = performance.now();
  switch (method) {
    case 'tiktoken-pass': {
      let tokens = 0;
      for (const m of messages) tokens += countMessageWith(tokenizer!, m);
      return { method, size, tokens, ms: performance.now() - t, loadMs };
    }
    case 'gpt-memo':
    case 'tiktoken-memo': {
      const tokens = new MemoizedMessageCounter(tokenizer!).countMessages(messages);
      return { method, size, tokens, ms: performance.now() - t, loadMs };
    }
    case 'chars4-json': {
      const tokens = JSON.stringify(messages).length / 4;
      return { method, size, tokens, ms: performance.now() - t, loadMs };
    }
    case 'gpt-background': {
      // An independent check on blocking, rank load included: a chain of 1 ms timers started before
      // the count records the longest gap between two of its ticks.
      const gaps = timerChain();
      const r = await countMessagesInBackground(new MemoizedMessageCounter(tokenizer!), messages, { sliceMs: 8 });
      const longestGapMs = gaps.take();
      gaps.stop();
      return {
        method,
        size,
        tokens: r.tokens,
        ms: r.elapsedMs - r.rankLoadMs,
        elapsedMs: r.elapsedMs,
        busyMs: r.busyMs - r.rankLoadMs,
        loadMs: r.rankLoadMs,
        longestSliceMs: r.longestSliceMs,
        longestSliceCpuMs: r.longestSliceCpuMs,
        slices: r.slices,
        maxEventLoopDelayMs: longestGapMs,
      };
    }
  }
}

function rankLoad(encoder: TokenizerName): unknown {
  const tokenizer = createTokenizer(encoder);
  gc();
  const before = heapUsed();
  const loadMs = warmupTokenizer(tokenizer);
  const t = performance.now();
  tokenizer.countText('warm the encoder up: the first call compiles its hot paths.');
  const firstCallMs = performance.now() - t;
  gc();
  return { encoder, loadMs, firstCallMs, heapBytes: heapUsed() - before };
}

/**
 * Heap through the life of one session: generate it, load the ranks, count it (in the background,
 * sampling the heap every 5 ms meanwhile), run the pipeline's first sync and a plan of every
 * strategy. `heapUsed` is read after every step before any forced GC (so it includes garbage: the
 * closest to a peak a sampler can see) and after a forced GC (what the step retains).
 */
async function memory(size: number): Promise<unknown> {
  const samples: Array<{ step: string; heapUsed: number; retained?: number }> = [];
  let peak = 0;
  const observe = (step: string, collect: boolean) => {
    const used = heapUsed();
    peak = Math.max(peak, used);
    const entry: { step: string; heapUsed: number; retained?: number } = { step, heapUsed: used };
    if (collect) {
      gc();
      entry.retained = heapUsed();
    }
    samples.push(entry);
  };
  // The real source files the generator slices are read first, so "session generated" below is the
  // session's own messages (the generator keeps that pool of files alive).
  sourcePool();
  gc();
  observe('start (modules loaded)', true);
  const messages = benchSession({ messages: size });
  observe('session generated', true);
  const jsonChars = JSON.stringify(messages).length;
  gc();
  const tokenizer = createTokenizer('gpt-tokenizer');
  warmupTokenizer(tokenizer);
  observe('gpt-tokenizer ranks loaded', true);
  const counter = new MemoizedMessageCounter(tokenizer);
  const sampler = setInterval(() => (peak = Math.max(peak, heapUsed())), 5);
  const counted = await countMessagesInBackground(counter, messages, { sliceMs: 8 });
  clearInterval(sampler);
  observe('session counted (memo filled)', true);
  const dir = `${process.env.TMPDIR ?? '/tmp'}/splitpoint-bench-transcripts`;
  const session = new SessionLog(newSessionMeta('bench'), messages);
  const pipeline = new CompactionPipeline(
    { session, transcripts: new TranscriptStore({ dir }), ctx: { ...DEFAULT_PLAN_CONTEXT, tokens: counter } },
    {
      microCompact: { enabled: true, keepRecent: 3, minChars: 100 },
      autoCompact: { enabled: true, strategy: 'recursive-summarization', params: {}, trigger: budgetTrigger({ fraction: 0.8 }) },
    },
  );
  pipeline.checkTrigger();
  observe('pipeline synced (micro-compacted view)', true);
  const plans = [];
  for (const def of STRATEGIES) {
    plans.push(def.plan(messages, resolveParams(def, {}), { ...DEFAULT_PLAN_CONTEXT, tokens: counter }));
    observe(`plan ${def.name}`, false);
  }
  observe('all plans held', true);
  const heap = getHeapStatistics();
  return {
    size,
    tokens: counted.tokens,
    jsonChars,
    samples,
    peakHeapUsed: peak,
    heapSizeLimit: heap.heap_size_limit,
    peakMallocedMemory: heap.peak_malloced_memory,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
    keep: plans.length + pipeline.currentTokens() * 0,
  };
}

async function main(): Promise<void> {
  const [command, a, b] = process.argv.slice(2);
  switch (command) {
    case 'rank-load':
      print(rankLoad(a as TokenizerName));
      break;
    case 'cold-count':
      print(await coldCount(Number(a), b as ColdMethod));
      break;
    case 'memory':
      print(await memory(Number(a)));
      break;
    default:
      throw new Error(`unknown child command ${command}`);
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`${(e as Error).stack ?? e}\n`);
    process.exit(1);
  },
);
