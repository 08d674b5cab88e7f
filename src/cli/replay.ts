// `splitpoint replay FILE [--config NAME|FILE ...] [--prices FILE] [--json]`: what each configuration
// would have cost on a recorded session, call by call (see src/core/replay). Without --config the four
// built-ins run. --prices overrides the price table by model id prefix:
// {"claude-opus-4-6": {"input": 5, "output": 25, "cacheRead": 0.5, "cacheWrite5m": 6.25, "cacheWrite1h": 10}}.
import { replaySession, type ModelPrice, type PriceOverrides, type ReplayReport } from '../core';
import { builtinReplayConfigs, loadReplayConfig, ReplayConfigError } from '../settings/replayConfigs';
import { EXIT_OK, loadSession, one, printWarnings, readInput, rejectFlags, UsageError, type CliIO, type ParsedArgs } from './args';
import { oneLine } from './terminal';

type Report = ReplayReport;
type ConfigResult = Report['configs'][number];

/** What `replay --json` prints; these keys are a contract (extra keys may be added). */
export interface ReplayJson {
  file: string;
  window: number;
  /** Where the window comes from: recorded | inferred-from-usage | model-table | user. */
  windowSource: Report['windowSource'];
  /** What a reader must see (a fallback price, a window the recording contradicts); also on stderr. */
  warnings: string[];
  /** Of the prefix reads a perfect cache would serve on the recorded requests, the fraction the provider served. */
  cacheServedRatio: number;
  /** The TTL of most of the recording's cache writes. */
  recordedTtl: Report['recordedTtl'];
  /** The calibration per segment of the recording (a segment ends at each recorded compaction). */
  segments: Report['segments'];
  recorded: {
    calls: number;
    inputTokens: number;
    cacheReadTokens: number;
    cacheWriteTokens: number;
    outputTokens: number;
    /** Of cacheWriteTokens, those written with the 1-hour TTL. */
    cacheWrite1hTokens: number;
    /** Priced as billed: each cache write at its recorded TTL. */
    costUSD: number;
    /** The same usage with every write at the 5-minute rate. */
    costUSDAt5m: number;
    priceSource: ConfigResult['priceSource'];
    /** The recording agent's own compactions (before which call, at what size). */
    compactions: NonNullable<Report['recorded']>['compactions'];
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
    /** Only for a configuration that carries Splitpoint's ledger; null for the others. */
    ledgerRecall: number | null;
    pathRecall: number;
    promptRecall: number;
    summaryCostUSD: number;
    priceSource: ConfigResult['priceSource'];
    /** as-recorded only: (its cost − recorded.costUSD) / recorded.costUSD; null for every other configuration. */
    costErrorVsRecorded: number | null;
    /** Answerable rate of the probes of what its compactions archived, on its request right after each (null: none made). */
    probeRecall: number | null;
    /** The model of its summary calls (summaryModel, else the session's) and their max_tokens range (null: no summary call). */
    summaryModel: ConfigResult['summaryModel'];
    summaryBound: ConfigResult['summaryBound'];
    [extra: string]: unknown;
  }>;
  /** What probeRecall measures; says that stand-in summaries count for nothing. */
  probeNote: string;
  [extra: string]: unknown;
}

/** The rates a --prices row may set (USD per million tokens). */
type PriceField = 'input' | 'output' | 'cacheWrite5m' | 'cacheWrite1h' | 'cacheRead';
const PRICE_FIELDS: readonly PriceField[] = ['input', 'output', 'cacheWrite5m', 'cacheWrite1h', 'cacheRead'];

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
    const price: Partial<Pick<ModelPrice, PriceField>> = {};
    for (const [k, v] of Object.entries(row)) {
      if (!PRICE_FIELDS.includes(k as PriceField))
        throw new ReplayConfigError(file, `${model}.${k}`, `is not a price (prices: ${PRICE_FIELDS.join(', ')})`);
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
        throw new ReplayConfigError(
          file,
          `${model}.${k}`,
          `must be a non-negative number (USD per million tokens), got ${JSON.stringify(v)}`,
        );
      price[k as PriceField] = v;
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
    windowSource: report.windowSource,
    warnings: [...report.warnings],
    cacheServedRatio: report.cacheServedRatio,
    recordedTtl: report.recordedTtl,
    model: report.model,
    overheadTokens: report.overheadTokens,
    factor: report.factor,
    segments: report.segments.map((g) => ({ ...g })),
    summaryTokens: report.summaryTokens,
    recorded: r && {
      calls: r.calls,
      inputTokens: r.inputTokens,
      cacheReadTokens: r.cacheReadTokens,
      cacheWriteTokens: r.cacheWriteTokens,
      outputTokens: r.outputTokens,
      cacheWrite1hTokens: r.cacheWrite1hTokens,
      costUSD: r.costUSD,
      costUSDAt5m: r.costUSDAt5m,
      priceSource: r.priceSource,
      compactions: r.compactions.map((c) => ({ ...c })),
    },
    configs: report.configs.map(({ points: _points, ...c }) => c),
    probeNote: report.probeNote,
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
  // A fallback price or a window the recording contradicts: said on stderr, with --json too.
  printWarnings(report, io);
  const json = replayToJson(file, report);
  io.stdout(args.flags.has('--json') ? JSON.stringify(json, null, 2) + '\n' : replayToText(json, report));
  return EXIT_OK;
}

const n = (x: number) => Math.round(x).toLocaleString('en-US');
const usd = (x: number) => `$${x.toFixed(2)}`;
const percent = (x: number) => `${(100 * x).toFixed(0)}%`;
/** A recall; null (the configuration carries no ledger, or made no compaction) as "—". */
const recall = (x: number | null) => (x === null ? '—' : percent(x));
/** The as-recorded row's error against the recorded cost: "+0.4% vs recorded". */
const vsRecorded = (x: number | null) => (x === null ? '' : `${x < 0 ? '-' : '+'}${Math.abs(100 * x).toFixed(1)}% vs recorded`);

const WINDOW_SOURCE: Record<Report['windowSource'], string> = {
  recorded: 'recorded',
  'inferred-from-usage': 'inferred from usage',
  'model-table': 'model table',
  user: 'given',
};

/** The lines above the table: the window and its source, the cache as recorded, the calibration per segment. */
function headerLines(json: ReplayJson, report: ReplayReport): string[] {
  const r = report.recorded;
  const lines = [
    `file         ${oneLine(json.file)}`,
    `window       ${n(report.window)} tokens (${WINDOW_SOURCE[report.windowSource]}); model ${oneLine(report.model ?? 'unknown')}`,
  ];
  const served = `${percent(report.cacheServedRatio)} of prefix reads served`;
  lines.push(
    r === null
      ? `cache        no recorded usage (TTL ${report.recordedTtl} assumed)`
      : r.cacheWriteTokens === 0
        ? `cache        no cache writes recorded (TTL ${report.recordedTtl} assumed); ${served}`
        : `cache        recorded TTL ${report.recordedTtl}; ${n(r.cacheWrite1hTokens)} of ${n(r.cacheWriteTokens)} cache-write tokens 1-hour; ${served}`,
  );
  let first = 1;
  const segments: string[] = [];
  for (const g of report.segments) {
    if (g.calls === 0) continue;
    const range = g.calls === 1 ? `call ${first}` : `calls ${first}-${first + g.calls - 1}`;
    first += g.calls;
    segments.push(`${range} ×${g.factor.toFixed(3)} + ${n(g.overheadTokens)}`);
  }
  const count = segments.length === 1 ? '1 segment' : `${segments.length} segments`;
  lines.push(
    segments.length === 0
      ? `calibration  none: no recorded calls to fit (×${report.factor.toFixed(3)}, system + tools ${n(report.overheadTokens)} tokens)`
      : `calibration  ${count} (o200k factor + system and tools, fitted): ${segments.join('; ')}`,
  );
  if (r && r.compactions.length > 0)
    lines.push(
      r.compactions.length === 1
        ? `recorded     1 compaction, before call ${n(r.compactions[0].call)}`
        : `recorded     ${r.compactions.length} compactions, before calls ${r.compactions.map((c) => n(c.call)).join(', ')}`,
    );
  if (r && Math.abs(r.costUSD - r.costUSDAt5m) >= 0.005)
    lines.push(`recorded     ${usd(r.costUSD)} as billed (${usd(r.costUSDAt5m)} with every cache write at the 5-minute rate)`);
  return lines;
}

/** The readable table: one row per configuration (and the recording's own usage), then the notes. */
export function replayToText(json: ReplayJson, report: ReplayReport): string {
  const head = [
    'config',
    'calls',
    'compactions',
    'peak context',
    'input',
    'cache read',
    'cache write',
    'output',
    'cost',
    'path recall',
    'prompt recall',
    'ledger recall',
    'probe recall',
    '',
  ];
  const rows: string[][] = [];
  const r = report.recorded;
  if (r)
    rows.push([
      '(recorded)',
      n(r.calls),
      n(r.compactions.length),
      '',
      n(r.inputTokens),
      n(r.cacheReadTokens),
      n(r.cacheWriteTokens),
      n(r.outputTokens),
      usd(r.costUSD),
      '',
      '',
      '',
      '',
      '',
    ]);
  for (const c of report.configs) rows.push(configRow(c));
  const widths = head.map((h, i) => rows.reduce((widest, row) => Math.max(widest, row[i].length), h.length));
  // The first column left-aligned, the figures right-aligned, the last (the error vs recorded) left-aligned.
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 || i === cells.length - 1 ? c.padEnd(widths[i]) : c.padStart(widths[i])))
      .join('  ')
      .trimEnd();
  const out = [...headerLines(json, report), '', line(head), ...rows.map(line), ''];
  for (const c of report.configs) for (const note of c.notes) out.push(`${oneLine(c.name)}: ${oneLine(note)}`);
  out.push(oneLine(report.probeNote));
  return out.join('\n') + '\n';
}

function configRow(c: ConfigResult): string[] {
  return [
    oneLine(c.name),
    c.stoppedAt === null ? n(c.calls) : `${n(c.calls)} (stopped)`,
    n(c.compactions),
    n(c.peakContextTokens),
    n(c.inputTokens),
    n(c.cacheReadTokens),
    n(c.cacheWriteTokens),
    n(c.outputTokens),
    usd(c.costUSD),
    percent(c.pathRecall),
    percent(c.promptRecall),
    recall(c.ledgerRecall),
    recall(c.probeRecall),
    vsRecorded(c.costErrorVsRecorded),
  ];
}
