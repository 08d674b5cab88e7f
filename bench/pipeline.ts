// Item 2: the per-turn cost of the pipeline (micro-compact + trigger check) at each history length.
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Message } from '../src/core/conversation/conversation';
import { CompactionPipeline, type PipelineSettings } from '../src/core/pipeline/pipeline';
import { DEFAULT_PLAN_CONTEXT } from '../src/core/pipeline/plan';
import { newSessionMeta, SessionLog } from '../src/core/session/session';
import { createTokenizer, warmupTokenizer } from '../src/core/counting/tokenizers';
import { CachingTextTokenizer } from '../src/core/counting/textCountCache';
import { MemoizedMessageCounter } from '../src/core/counting/tokens';
import { TranscriptStore } from '../src/core/transcripts/transcripts';
import { budgetTrigger } from '../src/core/pipeline/triggers';
import { sizeLabel, type BenchContext } from './context';
import { fmtMs, fmtRatio, forceGc, log, median, sample, stat, type SectionResult, type Table, type TargetResult } from './lib';
import { benchExchange, type BenchSize } from './sessions';

const clearMergeCache = (createRequire(__filename)('gpt-tokenizer/encoding/o200k_base') as { clearMergeCache(): void }).clearMergeCache;

const SETTINGS: PipelineSettings = {
  microCompact: { enabled: true, keepRecent: 3, minChars: 100 },
  // A budget no session here reaches: the trigger is evaluated every turn but never fires, so the
  // bench measures the check, not a compaction.
  autoCompact: { enabled: true, strategy: 'recursive-summarization', params: {}, trigger: budgetTrigger({ maxTokens: 1e12 }) },
};

interface TurnSamples {
  /** micro-compact sync + trigger evaluation (pipeline.checkTrigger()), new messages counted inside. */
  checkTrigger: number[];
  /** the same with the new messages already counted: the pipeline's own work. */
  checkTriggerPrecounted: number[];
  /** the same, plus building the API request (pipeline.prepareRequest()). */
  prepareRequest: number[];
  /** the seeds' per-turn sizing: chars/4 of JSON.stringify(history). */
  json4: number[];
  /** the pipeline's first sync of an existing history (memo already warm). */
  firstSync: number[];
}

export async function benchPipeline(ctx: BenchContext): Promise<SectionResult> {
  const tokenizer = createTokenizer('gpt-tokenizer');
  warmupTokenizer(tokenizer);
  const dir = mkdtempSync(join(ctx.tmp, 'transcripts-'));
  const reps = ctx.quick ? 4 : 15;
  const turnsPerRep = 4;
  const samples: Record<number, TurnSamples> = {};

  const counters = new Map<BenchSize, MemoizedMessageCounter>();
  for (const size of ctx.sizes) {
    const counter = new MemoizedMessageCounter(tokenizer);
    counter.countMessages(ctx.sessions.get(size)!);
    counters.set(size, counter);
    samples[size] = emptySamples();
    // Warm up the code paths once at this size (untimed).
    runTurns(ctx.sessions.get(size)!, counter, dir, -1, turnsPerRep, emptySamples());
  }
  // Sizes interleaved rep by rep, so a noisy moment on the shared cores hits every size alike.
  for (let rep = 0; rep < reps; rep++) {
    for (const size of ctx.sizes) runTurns(ctx.sessions.get(size)!, counters.get(size)!, dir, rep, turnsPerRep, samples[size]);
  }
  for (const size of ctx.sizes) log(`pipeline per-turn at ${size} messages: checkTrigger ${fmtMs(median(samples[size].checkTrigger))}`);
  // A pipeline's first sync again, with the opt-in short-text count cache in front of the encoder.
  const firstSyncCached: Record<number, number[]> = {};
  for (const size of ctx.sizes) {
    const messages = ctx.sessions.get(size)!;
    const counter = new MemoizedMessageCounter(new CachingTextTokenizer(tokenizer));
    counter.countMessages(messages);
    firstSyncCached[size] = sample(
      () => {
        const session = new SessionLog(newSessionMeta('bench-cached'), messages);
        new CompactionPipeline(
          { session, transcripts: new TranscriptStore({ dir }), ctx: { ...DEFAULT_PLAN_CONTEXT, tokens: counter } },
          SETTINGS,
        ).checkTrigger();
      },
      ctx.quick ? 3 : 9,
      1,
    );
  }

  const sizes = ctx.sizes;
  const small = sizes[0];
  const large = sizes[sizes.length - 1];
  const header = ['per turn', ...sizes.flatMap((sz) => [sizeLabel(ctx, sz), `ratio vs ${small}`])];
  const row = (label: string, pick: (t: TurnSamples) => number[]) => [
    label,
    ...sizes.flatMap((sz) => [fmtMs(median(pick(samples[sz]))), fmtRatio(median(pick(samples[sz])) / median(pick(samples[small])))]),
  ];
  const table: Table = {
    title: `2. Per-turn pipeline cost: one exchange (tool call + 4 KB result) appended, then the check (baseline: the same at ${small} messages)`,
    columns: header,
    rows: [
      row('micro-compact + trigger check: pipeline.checkTrigger(), the 2 new messages counted inside', (t) => t.checkTrigger),
      row('  … the pipeline alone (the 2 new messages counted beforehand)', (t) => t.checkTriggerPrecounted),
      row('  + building the API request: pipeline.prepareRequest()', (t) => t.prepareRequest),
      row("seeds' sizing instead: chars/4 of JSON.stringify(history)", (t) => t.json4),
      row('(once per pipeline) first sync of the existing history, memo warm', (t) => t.firstSync),
      [
        '  … with CachingTextTokenizer (opt-in) in front of the encoder',
        ...sizes.flatMap((sz) => [
          fmtMs(median(firstSyncCached[sz])),
          fmtRatio(median(firstSyncCached[sz]) / median(firstSyncCached[small])),
        ]),
      ],
    ],
    notes: [
      `Median of ${reps} fresh pipelines x ${turnsPerRep} turns per size ` +
        `(sizes interleaved; a full GC after each pipeline's first sync), in a warm process. ` +
        `Each turn appends an exchange of two new message objects (a read_file call and its 4 KB result); ` +
        `in the first row they are counted (gpt-tokenizer, its merge cache cleared first so every size encodes them from scratch) ` +
        `inside the timed check, in the second beforehand. The trigger is evaluated every turn but never fires (no compaction runs).`,
      'The first sync (a new pipeline over an existing history: a session reload, or after a compaction) ' +
        'builds the micro-compacted copies of every old tool result; they are new objects, ' +
        'so their placeholder texts go through the encoder again unless the short-text count cache (src/core/counting/textCountCache.ts) is in front of it.',
      'prepareRequest() also converts the whole history to the wire form (toApiMessages), ' +
        'which is linear in the history by nature: the request carries every message.',
    ],
  };

  const ratio = median(samples[large].checkTrigger) / median(samples[small].checkTrigger);
  const ratioAlone = median(samples[large].checkTriggerPrecounted) / median(samples[small].checkTriggerPrecounted);
  const targets: TargetResult[] = [
    {
      target: 'per-turn overhead flat in history length (10,000 / 100 messages ~ 1)',
      status: ratio <= 1.5 ? 'met' : 'missed',
      detail:
        `checkTrigger with the new messages counted: ${fmtMs(median(samples[small].checkTrigger))} at ${small} ` +
        `vs ${fmtMs(median(samples[large].checkTrigger))} at ${large} messages, ${fmtRatio(ratio)}; ` +
        `the pipeline alone: ${fmtMs(median(samples[small].checkTriggerPrecounted))} vs ${fmtMs(median(samples[large].checkTriggerPrecounted))}, ` +
        `${fmtRatio(ratioAlone)} (met if the first is <= ×1.5)`,
    },
  ];
  return {
    id: 'pipeline',
    title: '2. Per-turn pipeline cost',
    tables: [table],
    targets,
    data: Object.fromEntries(
      Object.entries(samples).map(([sz, t]) => [
        sz,
        {
          ...Object.fromEntries(Object.entries(t).map(([k, xs]) => [k, stat(xs as number[])])),
          firstSyncCached: stat(firstSyncCached[Number(sz)]),
        },
      ]),
    ),
  };
}

/** The same exchange ids at every size, so every size counts the same new texts. */
function turnId(rep: number, turns: number, turn: number): number {
  return 10_000 + Math.max(rep, 0) * turns + turn;
}

function emptySamples(): TurnSamples {
  return { checkTrigger: [], checkTriggerPrecounted: [], prepareRequest: [], json4: [], firstSync: [] };
}

function runTurns(
  messages: readonly Message[],
  counter: MemoizedMessageCounter,
  dir: string,
  rep: number,
  turns: number,
  out: TurnSamples,
): void {
  const session = new SessionLog(newSessionMeta(`bench-${rep}`), messages);
  const pipeline = new CompactionPipeline(
    { session, transcripts: new TranscriptStore({ dir }), ctx: { ...DEFAULT_PLAN_CONTEXT, tokens: counter } },
    SETTINGS,
  );
  let t = performance.now();
  pipeline.checkTrigger();
  out.firstSync.push(performance.now() - t);
  // The garbage of setting up (a 10,000-message copy, thousands of placeholder copies) is collected
  // before the timed turns, as it would have been long before in a running extension host.
  forceGc();
  // The two checkTrigger phases first, right after the collection; prepareRequest and the chars/4
  // sizing allocate in proportion to the history (a 5 MB string per turn at 10,000 messages), so
  // they run after, and their garbage cannot land in the timed checks.
  for (let turn = 0; turn < turns; turn++) {
    // A fresh copy each time so the new messages really are new to the memo.
    session.append(...benchExchange(turnId(rep, turns, turn)).map((m) => structuredClone(m)));
    // Every size encodes the same new texts; without this, only the first size of a round would
    // find them missing from gpt-tokenizer's merge cache.
    clearMergeCache();
    t = performance.now();
    const check = pipeline.checkTrigger();
    out.checkTrigger.push(performance.now() - t);
    if (check.fire) throw new Error('bench: the trigger fired; the per-turn bench must not compact');
  }
  for (let turn = 0; turn < turns; turn++) {
    const precounted = benchExchange(turnId(rep, turns, turn) + 250_000).map((m) => structuredClone(m));
    counter.countMessages(precounted);
    session.append(...precounted);
    t = performance.now();
    pipeline.checkTrigger();
    out.checkTriggerPrecounted.push(performance.now() - t);
  }
  for (let turn = 0; turn < turns; turn++) {
    session.append(...benchExchange(turnId(rep, turns, turn) + 500_000).map((m) => structuredClone(m)));
    t = performance.now();
    pipeline.prepareRequest();
    out.prepareRequest.push(performance.now() - t);
  }
  for (let turn = 0; turn < turns; turn++) {
    t = performance.now();
    void (JSON.stringify(session.messages).length / 4);
    out.json4.push(performance.now() - t);
  }
}
