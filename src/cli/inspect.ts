// `splitpoint inspect FILE [--json] [--window N]`: what a recorded session is now (the current context
// the model saw last), what it really cost (the recorded usage of its last call beside the calibrated
// estimate) and the compactions the recording agent did.
import {
  genuinePromptCount,
  createTokenizer,
  DEFAULT_TOKENIZER,
  estimateCalls,
  MemoizedMessageCounter,
  recordedCalls,
  recordedInputTokens,
  sessionWindow,
  type ImportResult,
  type Message,
  type MessageTokenCounter,
  type RecordedCompaction,
  type WindowSource,
} from '../core';
import { EXIT_OK, loadSession, one, positiveInt, rejectFlags, UsageError, type CliIO, type ParsedArgs } from './args';
import { oneLine } from './terminal';

/** One recorded compaction as `inspect --json` reports it. */
export interface InspectedCompaction {
  source: RecordedCompaction['source'];
  trigger: RecordedCompaction['trigger'];
  preTokens: number | null;
  /** Messages of the context it replaced (its `before`). */
  archivedMessages: number;
  /** o200k tokens of what replaced it (the summary, or Codex's replacement history). */
  summaryTokens: number;
}

/** What `inspect --json` prints. The keys are a contract: tests and other tools rely on them. */
export interface InspectSummary {
  format: ImportResult['format'];
  /** Messages in the current context. */
  messages: number;
  /** o200k tokens of the current context's messages. */
  contextTokens: number;
  /** Calibrated estimate of the last recorded call's input, from the earlier calls only (null with < 2 calls). */
  estimatedInputTokens: number | null;
  /** The last recorded call's real input (input + cache read + cache creation); null with no recorded call. */
  recordedInputTokens: number | null;
  /** Recorded model calls in the whole session. */
  recordedCalls: number;
  /** Prompts a person typed in the whole session (archived history and current context; not artefacts, not a summary's copies). */
  genuinePrompts: number;
  /** Of genuinePrompts, those a rollback (Codex thread rollback, Claude Code rewind or edit) later removed from the conversation. */
  rolledBackPrompts: number;
  compactions: InspectedCompaction[];
  /** The window: --window, else the recording's, else inferred from the recorded calls, else the model's (see windowSource). */
  contextWindow: number;
  /** Where contextWindow comes from: 'user' (--window), 'recorded', 'inferred-from-usage' (a call larger than the table's window), 'model-table'. */
  windowSource: WindowSource;
  /** Set when the recording contradicts the window one would assume (the table's, or --window). */
  windowNote: string | null;
  model: string | null;
  warnings: string[];
}

/** The contexts of a session, oldest first: each compaction's `before`, then the current context. */
export function sessionContexts(session: Pick<ImportResult, 'messages' | 'compactions'>): Message[][] {
  return [...session.compactions.map((c) => c.before), session.messages];
}

export function inspectSession(session: ImportResult, counter: MessageTokenCounter, window?: number): InspectSummary {
  const contexts = sessionContexts(session);
  const calls = recordedCalls(contexts);
  const last = calls.at(-1);
  const estimates = calls.length >= 2 ? estimateCalls(calls, counter) : [];
  const w = sessionWindow(session, window);
  const prompts = genuinePromptCount(session);
  return {
    format: session.format,
    messages: session.messages.length,
    contextTokens: counter.countMessages(session.messages),
    estimatedInputTokens: estimates.at(-1)?.estimated ?? null,
    recordedInputTokens: last ? recordedInputTokens(last.usage) : null,
    recordedCalls: calls.length,
    genuinePrompts: prompts.total,
    rolledBackPrompts: prompts.rolledBack,
    compactions: session.compactions.map((c) => ({
      source: c.source,
      trigger: c.trigger,
      preTokens: c.preTokens,
      archivedMessages: c.before.length,
      summaryTokens: counter.countMessages(c.summary),
    })),
    contextWindow: w.window,
    windowSource: w.source,
    windowNote: w.note ?? null,
    model: session.model ?? last?.usage.model ?? null,
    warnings: [...session.warnings],
  };
}

export function inspectCommand(rest: string[], args: ParsedArgs, io: CliIO): number {
  rejectFlags(args, 'inspect', ['--json', '--window']);
  if (rest.length !== 1) throw new UsageError('inspect needs exactly one FILE');
  const file = rest[0];
  const window = positiveInt('--window', one(args, '--window'));
  const json = args.flags.has('--json');
  // With --json the warnings are part of the answer; the readable summary lists them too.
  const session = loadSession(file, io, false);
  const summary = inspectSession(session, new MemoizedMessageCounter(createTokenizer(DEFAULT_TOKENIZER)), window);
  io.stdout(json ? JSON.stringify(summary, null, 2) + '\n' : inspectToText(file, summary));
  return EXIT_OK;
}

const n = (x: number) => x.toLocaleString('en-US');

/** How the text output names each window source. */
export const WINDOW_SOURCE_TEXT: Readonly<Record<WindowSource, string>> = {
  user: 'given with --window',
  recorded: 'as recorded',
  'inferred-from-usage': 'inferred from recorded usage',
  'model-table': "the model's standard window",
};

export function inspectToText(file: string, s: InspectSummary): string {
  const pct = (x: number) => `${((100 * x) / s.contextWindow).toFixed(1)}%`;
  const lines: string[] = [];
  lines.push(`file         ${oneLine(file)} (${s.format}${s.model ? `, model ${oneLine(s.model)}` : ''})`);
  lines.push(
    `context      ${n(s.messages)} messages, ${n(s.contextTokens)} tokens (o200k estimate), ` +
      `${pct(s.contextTokens)} of a ${n(s.contextWindow)} window (${WINDOW_SOURCE_TEXT[s.windowSource]})`,
  );
  if (s.windowNote) lines.push(`window       ${oneLine(s.windowNote)}`);
  if (s.recordedInputTokens === null) {
    lines.push('recorded     no recorded usage');
  } else {
    const estimate =
      s.estimatedInputTokens === null
        ? 'no calibrated estimate (needs 2 recorded calls)'
        : `calibrated estimate ${n(s.estimatedInputTokens)} from the ${n(s.recordedCalls - 1)} calls before it ` +
          `(${signedPct(s.estimatedInputTokens, s.recordedInputTokens)})`;
    lines.push(`recorded     last call read ${n(s.recordedInputTokens)} input tokens (${pct(s.recordedInputTokens)}); ${estimate}`);
  }
  lines.push(
    `prompts      ${n(s.genuinePrompts)} genuine prompt${s.genuinePrompts === 1 ? '' : 's'}` +
      (s.rolledBackPrompts > 0 ? ` (${n(s.rolledBackPrompts)} later removed by a rollback)` : ''),
  );
  if (s.compactions.length === 0) lines.push('compactions  none recorded');
  s.compactions.forEach((c, i) => {
    lines.push(
      `compaction ${String(i + 1).padEnd(2)}${c.trigger.padEnd(8)} ${c.preTokens === null ? 'pre-tokens not recorded' : `${n(c.preTokens)} tokens before`}; ` +
        `archived ${n(c.archivedMessages)} messages, replaced by ${n(c.summaryTokens)} tokens`,
    );
  });
  lines.push(`warnings     ${s.warnings.length}`);
  for (const w of s.warnings) lines.push(`  ${oneLine(w)}`);
  return lines.join('\n') + '\n';
}

function signedPct(estimate: number, recorded: number): string {
  const d = (100 * (estimate - recorded)) / recorded;
  return `${d >= 0 ? '+' : ''}${d.toFixed(1)}%`;
}
