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
]);
const BOOL_FLAGS = new Set(['--json', '--help', '-h']);

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

export function positiveInt(flag: string, raw: string | undefined): number | undefined;
export function positiveInt(flag: string, raw: string | undefined, fallback: number): number;
export function positiveInt(flag: string, raw: string | undefined, fallback?: number): number | undefined {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`${flag} must be a positive integer, got "${raw}"`);
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
