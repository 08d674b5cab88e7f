// `splitpoint tune FILES…|DIR [--target-recall R] [--json] [--results FILE.jsonl] [--settings FILE] [--jobs N]`:
// the cheapest compaction settings on the user's own recorded sessions at a probe answerable rate of at
// least R (default: the rate of the current settings). The space is src/settings/tuneSpace.ts, the search
// src/settings/tuneSearch.ts; every (session, configuration) replay runs once, on worker threads
// (tunePool.ts). docs/tune.md says how rates and costs aggregate; the output is tuneReport.ts.
import { availableParallelism } from 'node:os';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { ImportError, errorMessage } from '../core';
import { BUILTIN_REPLAY_CONFIGS, ReplayConfigError, resolveReplayConfig } from '../settings/replayConfigs';
import { SETTINGS_PREFIX } from '../settings/schema';
import { tuneSearch, type SessionOutcome } from '../settings/tuneSearch';
import { startPoint, toConfigJson, tuneSpace } from '../settings/tuneSpace';
import { EXIT_OK, one, positiveInt, readInput, rejectFlags, UsageError, type CliIO, type ParsedArgs } from './args';
import { TunePool } from './tunePool';
import type { TuneReplayRow } from './tuneReplay';
import { resultRows, tuneJson, tuneText } from './tuneReport';

/** The baselines every session is also replayed with (built-in configurations). */
export const TUNE_BASELINES = ['claude-code-like', 'no-compaction'] as const;

const SESSION_FILE = /\.(jsonl|json)$/i;

/** FILES…|DIR: the files given, and every .jsonl / .json file under each folder given (sorted). */
export function tuneFiles(paths: readonly string[]): string[] {
  if (paths.length === 0) throw new UsageError('tune needs session FILES or a DIR');
  const out: string[] = [];
  for (const p of paths) {
    let st;
    try {
      st = statSync(p);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new ImportError(
        p,
        undefined,
        undefined,
        code === 'ENOENT' ? 'file or folder not found' : `cannot read (${code ?? errorMessage(e)})`,
      );
    }
    if (!st.isDirectory()) {
      out.push(p);
      continue;
    }
    const found = walk(p);
    if (found.length === 0) throw new ImportError(p, undefined, undefined, 'the folder holds no .jsonl or .json session file');
    out.push(...found);
  }
  return [...new Set(out)];
}

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(p));
    else if (e.isFile() && SESSION_FILE.test(e.name)) out.push(p);
  }
  return out;
}

/** --target-recall: a decimal number from 0 to 1. */
export function parseTargetRecall(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = /^(0|1|0?\.[0-9]+|1\.0*)$/.test(raw.trim()) ? Number(raw) : NaN;
  if (!(n >= 0 && n <= 1)) throw new UsageError(`--target-recall must be a number from 0 to 1 (a probe answerable rate), got "${raw}"`);
  return n;
}

/** --settings FILE: a VS Code settings.json (comments and trailing commas allowed); its splitpoint.* keys, unprefixed. */
export function readSettingsFile(file: string, text: string): Map<string, unknown> {
  const errors: ParseError[] = [];
  const json: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) {
    const e = errors[0];
    throw new ReplayConfigError(file, undefined, `not valid JSON with comments: ${printParseErrorCode(e.error)} at offset ${e.offset}`);
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    throw new ReplayConfigError(file, undefined, 'must be a JSON object (a settings.json)');
  const out = new Map<string, unknown>();
  for (const [k, v] of Object.entries(json)) if (k.startsWith(SETTINGS_PREFIX)) out.set(k.slice(SETTINGS_PREFIX.length), v);
  return out;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Progress: a bar redrawn on a terminal, a plain line per step otherwise. */
class Progress {
  private done = 0;
  private stepStart = Date.now();
  constructor(
    private readonly io: CliIO,
    private readonly sessions: number,
  ) {}
  step(name: string, total: number): (n: number) => void {
    this.stepStart = Date.now();
    let stepDone = 0;
    const draw = () => {
      if (!this.io.progress) return;
      const width = 24;
      const filled = total === 0 ? width : Math.round((width * stepDone) / total);
      this.io.progress(`\r\x1b[2K[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${stepDone}/${total} ${name} (${this.done} replays)`);
    };
    draw();
    return (n) => {
      stepDone += n;
      this.done += n;
      draw();
      if (stepDone < total) return;
      const secs = ((Date.now() - this.stepStart) / 1000).toFixed(1);
      if (this.io.progress) this.io.progress('\r\x1b[2K');
      else
        this.io.stderr(
          `splitpoint: tune: ${name}: ${plural(total / this.sessions, 'configuration')} x ${plural(this.sessions, 'session')} in ${secs} s\n`,
        );
    };
  }
  get replays(): number {
    return this.done;
  }
}

export async function tuneCommand(rest: string[], args: ParsedArgs, io: CliIO): Promise<number> {
  rejectFlags(args, 'tune', ['--target-recall', '--json', '--results', '--settings', '--jobs']);
  const t0 = Date.now();
  const targetRecall = parseTargetRecall(one(args, '--target-recall'));
  const jobsFlag = positiveInt('--jobs', one(args, '--jobs'), availableParallelism());
  const resultsFile = one(args, '--results');
  const settingsFile = one(args, '--settings');
  const files = tuneFiles(rest);
  const current = settingsFile === undefined ? new Map<string, unknown>() : readSettingsFile(settingsFile, readInput(settingsFile, io));
  const space = tuneSpace();
  const start = startPoint(space, current);
  // The current settings must be a configuration the replay runs (a bad value names the settings file and key).
  resolveReplayConfig(toConfigJson(start, 'current'), settingsFile ?? 'the shipped defaults');
  const jobs = Math.min(jobsFlag, files.length);
  const pool = new TunePool(jobs);
  const rows = new Map<string, TuneReplayRow>();
  const progress = new Progress(io, files.length);
  const replay = async (configs: Array<{ id: string; json: unknown }>, step: string) => {
    const tick = progress.step(step, configs.length * files.length);
    await Promise.all(
      files.map(async (file) => {
        for (const row of await pool.run(file, configs)) rows.set(`${file}\n${row.id}`, row);
        tick(configs.length);
      }),
    );
  };
  try {
    const baselines = replay(
      TUNE_BASELINES.map((name) => ({ id: name, json: BUILTIN_REPLAY_CONFIGS.find((c) => c.name === name)!.json })),
      'baselines',
    );
    // A failure of the baselines is reported by the await below; the search may fail first.
    baselines.catch(() => undefined);
    const search = await tuneSearch({
      space,
      start,
      targetRecall,
      evaluate: async (batch, step) => {
        await replay(
          batch.map((b) => ({ id: b.id, json: toConfigJson(b.point, b.id) })),
          step,
        );
        return new Map(batch.map((b) => [b.id, files.map((f) => outcomeOf(rows.get(`${f}\n${b.id}`)!))]));
      },
    });
    await baselines;
    const json = tuneJson({
      files,
      jobs,
      elapsedMs: Date.now() - t0,
      replays: progress.replays,
      search,
      rows,
      current,
      targetSource: targetRecall === undefined ? 'current-settings' : 'option',
      settingsFile: settingsFile ?? null,
      skipped: space.skipped,
    });
    if (resultsFile !== undefined) writeResults(resultsFile, resultRows(json, search, rows, files));
    io.stdout(args.flags.has('--json') ? JSON.stringify(json, null, 2) + '\n' : tuneText(json));
    return json.best === null ? 1 : EXIT_OK;
  } finally {
    await pool.close();
  }
}

function outcomeOf(row: TuneReplayRow): SessionOutcome {
  return { costUSD: row.costUSD, probeRecall: row.probeRecall, stoppedAt: row.stoppedAt, compactions: row.compactions };
}

function writeResults(file: string, lines: readonly object[]): void {
  try {
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + (lines.length > 0 ? '\n' : ''));
  } catch (e) {
    throw new UsageError(`--results ${file}: cannot write (${(e as NodeJS.ErrnoException).code ?? errorMessage(e)})`);
  }
}
