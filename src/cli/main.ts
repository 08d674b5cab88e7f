// The `splitpoint` command line over the same core the extension uses.
//   splitpoint strategies [--json]
//   splitpoint inspect FILE [--json] [--window TOKENS]
//   splitpoint plan FILE --strategy NAME [--param k=v ...] [--window TOKENS] [--max-output TOKENS] [--tokenizer NAME] [--at N]
//                   [--pin ID[,ID...]] [--split-at ID] [--json]
//   splitpoint import FILE            (print any supported session as Splitpoint JSONL, losing nothing)
//   splitpoint replay FILE [--config NAME|FILE ...] [--prices FILE] [--json]
//   splitpoint probe FILE [--at N] [--strategy NAME] [--param k=v ...] [--window TOKENS] [--json]
//   splitpoint sessions [--json] [--cwd DIR]
//   splitpoint tune FILES...|DIR [--target-recall R] [--json] [--results FILE.jsonl] [--settings FILE] [--jobs N]
//   splitpoint inspect FILE --follow [--json]
// Exit codes: 0 success, 2 bad input or usage (the message names the file, line and field).
// Nothing from a session file reaches the terminal as a control sequence: all output goes through
// terminalSafe (JSON stays valid JSON with the same meaning).
// The commands live in src/cli/; src/cli.ts is the entry point esbuild bundles.
import {
  ImportError,
  serializeImportResult,
  STRATEGIES,
  StrategyParamError,
  TOKENIZER_NAMES,
  UnknownPinError,
  UnknownSplitTargetError,
  UnknownStrategyError,
} from '../core';
import { EXIT_BAD_INPUT, EXIT_OK, loadSession, parseArgs, rejectFlags, UsageError, type CliIO, type ParsedArgs } from './args';
import { followCommand } from './follow';
import { sessionsCommand } from './sessions';
import { inspectCommand } from './inspect';
import { planCommand } from './plan';
import { probeCommand } from './probe';
import { replayCommand } from './replay';
import { tuneCommand } from './tune';
import { TuneTaskError } from './tunePool';
import { BUILTIN_REPLAY_CONFIG_NAMES, ReplayConfigError } from '../settings/replayConfigs';
import { terminalSafe } from './terminal';

export { EXIT_BAD_INPUT, EXIT_OK, type CliIO } from './args';
export { inspectSession, type InspectSummary } from './inspect';
export { planToJson } from './plan';

const HELP = `splitpoint — see and steer context compaction

Usage:
  splitpoint strategies [--json]
      List the compaction strategies with their parameters and defaults.
  splitpoint inspect FILE [--json] [--window TOKENS]
      What FILE's model saw last (the current context), what its calls really cost (recorded usage
      beside the calibrated estimate), its genuine prompts and the compactions its agent recorded.
  splitpoint inspect FILE --follow [--json]
      Follow a session its agent is writing: one line per new model call with the context it read
      (recorded), its % of the window, the calls left before the agent's own auto-compaction at the
      recent growth rate, and the cost so far. --json: one JSON object per line (keys contextTokens,
      contextWindow, percent, callsToCompaction, costSoFar). Ends on Ctrl+C or when FILE is deleted.
  splitpoint sessions [--json] [--cwd DIR]
      The Claude Code and Codex sessions of DIR (default: the current folder), newest
      activity first: agent, last activity, context used of the window, compactions, model, title.
      Found under CLAUDE_CONFIG_DIR (else ~/.claude) and CODEX_HOME (else ~/.codex). --json: an array
      of {file, agent, cwd, model, title, lastActivity, contextTokens, contextWindow, compactions,
      writing} (keys in docs/live-sessions.md).
  splitpoint plan FILE --strategy NAME [--param k=v ...] [--window TOKENS] [--at N]
                  [--max-output TOKENS] [--tokenizer ${TOKENIZER_NAMES.join('|')}]
                  [--pin ID[,ID...]] [--split-at ID] [--json]
      Show what the strategy would keep, archive and truncate in FILE's current context (with --at N:
      the context just before recorded compaction N), and the request it would send. Nothing is changed.
      The window defaults to the recording's when it has one. --pin keeps those messages verbatim;
      --split-at ID compacts everything before message ID (the split-at strategy; --param summarize=0
      for no LLM summary). --json adds pinned, ledger and lost (files, commands, errors, instructions).
  splitpoint import FILE
      Print FILE as Splitpoint session JSONL: archived history, recorded compactions and current
      context; "inspect" on the output answers as on FILE.
  splitpoint replay FILE [--config NAME|FILE ...] [--prices FILE] [--json]
      Replay FILE's recorded calls under each compaction configuration and print what each would have
      cost (the prompt cache priced as billed, each cache write at its TTL), beside the recorded cost,
      with the path, prompt and ledger recall of each configuration's final request.
      --config NAME|FILE  a built-in or a configuration JSON file; repeatable (default: every built-in)
                          built-ins: ${BUILTIN_REPLAY_CONFIG_NAMES.join(', ')}
      --prices FILE       price overrides by model id prefix (USD per million tokens)
      --json              the report as JSON (keys in docs/replay-and-cost.md)
  splitpoint probe FILE [--at N] [--strategy NAME] [--param k=v ...] [--window TOKENS] [--json]
      What a compaction lost, asked as questions (artifact, recall, decision, continuation) with their
      expected answers, and which are answerable from what the model would receive (no model runs).
      --at N alone: the probes of what recorded compaction N archived, scored on what the recording kept
      (its summary or replacement history, and what followed). --at N --strategy NAME: the same probes
      scored on that strategy's plan just before compaction N. --strategy NAME alone: the strategy's plan
      on the current context. A summarizing plan has no summary offline: its ledger and kept messages
      count. --json: probes[{id, kind, question, expected, sources, answerable}], recall, recallByKind
      (keys in docs/probes.md).

  splitpoint tune FILES...|DIR [--target-recall R] [--json] [--results FILE.jsonl] [--settings FILE] [--jobs N]
      Search the compaction settings (trigger, thresholds, keep counts, micro-compaction, cache TTL, …)
      over your recorded sessions for the lowest replayed cost at a probe answerable rate of at least R
      (default: the rate of the current settings) without overflowing the window on any session; print
      the best settings as a JSON block the extension accepts, its cost against the current settings,
      claude-code-like and no-compaction per session, and the frontier of what was tried.
      --settings FILE   a VS Code settings.json whose splitpoint.* keys are the current settings
                        (default: the shipped defaults)
      --results FILE    one JSON line per (session, configuration) replay (keys in docs/tune.md)
      --jobs N          worker threads (default: the available cores)
      Exit 1 when no configuration tried reaches the target.

FILE may be Splitpoint session JSONL, Anthropic Messages JSON (an array of messages or
{ "messages": [...] }), a Claude Code session JSONL, or a Codex CLI rollout JSONL.`;

export async function runCli(argv: string[], rawIo: CliIO): Promise<number> {
  const io = terminalSafe(rawIo);
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
      case 'inspect':
        return args.flags.has('--follow') ? await followCommand(rest, args, io) : inspectCommand(rest, args, io);
      case 'sessions':
        return await sessionsCommand(rest, args, io);
      case 'plan':
        return planCommand(rest, args, io);
      case 'import':
        return importCommand(rest, args, io);
      case 'replay':
        return await replayCommand(rest, args, io);
      case 'probe':
        return probeCommand(rest, args, io);
      case 'tune':
        return await tuneCommand(rest, args, io);
      default:
        throw new UsageError(`unknown command "${command}" (commands: strategies, inspect, plan, import, replay, probe, sessions, tune)`);
    }
  } catch (e) {
    if (
      e instanceof ImportError ||
      e instanceof StrategyParamError ||
      e instanceof UnknownStrategyError ||
      e instanceof UnknownPinError ||
      e instanceof UnknownSplitTargetError ||
      e instanceof ReplayConfigError ||
      (e instanceof TuneTaskError && e.badInput)
    ) {
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
  rejectFlags(args, 'strategies', ['--json']);
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

function importCommand(rest: string[], args: ParsedArgs, io: CliIO): number {
  rejectFlags(args, 'import', []);
  if (rest.length !== 1) throw new UsageError('import needs exactly one FILE');
  io.stdout(serializeImportResult(loadSession(rest[0], io)));
  return EXIT_OK;
}
