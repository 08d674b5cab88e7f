// `splitpoint probe FILE [--at N] [--strategy NAME] [--param k=v …] [--window N] [--json]`: what a
// compaction lost, asked as questions (issue 22), scored offline: a probe is answerable when its
// expected answer is in what the model would receive.
//   --at N              the probes of what recorded compaction N archived, scored on what the recording
//                       kept (its summary or replacement history, and what followed up to the next answer)
//   --at N --strategy S the same probes, scored on S's plan over the same context (just before compaction N)
//   --strategy S        S's plan on the current context: the probes of what it would archive, on its request
// A summarizing strategy's plan has no summary yet: its score counts the ledger and the kept messages.
import {
  createTokenizer,
  DEFAULT_PLAN_CONTEXT,
  DEFAULT_TOKENIZER,
  getStrategy,
  MemoizedMessageCounter,
  PROBE_KINDS,
  recordedCacheState,
  recordedCompactionProbes,
  resolveStrategy,
  scorePlan,
  scoreProbes,
  sessionWindow,
  type CompactionPlan,
  type ImportResult,
  type Message,
  type PlanContext,
  type Probe,
  type ProbeScore,
} from '../core';
import { EXIT_OK, loadSession, one, positiveInt, printWarnings, rejectFlags, UsageError, type CliIO, type ParsedArgs } from './args';
import { parseParamOverrides } from './params';
import { contextAt } from './plan';
import { oneLine } from './terminal';

const PROBE_FLAGS = ['--at', '--strategy', '--param', '--window', '--json'];

interface ProbeReport {
  file: string;
  format: string;
  at: number | null;
  strategy: string | null;
  /** What the probes were scored on. */
  scoredOn: 'recorded' | 'plan';
  /** False when a summarizing plan's summary is not written yet (its ledger and kept messages count). */
  summaryCounted: boolean;
  probes: Probe[];
  score: ProbeScore;
  /** With --at and --strategy: the recording's own score of the same probes, to compare. */
  recorded: ProbeScore | null;
  note: string | null;
}

function planFor(session: ImportResult, input: readonly Message[], strategyName: string, args: ParsedArgs): CompactionPlan {
  const overrides = parseParamOverrides(getStrategy(strategyName), args.flags.get('--param') ?? []);
  const strategy = resolveStrategy(strategyName, Object.fromEntries(overrides));
  const w = sessionWindow(session, positiveInt('--window', one(args, '--window')));
  const cache = recordedCacheState(input);
  const ctx: PlanContext = {
    ...DEFAULT_PLAN_CONTEXT,
    contextWindow: w.window,
    tokens: new MemoizedMessageCounter(createTokenizer(DEFAULT_TOKENIZER)),
    ...(cache ? { cache } : {}),
    // What a host sends: the artifact ledger is on.
    ledger: true,
  };
  return strategy.plan(input, ctx);
}

const NOT_COUNTED = 'the plan summarizes, and no summary is written offline: the score counts its ledger and kept messages only (a floor)';

export function probeReport(file: string, session: ImportResult, args: ParsedArgs): ProbeReport {
  const at = positiveInt('--at', one(args, '--at'));
  const strategyName = one(args, '--strategy');
  if (at === undefined && strategyName === undefined) throw new UsageError('probe needs --at N (a recorded compaction) or --strategy NAME');
  if (strategyName !== undefined) getStrategy(strategyName);
  const base = { file, format: session.format, at: at ?? null, strategy: strategyName ?? null };
  if (at !== undefined) {
    const input = contextAt(file, session, at);
    const recorded = recordedCompactionProbes(session, at);
    if (strategyName === undefined) {
      const note = recorded.probes.length === 0 ? 'compaction archived nothing to ask about' : null;
      return { ...base, scoredOn: 'recorded', summaryCounted: true, probes: recorded.probes, score: recorded.score, recorded: null, note };
    }
    const plan = planFor(session, input, strategyName, args);
    const score = scoreProbes(recorded.probes, plan.output);
    const note = plan.noop
      ? `${strategyName} changes nothing here: its request is the whole context`
      : plan.needsSummary
        ? NOT_COUNTED
        : null;
    return {
      ...base,
      scoredOn: 'plan',
      summaryCounted: !plan.needsSummary,
      probes: recorded.probes,
      score,
      recorded: recorded.score,
      note,
    };
  }
  const plan = planFor(session, session.messages, strategyName!, args);
  const { probes, score, summaryCounted } = scorePlan(session.messages, plan);
  const note = plan.noop ? `${strategyName} changes nothing here: nothing is archived` : summaryCounted ? null : NOT_COUNTED;
  return { ...base, scoredOn: 'plan', summaryCounted, probes, score, recorded: null, note };
}

export function probeToJson(r: ProbeReport) {
  return {
    file: r.file,
    format: r.format,
    at: r.at,
    strategy: r.strategy,
    scoredOn: r.scoredOn,
    summaryCounted: r.summaryCounted,
    probes: r.score.probes.map((p) => ({
      id: p.id,
      kind: p.kind,
      question: p.question,
      expected: p.expected,
      sources: p.sources,
      answerable: p.answerable,
      exact: p.exact,
      referencedLater: p.referencedLater,
    })),
    recall: r.score.recall,
    recallByKind: r.score.recallByKind,
    recordedRecall: r.recorded ? r.recorded.recall : null,
    recordedRecallByKind: r.recorded ? r.recorded.recallByKind : null,
    note: r.note,
  };
}

const pct = (x: number | null) => (x === null ? '-' : `${Math.round(100 * x)}%`);

export function probeToText(r: ProbeReport): string {
  const lines: string[] = [];
  const what = r.at === null ? `the plan of ${r.strategy} archives from the current context` : `recorded compaction ${r.at} archived`;
  const on =
    r.scoredOn === 'recorded' ? 'what the recording kept (its summary and what followed)' : `the request of the plan of ${r.strategy}`;
  lines.push(`file       ${oneLine(r.file)} (${r.format})`);
  lines.push(`probes     ${r.probes.length} of what ${what}, scored on ${on}`);
  const byKind = PROBE_KINDS.map((k) => `${k} ${pct(r.score.recallByKind[k])} (${r.probes.filter((p) => p.kind === k).length})`);
  lines.push(`answerable ${pct(r.score.recall)}  [${byKind.join(', ')}]`);
  if (r.recorded) lines.push(`recorded   ${pct(r.recorded.recall)} (the recording's own summary, same probes)`);
  if (r.note) lines.push(`note       ${oneLine(r.note)}`);
  lines.push('');
  for (const p of r.score.probes) {
    lines.push(`${p.answerable ? '+' : '-'} ${p.kind.padEnd(12)} ${oneLine(p.question)}`);
    lines.push(
      `  ${''.padEnd(12)} expected: ${p.expected.map((e) => oneLine(e)).join(' | ')}  (from ${p.sources.map(oneLine).join(', ')})`,
    );
  }
  return lines.join('\n') + '\n';
}

export function probeCommand(rest: string[], args: ParsedArgs, io: CliIO): number {
  rejectFlags(args, 'probe', PROBE_FLAGS);
  if (rest.length !== 1) throw new UsageError('probe needs exactly one FILE');
  if (args.flags.has('--param') && !args.flags.has('--strategy')) throw new UsageError('--param needs --strategy NAME');
  const file = rest[0];
  const session = loadSession(file, io, false);
  printWarnings(session, io);
  const report = probeReport(file, session, args);
  io.stdout(args.flags.has('--json') ? JSON.stringify(probeToJson(report), null, 2) + '\n' : probeToText(report));
  return EXIT_OK;
}
