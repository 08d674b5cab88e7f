// `splitpoint plan FILE --strategy NAME [--param k=v …] [--window N] [--max-output N] [--tokenizer T] [--at N]
//   [--pin ID[,ID…]] [--split-at ID] [--json]`:
// what a strategy would keep, archive and truncate, and the request it would send. Plans on the current
// context, or with --at N on the context as it stood before recorded compaction N.
import {
  calibratedPlan,
  createTokenizer,
  DEFAULT_PLAN_CONTEXT,
  fallbackPriceWarning,
  DEFAULT_TOKENIZER,
  getStrategy,
  isTokenizerName,
  kindOf,
  MemoizedMessageCounter,
  planRequest,
  priceLookup,
  recordedCacheState,
  recordingCalibration,
  resolveStrategy,
  sessionWindow,
  textOf,
  TOKENIZER_NAMES,
  type CompactionPlan,
  type ImportResult,
  type Message,
  type PlanContext,
  type SessionWindow,
} from '../core';
import { EXIT_OK, loadSession, one, positiveInt, printWarnings, rejectFlags, UsageError, type CliIO, type ParsedArgs } from './args';
import { parseParamOverrides } from './params';
import { steering, steeringJson, steeringLines, strategyFor } from './steer';
import { WINDOW_SOURCE_TEXT } from './inspect';
import { oneLine } from './terminal';

const PLAN_FLAGS = ['--strategy', '--param', '--window', '--max-output', '--tokenizer', '--at', '--pin', '--split-at', '--json'];

/** The messages to plan on: the current context, or the context before recorded compaction `at` (1-based). */
export function contextAt(file: string, session: ImportResult, at: number | undefined): Message[] {
  if (at === undefined) return session.messages;
  const count = session.compactions.length;
  if (at > count) {
    const range = count === 0 ? '' : ` (--at takes 1..${count})`;
    throw new UsageError(`--at ${at}: ${file} has ${count} recorded compaction${count === 1 ? '' : 's'}${range}`);
  }
  return session.compactions[at - 1].before;
}

export function planCommand(rest: string[], args: ParsedArgs, io: CliIO): number {
  rejectFlags(args, 'plan', PLAN_FLAGS);
  if (rest.length !== 1) throw new UsageError('plan needs exactly one FILE');
  const file = rest[0];
  const strategyName = strategyFor(args);
  if (!strategyName) throw new UsageError('plan needs --strategy NAME or --split-at ID (see "splitpoint strategies")');
  const overrides = parseParamOverrides(getStrategy(strategyName), args.flags.get('--param') ?? []);
  const strategy = resolveStrategy(strategyName, Object.fromEntries(overrides));
  const tokenizerName = one(args, '--tokenizer') ?? DEFAULT_TOKENIZER;
  if (!isTokenizerName(tokenizerName)) {
    throw new UsageError(`--tokenizer must be one of ${TOKENIZER_NAMES.join(', ')}, got "${tokenizerName}"`);
  }
  const at = positiveInt('--at', one(args, '--at'));
  const window = positiveInt('--window', one(args, '--window'));
  const maxOutput = positiveInt('--max-output', one(args, '--max-output'), DEFAULT_PLAN_CONTEXT.maxOutputTokens);
  const session = loadSession(file, io, false);
  const input = contextAt(file, session, at);
  printWarnings(session, io);
  const steer = steering(file, args, input);
  const w = sessionWindow(session, window);
  // What the recording's last call before this point left in the cache: the cost is not assumed.
  const cache = recordedCacheState(input);
  const ctx: PlanContext = {
    ...DEFAULT_PLAN_CONTEXT,
    contextWindow: w.window,
    maxOutputTokens: maxOutput,
    tokens: new MemoizedMessageCounter(createTokenizer(tokenizerName)),
    // Prices the plan's cost (the recording's model; unknown: the default price).
    ...(modelOf(session) ? { model: modelOf(session) } : {}),
    ...(cache ? { cache } : {}),
    // The CLI shows what a host would send: the artifact ledger and the loss report are on.
    ledger: true,
    ...(steer.pinnedIds.size > 0 ? { pinnedIds: steer.pinnedIds } : {}),
    ...(steer.splitAtId !== undefined ? { splitAtId: steer.splitAtId } : {}),
  };
  // The cost in the recording's own tokens (its calibration), when it recorded enough calls to fit one.
  const calibration = recordingCalibration(session, ctx.tokens);
  const planned = strategy.plan(input, ctx);
  const plan = calibration ? calibratedPlan(planned, input, ctx, calibration) : planned;
  const pricedModel = ctx.cache?.model ?? ctx.model;
  const fallback = fallbackPriceWarning(pricedModel, priceLookup(pricedModel));
  if (fallback) io.stderr(`splitpoint: warning: ${oneLine(fallback)}\n`);
  if (args.flags.has('--json')) {
    const json = {
      ...planToJson(file, session.format, tokenizerName, ctx, plan),
      ...windowJson(w),
      costCounts: calibration ? 'calibrated' : 'local',
    };
    io.stdout(JSON.stringify({ ...json, at: at ?? null }, null, 2) + '\n');
  } else {
    io.stdout(planToTable({ file, format: session.format, at, input, plan, ctx, window: w }));
  }
  return EXIT_OK;
}

/** The window's source (and the recording's contradiction of an assumed window) in `plan --json`. */
function windowJson(w: SessionWindow) {
  return { windowSource: w.source, windowNote: w.note ?? null };
}

/** The model a recording names (the import's, else the last recorded call's). */
function modelOf(session: ImportResult): string | undefined {
  return session.model ?? [...session.messages].reverse().find((m) => m.usage?.model)?.usage?.model;
}

export function planToJson(file: string, format: string, tokenizer: string, ctx: PlanContext, plan: CompactionPlan) {
  return {
    file,
    format,
    tokenizer,
    contextWindow: ctx.contextWindow,
    strategy: plan.strategy,
    params: plan.params,
    noop: plan.noop,
    notes: plan.notes,
    splitIndex: plan.splitIndex,
    tailStartId: plan.tailStartId,
    tokensBefore: plan.tokensBefore,
    tokensAfter: plan.tokensAfter,
    fitsWindow: plan.fitsWindow,
    needsSummary: plan.needsSummary,
    summaryTokensEstimate: plan.summaryTokensEstimate,
    summarizerInputTokens: plan.summarizerInput?.tokens ?? 0,
    kept: plan.kept.map((e) => e.id),
    archived: plan.archived.map((e) => e.id),
    truncated: plan.truncated.map((e) => e.id),
    entries: { kept: plan.kept, archived: plan.archived, truncated: plan.truncated },
    /** The plan's message list (Splitpoint's model: ids, adjacent same-role messages possible). */
    messages: plan.output,
    /** Exactly what would be sent: roles alternate, merged as the agent sends them. */
    request: { messages: planRequest(plan) },
    ...steeringJson(plan),
    /** With the prompt cache: cached tokens invalidated, the next request's USD before/after, turns to pay back (null: never). */
    cost: plan.cost ?? null,
    ...(plan.microCompaction ? { microCompaction: plan.microCompaction } : {}),
  };
}

interface TableInput {
  file: string;
  format: string;
  at: number | undefined;
  input: readonly Message[];
  plan: CompactionPlan;
  ctx: PlanContext;
  /** Where the window comes from (absent: not said). */
  window?: SessionWindow;
}

export function planToTable({ file, format, at, input, plan, ctx, window }: TableInput): string {
  const pct = (n: number) => `${((100 * n) / ctx.contextWindow).toFixed(1)}%`;
  const lines: string[] = [];
  const where = at === undefined ? '' : `, the context before recorded compaction ${at}`;
  lines.push(`file       ${oneLine(file)} (${format}, ${input.length} messages${where})`);
  lines.push(
    `strategy   ${plan.strategy} ${Object.entries(plan.params)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')}`,
  );
  lines.push(
    `tokens     ${plan.tokensBefore} -> ${plan.tokensAfter}` +
      `${plan.needsSummary ? ` (incl. ~${plan.summaryTokensEstimate} for the summary)` : ''}` +
      `  [window ${ctx.contextWindow}: ${pct(plan.tokensBefore)} -> ${pct(plan.tokensAfter)}]` +
      `${plan.fitsWindow ? '' : '  DOES NOT FIT the window'}`,
  );
  if (window)
    lines.push(`window     ${window.window} (${WINDOW_SOURCE_TEXT[window.source]})${window.note ? `; ${oneLine(window.note)}` : ''}`);
  lines.push(
    `result     ${plan.noop ? 'no change' : `keep ${plan.kept.length}, archive ${plan.archived.length}, truncate ${plan.truncated.length}`}` +
      `${plan.tailStartId ? `; tail starts at ${oneLine(plan.tailStartId)}` : ''}`,
  );
  if (plan.summarizerInput)
    lines.push(
      `summarizer input ${plan.summarizerInput.tokens} tokens (${plan.summarizerInput.toSummarize.length} messages, ` +
        `${plan.summarizerInput.priorSummaries.length} prior summaries, ${plan.summarizerInput.overlap.length} overlap)`,
    );
  if (plan.cost) {
    const c = plan.cost;
    const payback =
      c.paybackTurns === null ? 'never pays back' : c.paybackTurns === 0 ? 'cheaper at once' : `pays back in ${c.paybackTurns} turns`;
    lines.push(
      `cost       next request $${c.nextRequestUSD.before.toFixed(4)} -> $${c.nextRequestUSD.after.toFixed(4)}; ` +
        `invalidates ${c.invalidatedCachedTokens} of ${c.cachedPrefixTokens} cached tokens${c.cacheAssumed ? ' (assumed)' : ''}; ${payback}` +
        `${c.priceSource === 'table' ? '' : ` (price: ${c.priceSource})`}`,
    );
  }
  for (const l of steeringLines(plan)) lines.push(oneLine(l));
  for (const n of plan.notes) lines.push(`note       ${oneLine(n)}`);
  lines.push('');
  const status = new Map<string, string>();
  for (const e of plan.archived) status.set(e.id, 'archived');
  for (const e of plan.kept) status.set(e.id, 'kept');
  for (const e of plan.truncated) status.set(e.id, `truncated ${e.originalTokens}->${e.tokens}`);
  lines.push(`${'#'.padStart(5)}  ${'id'.padEnd(24)} ${'kind'.padEnd(15)} ${'tokens'.padStart(7)}  ${'status'.padEnd(22)} preview`);
  input.forEach((m, i) => {
    if (!plan.noop && i === plan.splitIndex) lines.push(`${''.padStart(5)}  ${'──── split point ────'}`);
    const tail = m.id === plan.tailStartId ? ' <- tail start' : '';
    const preview = oneLine(textOf(m).replace(/\s+/g, ' ').slice(0, 48));
    lines.push(
      `${String(i).padStart(5)}  ${oneLine(m.id).slice(0, 24).padEnd(24)} ${kindOf(m).padEnd(15)} ` +
        `${String(ctx.tokens.countMessage(m)).padStart(7)}  ${(status.get(m.id) ?? '?').padEnd(22)} ${preview}${tail}`,
    );
  });
  if (!plan.noop && plan.splitIndex >= input.length) lines.push(`${''.padStart(5)}  ${'──── split point ────'}`);
  return lines.join('\n') + '\n';
}
