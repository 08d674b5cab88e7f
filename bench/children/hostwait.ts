// Section 7 ("the host never waits"), one measurement per fresh process: how long the thread that runs
// Splitpoint is blocked, and how much memory a step takes, on today's path ('old': in-thread counting,
// whole-text import) and on the new one ('new': the counting worker, the streamed import).
//
//   hostwait idle                                the monitors alone (the noise floor of a shared machine)
//   hostwait first-count <messages> <old|new>    first count of a session as the host does it
//   hostwait import <file> <old|new>             import a session file
//   hostwait plan <file> <old|new>               import + count + plan (recursive-summarization; new: planWithSliced)
//   hostwait first-paint <file> <old|new>        Inspect Session File… up to the first view the panel gets
//   hostwait preview <file> <old|new>            the inspector's recursive-summarization preview of it (old: preview; new: previewSliced)
// Prints one JSON line. The worker script is dist/countWorker.js (SPLITPOINT_REPO).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { AgentController } from '../../src/agent/service/controller';
import { HostCounting } from '../../src/agent/loop/hostCounting';
import { DEFAULT_HOST_SETTINGS } from '../../src/settings/hostSettings';
import { loadRecording } from '../../src/agent/service/recordingLoader';
import {
  budgetTrigger,
  CompactionPipeline,
  createTokenizer,
  DEFAULT_PLAN_CONTEXT,
  DEFAULT_TOKENIZER,
  importSession,
  importSessionFile,
  MemoizedMessageCounter,
  planWith,
  readSessionFile,
  SessionLog,
  TranscriptStore,
  type ImportResult,
  type Message,
  type MessageTokenCounter,
} from '../../src/core';

import { newSessionMeta } from '../../src/core/session/session';
import { planWithSliced } from '../../src/core/strategies';
import { warmupTokenizer } from '../../src/core/counting/tokenizers';
import { benchSession } from '../sessions';
import { timerChain } from './timerChain';

const REPO = process.env.SPLITPOINT_REPO ?? process.cwd();
const WORKER = join(REPO, 'dist', 'countWorker.js');
const quiet = {
  info: () => undefined,
  warn: (m: string) => process.stderr.write(`${m}\n`),
  error: (m: string) => process.stderr.write(`${m}\n`),
};

/** Longest stall of the thread while `fn` runs: a 1 ms timer chain and perf_hooks' event-loop delay histogram. */
async function watched<T>(
  fn: (phase: (name: string) => void) => Promise<T>,
): Promise<{ value: T; maxBlockMs: number; eldMaxMs: number; elapsedMs: number; phases: Record<string, number> }> {
  const eld = monitorEventLoopDelay({ resolution: 1 });
  eld.enable();
  const chain = timerChain();
  // Let the monitors take their first reading before the work starts.
  await new Promise((r) => setTimeout(r, 5));
  const t = performance.now();
  // The longest block of each phase `fn` names (a phase ends where the next one starts).
  const phases: Record<string, number> = {};
  let longest = chain.take();
  let current: string | undefined;
  const phase = (name: string) => {
    const block = chain.take();
    longest = Math.max(longest, block);
    if (current) phases[current] = Math.max(phases[current] ?? 0, block);
    current = name;
  };
  const value = await fn(phase);
  const elapsedMs = performance.now() - t;
  // One more turn so a block at the very end is seen.
  await new Promise((r) => setTimeout(r, 2));
  phase('');
  const maxBlockMs = longest;
  chain.stop();
  eld.disable();
  return { value, maxBlockMs, eldMaxMs: eld.max / 1e6, elapsedMs, phases };
}

function pipelineFor(messages: Message[], tokens: MessageTokenCounter): CompactionPipeline {
  return new CompactionPipeline(
    {
      session: new SessionLog(newSessionMeta('bench'), messages),
      transcripts: new TranscriptStore({ dir: join(tmpdir(), 'splitpoint-bench-transcripts') }),
      ctx: { ...DEFAULT_PLAN_CONTEXT, tokens },
    },
    {
      microCompact: { enabled: true, keepRecent: 3, minChars: 100 },
      autoCompact: { enabled: true, strategy: 'recursive-summarization', params: {}, trigger: budgetTrigger({ fraction: 0.8 }) },
    },
  );
}

/**
 * The first count of a session as the host does it. old: the controller's former warmup, a setTimeout
 * that loads the ranks, then the context meter's synchronous count (pipeline.currentTokens()). new:
 * HostCounting counts the session on the worker, the pipeline builds its micro-compacted view in slices
 * (warmView), then the meter's count finds both ready.
 */
async function firstCount(size: number, mode: string): Promise<unknown> {
  const messages = benchSession({ messages: size });
  if (mode === 'old') {
    const tokenizer = createTokenizer(DEFAULT_TOKENIZER);
    const pipeline = pipelineFor(messages, new MemoizedMessageCounter(tokenizer));
    const r = await watched(
      () =>
        new Promise<number>((resolve) =>
          setTimeout(() => {
            warmupTokenizer(tokenizer);
            resolve(pipeline.currentTokens());
          }, 0),
        ),
    );
    return { mode, size, tokens: r.value, ...r, value: undefined };
  }
  const counting = new HostCounting(quiet, { workerPath: WORKER });
  const pipeline = pipelineFor(messages, counting.counter);
  const r = await watched(async () => {
    // As the controller's warmup: count on the worker, build the micro-compacted view in slices, then read.
    await counting.prefill(() => [messages]);
    await pipeline.warmView();
    return pipeline.currentTokens();
  });
  counting.dispose();
  return { mode, size, tokens: r.value, ...r, value: undefined };
}

function rssNow(): number {
  return process.memoryUsage().rss;
}

function maxRss(): number {
  return process.resourceUsage().maxRSS * 1024;
}

async function importOnly(file: string, mode: string): Promise<unknown> {
  const rssStart = rssNow();
  const r = await watched(async () => (mode === 'old' ? importSession(readSessionFile(file), file) : await importSessionFile(file)));
  return { mode, file, messages: r.value.messages.length, rssStart, maxRss: maxRss(), ...r, value: undefined };
}

async function planFile(file: string, mode: string): Promise<unknown> {
  const rssStart = rssNow();
  let counting: HostCounting | undefined;
  const r = await watched(async (phase) => {
    let result: ImportResult;
    let counter: MemoizedMessageCounter;
    phase('import');
    if (mode === 'old') {
      result = importSession(readSessionFile(file), file);
      phase('count');
      counter = new MemoizedMessageCounter(createTokenizer(DEFAULT_TOKENIZER));
      counter.countMessages(result.messages);
    } else {
      counting = new HostCounting(quiet, { workerPath: WORKER });
      result = await importSessionFile(file);
      phase('count');
      await counting.prefill(() => [result.messages]);
      counter = counting.counter;
    }
    phase('plan');
    // new: the same plan with its per-message passes done ahead in slices (planWithSliced).
    const ctx = { ...DEFAULT_PLAN_CONTEXT, tokens: counter };
    const plan =
      mode === 'old'
        ? planWith('recursive-summarization', result.messages, {}, ctx)
        : await planWithSliced('recursive-summarization', result.messages, {}, ctx);
    return { messages: result.messages.length, archived: plan.archived.length, tokensBefore: plan.tokensBefore };
  });
  counting?.dispose();
  return { mode, file, ...r.value, rssStart, maxRss: maxRss(), ...r, value: undefined };
}

/**
 * Inspect Session File… up to the first InspectorSession the panel gets (what InspectorFeature posts).
 * The host is warm in both (ranks loaded in the thread for old, the worker ready for new). old: the
 * whole-text import, then the view counted in the thread. new: loadRecording's first, estimated view.
 */
async function firstPaint(file: string, mode: string): Promise<unknown> {
  const controller = new AgentController({
    workspaceRoot: undefined,
    storageDir: mkdtempSync(join(tmpdir(), 'splitpoint-bench-paint-')),
    settings: DEFAULT_HOST_SETTINGS,
    getApiKey: () => Promise.resolve(undefined),
    trusted: true,
    log: quiet,
    counting: mode === 'old' ? { mode: 'in-thread' } : { workerPath: WORKER },
  });
  await controller.warmup();
  let firstPaintMs = NaN;
  let exactMs = NaN;
  let rows = 0;
  const t = performance.now();
  const r = await watched(async () => {
    if (mode === 'old') {
      const result = importSession(readSessionFile(file), file);
      rows = controller.inspectorFor({ source: file, result }).rows.length;
      firstPaintMs = exactMs = performance.now() - t;
      return;
    }
    await loadRecording(file, {
      countRecording: (result) => controller.countRecording(result),
      show: (recording, estimated) => {
        rows = controller.inspectorFor(recording).rows.length;
        if (estimated) firstPaintMs = performance.now() - t;
        else exactMs = performance.now() - t;
      },
    });
  });
  controller.dispose();
  return { mode, file, rows, firstPaintMs, exactMs, ...r, value: undefined };
}

/**
 * The inspector's strategy preview on an inspected session (what the panel's preview handler awaits):
 * imported and counted first (not watched), then previewSliced of recursive-summarization on it.
 */
async function previewFile(file: string, mode: string): Promise<unknown> {
  const controller = new AgentController({
    workspaceRoot: undefined,
    storageDir: mkdtempSync(join(tmpdir(), 'splitpoint-bench-preview-')),
    settings: DEFAULT_HOST_SETTINGS,
    getApiKey: () => Promise.resolve(undefined),
    trusted: true,
    log: quiet,
    counting: { mode: 'in-thread' },
  });
  await controller.warmup();
  const result = await importSessionFile(file);
  const recording = { source: file, result };
  const rows = controller.inspectorFor(recording).rows.length;
  const target = { file: recording, at: null };
  const r = await watched(async () =>
    mode === 'old'
      ? controller.preview('recursive-summarization', {}, 1, target)
      : await controller.previewSliced('recursive-summarization', {}, 1, target),
  );
  controller.dispose();
  const view = r.value;
  return { mode, file, messages: result.messages.length, rows, archived: view.archivedIds.length, ...r, value: undefined };
}

async function main(): Promise<void> {
  const [command, a, b] = process.argv.slice(2);
  let out: unknown;
  switch (command) {
    case 'idle':
      out = await watched(() => new Promise((r) => setTimeout(r, 1000)));
      break;
    case 'first-count':
      out = await firstCount(Number(a), b);
      break;
    case 'import':
      out = await importOnly(a, b);
      break;
    case 'plan':
      out = await planFile(a, b);
      break;
    case 'first-paint':
      out = await firstPaint(a, b);
      break;
    case 'preview':
      out = await previewFile(a, b);
      break;
    default:
      throw new Error(`unknown hostwait command ${command}`);
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main().then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`${(e as Error).stack ?? e}\n`);
    process.exit(1);
  },
);
