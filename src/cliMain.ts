// The `splitpoint` command line over the same core the extension uses.
//   splitpoint strategies [--json]
//   splitpoint plan FILE --strategy NAME [--param k=v ...] [--window TOKENS] [--max-output TOKENS] [--tokenizer NAME] [--json]
//   splitpoint import FILE            (print any supported session as Splitpoint JSONL)
// Exit codes: 0 success, 2 bad input or usage (the message names the file, line and field).
import {
  createTokenizer,
  DEFAULT_PLAN_CONTEXT,
  DEFAULT_TOKENIZER,
  errorMessage,
  importSession,
  ImportError,
  isTokenizerName,
  kindOf,
  MemoizedMessageCounter,
  resolveStrategy,
  serializeSplitpointJsonl,
  SplitpointError,
  STRATEGIES,
  StrategyParamError,
  textOf,
  TOKENIZER_NAMES,
  UnknownStrategyError,
  type CompactionPlan,
  type Message,
  type PlanContext,
} from './core';

export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  readFile: (path: string) => string;
}

export const EXIT_OK = 0;
export const EXIT_BAD_INPUT = 2;

class UsageError extends SplitpointError {
  override name = 'UsageError';
}

const HELP = `splitpoint — see and steer context compaction

Usage:
  splitpoint strategies [--json]
      List the compaction strategies with their parameters and defaults.
  splitpoint plan FILE --strategy NAME [--param k=v ...] [--window TOKENS]
                  [--max-output TOKENS] [--tokenizer ${TOKENIZER_NAMES.join('|')}] [--json]
      Show what the strategy would keep, archive and truncate in FILE (nothing is changed).
  splitpoint import FILE
      Print FILE as Splitpoint session JSONL.

FILE may be Splitpoint session JSONL, Anthropic Messages JSON (an array of messages or
{ "messages": [...] }), a Claude Code session JSONL, or a Codex CLI rollout JSONL.`;

interface ParsedArgs {
  positional: string[];
  flags: Map<string, string[]>;
}

const VALUE_FLAGS = new Set(['--strategy', '--param', '--window', '--max-output', '--tokenizer']);
const BOOL_FLAGS = new Set(['--json', '--help', '-h']);

function parseArgs(argv: string[]): ParsedArgs {
  const positional: string[] = [];
  const flags = new Map<string, string[]>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    if (VALUE_FLAGS.has(name)) {
      const value = name !== arg ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined) throw new UsageError(`${name} needs a value`);
      flags.set(name, [...(flags.get(name) ?? []), value]);
    } else if (BOOL_FLAGS.has(arg)) {
      flags.set(arg, ['true']);
    } else if (arg.startsWith('-')) {
      throw new UsageError(`unknown option ${arg}`);
    } else {
      positional.push(arg);
    }
  }
  return { positional, flags };
}

function one(args: ParsedArgs, flag: string): string | undefined {
  const values = args.flags.get(flag);
  if (values && values.length > 1) throw new UsageError(`${flag} given more than once`);
  return values?.[0];
}

function positiveInt(flag: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`${flag} must be a positive integer, got "${raw}"`);
  return n;
}

export async function runCli(argv: string[], io: CliIO): Promise<number> {
  try {
    const args = parseArgs(argv);
    const [command, ...rest] = args.positional;
    if (!command || args.flags.has('--help') || args.flags.has('-h')) {
      io.stdout(HELP + '\n');
      return command || args.flags.size > 0 ? EXIT_OK : EXIT_BAD_INPUT;
    }
    switch (command) {
      case 'strategies':
        return listStrategies(args, io);
      case 'plan':
        return planCommand(rest, args, io);
      case 'import':
        return importCommand(rest, io);
      default:
        throw new UsageError(`unknown command "${command}" (commands: strategies, plan, import)`);
    }
  } catch (e) {
    if (e instanceof ImportError || e instanceof StrategyParamError || e instanceof UnknownStrategyError) {
      io.stderr(`splitpoint: ${e.message}\n`);
      return EXIT_BAD_INPUT;
    }
    if (e instanceof UsageError) {
      io.stderr(`splitpoint: ${e.message}\nRun "splitpoint --help" for usage.\n`);
      return EXIT_BAD_INPUT;
    }
    throw e;
  }
}

function listStrategies(args: ParsedArgs, io: CliIO): number {
  if (args.flags.has('--json')) {
    const out = STRATEGIES.map((s) => ({
      name: s.name,
      title: s.title,
      description: s.description,
      usesSummarizer: s.usesSummarizer,
      params: s.params,
    }));
    io.stdout(JSON.stringify(out, null, 2) + '\n');
    return EXIT_OK;
  }
  const lines: string[] = [];
  for (const s of STRATEGIES) {
    lines.push(`${s.name}${s.usesSummarizer ? '  (LLM summary)' : ''}`);
    lines.push(`  ${s.description}`);
    for (const p of s.params) lines.push(`  --param ${p.name}=${p.default}`.padEnd(34) + ` ${p.description}`);
    lines.push('');
  }
  io.stdout(lines.join('\n'));
  return EXIT_OK;
}

function readInput(file: string, io: CliIO): string {
  try {
    return io.readFile(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ImportError(
      file,
      undefined,
      undefined,
      code === 'ENOENT' ? 'file not found' : `cannot read file (${code ?? errorMessage(e)})`,
    );
  }
}

function importCommand(rest: string[], io: CliIO): number {
  if (rest.length !== 1) throw new UsageError('import needs exactly one FILE');
  const file = rest[0];
  const result = importSession(readInput(file, io), file);
  for (const w of result.warnings) io.stderr(`splitpoint: warning: ${w}\n`);
  io.stdout(serializeSplitpointJsonl(result.messages));
  return EXIT_OK;
}

function planCommand(rest: string[], args: ParsedArgs, io: CliIO): number {
  if (rest.length !== 1) throw new UsageError('plan needs exactly one FILE');
  const file = rest[0];
  const strategyName = one(args, '--strategy');
  if (!strategyName) throw new UsageError('plan needs --strategy NAME (see "splitpoint strategies")');
  const overrides: Record<string, string> = {};
  for (const kv of args.flags.get('--param') ?? []) {
    const eq = kv.indexOf('=');
    if (eq <= 0) throw new UsageError(`--param expects k=v, got "${kv}"`);
    overrides[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  const strategy = resolveStrategy(strategyName, overrides);
  const tokenizerName = one(args, '--tokenizer') ?? DEFAULT_TOKENIZER;
  if (!isTokenizerName(tokenizerName)) {
    throw new UsageError(`--tokenizer must be one of ${TOKENIZER_NAMES.join(', ')}, got "${tokenizerName}"`);
  }
  const ctx: PlanContext = {
    ...DEFAULT_PLAN_CONTEXT,
    contextWindow: positiveInt('--window', one(args, '--window'), DEFAULT_PLAN_CONTEXT.contextWindow),
    maxOutputTokens: positiveInt('--max-output', one(args, '--max-output'), DEFAULT_PLAN_CONTEXT.maxOutputTokens),
    tokens: new MemoizedMessageCounter(createTokenizer(tokenizerName)),
  };
  const imported = importSession(readInput(file, io), file);
  for (const w of imported.warnings) io.stderr(`splitpoint: warning: ${w}\n`);
  const plan = strategy.plan(imported.messages, ctx);
  if (args.flags.has('--json')) {
    io.stdout(JSON.stringify(planToJson(file, imported.format, tokenizerName, ctx, plan), null, 2) + '\n');
  } else {
    io.stdout(planToTable(file, imported.format, imported.messages, plan, ctx));
  }
  return EXIT_OK;
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
    needsSummary: plan.needsSummary,
    summaryTokensEstimate: plan.summaryTokensEstimate,
    summarizerInputTokens: plan.summarizerInput?.tokens ?? 0,
    kept: plan.kept.map((e) => e.id),
    archived: plan.archived.map((e) => e.id),
    truncated: plan.truncated.map((e) => e.id),
    entries: { kept: plan.kept, archived: plan.archived, truncated: plan.truncated },
    messages: plan.output,
  };
}

function planToTable(file: string, format: string, input: readonly Message[], plan: CompactionPlan, ctx: PlanContext): string {
  const pct = (n: number) => `${((100 * n) / ctx.contextWindow).toFixed(1)}%`;
  const lines: string[] = [];
  lines.push(`file       ${file} (${format}, ${input.length} messages)`);
  lines.push(
    `strategy   ${plan.strategy} ${Object.entries(plan.params)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')}`,
  );
  lines.push(
    `tokens     ${plan.tokensBefore} -> ${plan.tokensAfter}${plan.needsSummary ? ` (incl. ~${plan.summaryTokensEstimate} for the summary)` : ''}  [window ${ctx.contextWindow}: ${pct(plan.tokensBefore)} -> ${pct(plan.tokensAfter)}]`,
  );
  lines.push(
    `result     ${plan.noop ? 'no change' : `keep ${plan.kept.length}, archive ${plan.archived.length}, truncate ${plan.truncated.length}`}${plan.tailStartId ? `; tail starts at ${plan.tailStartId}` : ''}`,
  );
  if (plan.summarizerInput)
    lines.push(
      `summarizer input ${plan.summarizerInput.tokens} tokens (${plan.summarizerInput.toSummarize.length} messages, ${plan.summarizerInput.priorSummaries.length} prior summaries, ${plan.summarizerInput.overlap.length} overlap)`,
    );
  for (const n of plan.notes) lines.push(`note       ${n}`);
  lines.push('');
  const status = new Map<string, string>();
  for (const e of plan.archived) status.set(e.id, 'archived');
  for (const e of plan.kept) status.set(e.id, 'kept');
  for (const e of plan.truncated) status.set(e.id, `truncated ${e.originalTokens}->${e.tokens}`);
  lines.push(`${'#'.padStart(5)}  ${'id'.padEnd(24)} ${'kind'.padEnd(15)} ${'tokens'.padStart(7)}  ${'status'.padEnd(22)} preview`);
  input.forEach((m, i) => {
    if (!plan.noop && i === plan.splitIndex) lines.push(`${''.padStart(5)}  ${'──── split point ────'}`);
    const tail = m.id === plan.tailStartId ? ' <- tail start' : '';
    const preview = textOf(m).replace(/\s+/g, ' ').slice(0, 48);
    lines.push(
      `${String(i).padStart(5)}  ${m.id.slice(0, 24).padEnd(24)} ${kindOf(m).padEnd(15)} ${String(ctx.tokens.countMessage(m)).padStart(7)}  ${(status.get(m.id) ?? '?').padEnd(22)} ${preview}${tail}`,
    );
  });
  if (!plan.noop && plan.splitIndex >= input.length) lines.push(`${''.padStart(5)}  ${'──── split point ────'}`);
  return lines.join('\n') + '\n';
}
