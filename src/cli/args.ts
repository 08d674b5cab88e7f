// Command-line plumbing shared by the `splitpoint` commands: the IO seam, exit codes, argument parsing,
// and reading a session file with file-named errors.
import { errorMessage, ImportError, importSession, SplitpointError, type ImportResult } from '../core';
import type { CliIO } from './io';
import { oneLine } from './terminal';

export type { CliIO } from './io';

export const EXIT_OK = 0;
export const EXIT_BAD_INPUT = 2;

/** Bad usage of the command line (exit 2, with a pointer to --help). */
export class UsageError extends SplitpointError {
  override name = 'UsageError';
}

export interface ParsedArgs {
  positional: string[];
  flags: Map<string, string[]>;
}

const VALUE_FLAGS = new Set([
  '--strategy',
  '--param',
  '--window',
  '--max-output',
  '--tokenizer',
  '--at',
  '--pin',
  '--split-at',
  '--config',
  '--prices',
  '--cwd',
  '--target-recall',
  '--results',
  '--settings',
  '--jobs',
]);
const BOOL_FLAGS = new Set(['--json', '--help', '-h', '--follow']);

export function parseArgs(argv: string[]): ParsedArgs {
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

/** The one value of `flag`, or undefined; given twice is a usage error. */
export function one(args: ParsedArgs, flag: string): string | undefined {
  const values = args.flags.get(flag);
  if (values && values.length > 1) throw new UsageError(`${flag} given more than once`);
  return values?.[0];
}

/**
 * The range each numeric flag takes (docs/cli.md states them). Values are decimal digits only:
 * Number() would read "0x10" as 16, "1e3" as 1000 and " 3" as 3, and "1e21" is past what a window means.
 */
export const NUMERIC_FLAG_RANGES: Readonly<Record<string, { min: number; max: number }>> = {
  '--window': { min: 1, max: 10_000_000 },
  '--max-output': { min: 1, max: 1_000_000 },
  '--at': { min: 1, max: 1_000_000 },
  '--jobs': { min: 1, max: 256 },
};

const DECIMAL_DIGITS = /^[0-9]{1,16}$/;

/** The value of numeric `flag` (see NUMERIC_FLAG_RANGES), `fallback` when not given; anything else is a usage error naming flag and range. */
export function positiveInt(flag: string, raw: string | undefined): number | undefined;
export function positiveInt(flag: string, raw: string | undefined, fallback: number): number;
export function positiveInt(flag: string, raw: string | undefined, fallback?: number): number | undefined {
  if (raw === undefined) return fallback;
  const range = NUMERIC_FLAG_RANGES[flag];
  if (!range) throw new Error(`no range for numeric flag ${flag}`);
  const n = DECIMAL_DIGITS.test(raw) ? Number(raw) : NaN;
  if (!(n >= range.min && n <= range.max)) {
    throw new UsageError(`${flag} must be a positive integer, got "${raw}" (decimal digits, ${range.min} to ${range.max})`);
  }
  return n;
}

/** Options a command does not take are a usage error, not silently ignored. */
export function rejectFlags(args: ParsedArgs, command: string, allowed: readonly string[]): void {
  for (const flag of args.flags.keys()) {
    if (!allowed.includes(flag)) throw new UsageError(`${command} does not take ${flag}`);
  }
}

export function readInput(file: string, io: CliIO): string {
  try {
    return io.readFile(file);
  } catch (e) {
    if (e instanceof ImportError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new ImportError(
      file,
      undefined,
      undefined,
      code === 'ENOENT' ? 'file not found' : `cannot read file (${code ?? errorMessage(e)})`,
    );
  }
}

/** Import FILE (any supported format); its warnings go to stderr. */
export function loadSession(file: string, io: CliIO, warn = true): ImportResult {
  const result = importSession(readInput(file, io), file);
  if (warn) printWarnings(result, io);
  return result;
}

/** An import's warnings on stderr, one line each. */
export function printWarnings(result: Pick<ImportResult, 'warnings'>, io: CliIO): void {
  for (const w of result.warnings) io.stderr(`splitpoint: warning: ${oneLine(w)}\n`);
}
