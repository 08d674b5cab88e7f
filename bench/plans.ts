// Item 3: plan() of every strategy at each size, cold (nothing counted yet) and warm (memo full).
import { createRequire } from 'node:module';
import type { Message } from '../src/core/conversation/conversation';
import { DEFAULT_PLAN_CONTEXT, type CompactionPlan, type PlanContext } from '../src/core/pipeline/plan';
import { resolveParams, STRATEGIES, type StrategyDefinition } from '../src/core/strategies';
import { createTokenizer, warmupTokenizer } from '../src/core/counting/tokenizers';
import { ReplacementCache } from '../src/core/pipeline/replacementCache';
import { CachingTextTokenizer } from '../src/core/counting/textCountCache';
import { MemoizedMessageCounter } from '../src/core/counting/tokens';
import { sizeLabel, type BenchContext } from './context';
import { fmtInt, fmtMs, fmtRatio, log, quantile, sample, stat, type SectionResult, type Table, type TargetResult } from './lib';

const requireHere = createRequire(__filename);
const clearMergeCache = (): void => (requireHere('gpt-tokenizer/encoding/o200k_base') as { clearMergeCache(): void }).clearMergeCache();
const FRAME_MS = 16;
const CACHED_ROW = 'micro-compact without the host caches (plain counter, no copy cache)';

/** Cold and warm timings of one strategy's plan() at one size, and what the plan does. */
interface PlanTiming {
  cold: ReturnType<typeof stat>;
  warm: ReturnType<typeof stat>;
  warmP90: number;
  archived: number;
  truncated: number;
  noop: boolean;
  tokensAfter: number;
}

/** Timings by row (a strategy, or CACHED_ROW) and size. */
type PlanTimings = Record<string, Record<number, PlanTiming>>;

export async function benchPlans(ctx: BenchContext): Promise<SectionResult> {
  const tokenizer = createTokenizer('gpt-tokenizer');
  warmupTokenizer(tokenizer);
  const data: PlanTimings = {};
  for (const size of ctx.sizes) {
    const messages = ctx.sessions.get(size)!;
    const big = size >= 10_000;
    // Warm = as the extension host plans: memo full, short-text count cache, per-session copy cache.
    const warmCounter = new MemoizedMessageCounter(new CachingTextTokenizer(tokenizer));
    warmCounter.countMessages(messages);
    const warmCtx = { ...DEFAULT_PLAN_CONTEXT, tokens: warmCounter, copies: new ReplacementCache() };
    for (const def of STRATEGIES) (data[def.name] ??= {})[size] = timePlan(ctx, def, messages, big, tokenizer, warmCtx);
    // Micro-compact without the host's caches (plain counter, no copy cache): every plan builds fresh copies.
    const cachedCounter = new MemoizedMessageCounter(tokenizer);
    cachedCounter.countMessages(messages);
    const microCompact = STRATEGIES.find((d) => d.name === 'micro-compact')!;
    (data[CACHED_ROW] ??= {})[size] = timePlan(ctx, microCompact, messages, big, tokenizer, {
      ...DEFAULT_PLAN_CONTEXT,
      tokens: cachedCounter,
    });
    log(`plans at ${size} messages done`);
  }
  return { id: 'plans', title: '3. plan() per strategy', tables: [plansTable(ctx, data)], targets: plansTargets(ctx, data), data };
}

/**
 * Cold: a fresh counter (and an empty encoder cache), so the plan counts every message itself;
 * warm: planned with `warmCtx`, whose counter already holds every message.
 */
function timePlan(
  ctx: BenchContext,
  def: StrategyDefinition,
  messages: Message[],
  big: boolean,
  tokenizer: ReturnType<typeof createTokenizer>,
  warmCtx: PlanContext,
): PlanTiming {
  const params = resolveParams(def, {});
  const cold = sample(
    () => {
      clearMergeCache();
      def.plan(messages, params, { ...DEFAULT_PLAN_CONTEXT, tokens: new MemoizedMessageCounter(tokenizer) });
    },
    ctx.quick ? 1 : big ? 3 : 5,
  );
  let plan: CompactionPlan | undefined;
  const warm = sample(() => (plan = def.plan(messages, params, warmCtx)), ctx.quick ? 5 : 21, 3);
  return {
    cold: stat(cold),
    warm: stat(warm),
    warmP90: quantile(warm, 0.9),
    archived: plan!.archived.length,
    truncated: plan!.truncated.length,
    noop: plan!.noop,
    tokensAfter: plan!.tokensAfter,
  };
}

function plansTable(ctx: BenchContext, data: PlanTimings): Table {
  const sizes = ctx.sizes;
  const large = sizes[sizes.length - 1];
  return {
    title:
      '3. plan() per strategy, default parameters: cold (nothing counted yet) / warm (memo full); ratio = warm / cold (baseline: the cold plan)',
    columns: ['strategy', ...sizes.flatMap((s) => [`${sizeLabel(ctx, s)} cold`, 'warm', 'ratio']), `warm < ${FRAME_MS} ms at ${large}`],
    rows: [
      ...STRATEGIES.map((def) => ({ name: def.name, label: `${def.name}${def.usesSummarizer ? ' (LLM)' : ''}`, llm: def.usesSummarizer })),
      { name: CACHED_ROW, label: CACHED_ROW, llm: false },
    ].map(({ name, label, llm }) => {
      const d = data[name];
      const w = d[large].warm.median;
      return [
        label,
        ...sizes.flatMap((s) => [fmtMs(d[s].cold.median), fmtMs(d[s].warm.median), fmtRatio(d[s].warm.median / d[s].cold.median)]),
        llm ? `${w < FRAME_MS ? 'yes' : 'no'} (LLM, not targeted)` : w < FRAME_MS ? 'yes' : 'NO',
      ];
    }),
    notes: [
      `Warm plans run as the extension host runs them: the message memo full, ` +
        `CachingTextTokenizer (short-text counts) in front of the encoder, and a per-session ReplacementCache, ` +
        `so micro-compact reuses the copies of the ${fmtInt(data['micro-compact'][large].truncated)} messages ` +
        `whose old tool results it replaces (at ${large} messages) instead of building and counting them again. ` +
        `The last row is micro-compact without those caches.`,
      'Cold: a new MemoizedMessageCounter per run (ranks loaded, gpt-tokenizer merge cache cleared), ' +
        'so the plan pays for counting every message; warm: the counter already holds every message. ' +
        'Medians of 3-5 cold and 21 warm runs in a warm process.',
      `What the plans do at ${large} messages: ` +
        STRATEGIES.map(
          (def) =>
            `${def.name} ` +
            (data[def.name][large].noop
              ? 'no-op'
              : `archives ${fmtInt(data[def.name][large].archived)} msgs -> ${fmtInt(data[def.name][large].tokensAfter)} tok`),
        ).join('; ') +
        '.',
    ],
  };
}

function plansTargets(ctx: BenchContext, data: PlanTimings): TargetResult[] {
  const large = ctx.sizes[ctx.sizes.length - 1];
  const nonLlm = STRATEGIES.filter((d) => !d.usesSummarizer);
  const worst = nonLlm.reduce((a, b) => (data[a.name][large].warm.median >= data[b.name][large].warm.median ? a : b));
  const worstMs = data[worst.name][large].warm.median;
  const targets: TargetResult[] = [
    {
      target: `warm plan() of every non-LLM strategy at ~1M tokens < ${FRAME_MS} ms`,
      status: worstMs < FRAME_MS ? 'met' : 'missed',
      detail: `slowest non-LLM strategy: ${worst.name} ${fmtMs(worstMs)} (p90 ${fmtMs(data[worst.name][large].warmP90)}); slowest of all: ${(() => {
        const all = STRATEGIES.reduce((a, b) => (data[a.name][large].warm.median >= data[b.name][large].warm.median ? a : b));
        return `${all.name} ${fmtMs(data[all.name][large].warm.median)}`;
      })()}`,
    },
  ];
  targets[0].detail += `; micro-compact without the host caches: ${fmtMs(data[CACHED_ROW][large].warm.median)} (p90 ${fmtMs(data[CACHED_ROW][large].warmP90)})`;
  return targets;
}
