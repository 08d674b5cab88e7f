// `splitpoint replay FILE [--config NAME|FILE ...] [--prices FILE] [--json]`: what each configuration
// would have cost on a recorded session, call by call (see src/core/replay). Without --config the four
// built-ins run. --prices overrides the price table by model id prefix:
// {"claude-opus-4-6": {"input": 5, "output": 25, "cacheRead": 0.5, "cacheWrite5m": 6.25, "cacheWrite1h": 10}}.
import { replaySession, type ModelPrice, type PriceOverrides, type ReplayReport } from '../core';
import { builtinReplayConfigs, loadReplayConfig, ReplayConfigError } from '../settings/replayConfigs';
import { EXIT_OK, loadSession, one, readInput, rejectFlags, UsageError, type CliIO, type ParsedArgs } from './args';
import { oneLine } from './terminal';

/** What `replay --json` prints; these keys are a contract (extra keys may be added). */
export interface ReplayJson {
  file: string;
  window: number;
  recorded: {
    calls: number;
    inputTokens: number;
    cacheReadTokens: number;
    cacheWriteTokens: number;
    outputTokens: number;
    [extra: string]: unknown;
  } | null;
  configs: Array<{
    name: string;
    calls: number;
    compactions: number;
    peakContextTokens: number;
    inputTokens: number;
    cacheReadTokens: number;
    cacheWriteTokens: number;
    outputTokens: number;
    costUSD: number;
    ledgerRecall: number;
    [extra: string]: unknown;
  }>;
  [extra: string]: unknown;
}

const PRICE_FIELDS: ReadonlyArray<keyof ModelPrice> = ['input', 'output', 'cacheWrite5m', 'cacheWrite1h', 'cacheRead'];

/** A --prices file: model id prefix -> some of the ModelPrice fields (USD per million tokens). */
export function parsePrices(text: string, file: string): PriceOverrides {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new ReplayConfigError(file, undefined, `not valid JSON: ${(e as Error).message}`);
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    throw new ReplayConfigError(file, undefined, 'must be an object: model id prefix -> prices');
  const out: Record<string, Partial<ModelPrice>> = {};
  for (const [model, row] of Object.entries(json)) {
    if (row === null || typeof row !== 'object' || Array.isArray(row))
      throw new ReplayConfigError(file, model, 'must be an object of prices');
    const price: Partial<ModelPrice> = {};
    for (const [k, v] of Object.entries(row)) {
      if (!PRICE_FIELDS.includes(k as keyof ModelPrice))
        throw new ReplayConfigError(file, `${model}.${k}`, `is not a price (prices: ${PRICE_FIELDS.join(', ')})`);
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
        throw new ReplayConfigError(
          file,
          `${model}.${k}`,
          `must be a non-negative number (USD per million tokens), got ${JSON.stringify(v)}`,
        );
      price[k as keyof ModelPrice] = v;
    }
    out[model] = price;
  }
  return out;
}

export function replayToJson(file: string, report: ReplayReport): ReplayJson {
  const r = report.recorded;
  return {
    file,
    window: report.window,
    model: report.model,
    overheadTokens: report.overheadTokens,
    summaryTokens: report.summaryTokens,
    recorded: r && {
      calls: r.calls,
      inputTokens: r.inputTokens,
      cacheReadTokens: r.cacheReadTokens,
      cacheWriteTokens: r.cacheWriteTokens,
      outputTokens: r.outputTokens,
      costUSD: r.costUSD,
    },
    configs: report.configs.map(({ points: _points, ...c }) => c),
  };
}

export async function replayCommand(rest: string[], args: ParsedArgs, io: CliIO): Promise<number> {
  rejectFlags(args, 'replay', ['--config', '--prices', '--json']);
  if (rest.length !== 1) throw new UsageError('replay needs exactly one FILE');
  const file = rest[0];
  const names = args.flags.get('--config');
  const configs = names ? names.map((n) => loadReplayConfig(n, (f) => io.readFile(f))) : builtinReplayConfigs();
  const seen = new Set<string>();
  for (const c of configs) {
    if (seen.has(c.name)) throw new UsageError(`--config: two configurations are named "${c.name}"`);
    seen.add(c.name);
  }
  const pricesFile = one(args, '--prices');
  const prices = pricesFile === undefined ? {} : parsePrices(readInput(pricesFile, io), pricesFile);
  const session = loadSession(file, io, !args.flags.has('--json'));
  const report = await replaySession(session, configs, { prices });
  const json = replayToJson(file, report);
  io.stdout(args.flags.has('--json') ? JSON.stringify(json, null, 2) + '\n' : replayToText(json, report));
  return EXIT_OK;
}

const n = (x: number) => Math.round(x).toLocaleString('en-US');
const usd = (x: number) => `$${x.toFixed(2)}`;

/** The readable table: one row per configuration (and the recording's own usage), then the notes. */
export function replayToText(json: ReplayJson, report: ReplayReport): string {
  const head = ['config', 'calls', 'compactions', 'peak context', 'input', 'cache read', 'cache write', 'output', 'cost', 'recall'];
  const rows: string[][] = [];
  const r = report.recorded;
  if (r)
    rows.push([
      '(recorded)',
      n(r.calls),
      '',
      '',
      n(r.inputTokens),
      n(r.cacheReadTokens),
      n(r.cacheWriteTokens),
      n(r.outputTokens),
      usd(r.costUSD),
      '',
    ]);
  for (const c of report.configs) {
    rows.push([
      oneLine(c.name),
      c.stoppedAt === null ? n(c.calls) : `${n(c.calls)} (stopped)`,
      n(c.compactions),
      n(c.peakContextTokens),
      n(c.inputTokens),
      n(c.cacheReadTokens),
      n(c.cacheWriteTokens),
      n(c.outputTokens),
      usd(c.costUSD),
      `${(100 * c.ledgerRecall).toFixed(0)}%`,
    ]);
  }
  const widths = head.map((h, i) => rows.reduce((widest, row) => Math.max(widest, row[i].length), h.length));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  const out = [
    `file    ${oneLine(json.file)}`,
    `window  ${n(report.window)} tokens; model ${oneLine(report.model ?? 'unknown')}; system + tools ${n(report.overheadTokens)} tokens (fitted)`,
    '',
    line(head),
    ...rows.map(line),
    '',
  ];
  for (const c of report.configs) for (const note of c.notes) out.push(`${oneLine(c.name)}: ${oneLine(note)}`);
  return out.join('\n') + '\n';
}
