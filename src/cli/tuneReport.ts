// What `splitpoint tune` prints: the JSON object of --json (TuneJson: these keys are a contract, see
// docs/tune.md), the text form, and the --results rows (one per (session, configuration) replay).
import { RATE_DEFINITION, frontier, type Scored, type TuneSearchResult, type TuneStep } from '../settings/tuneSearch';
import { pointSettings, tunedSettingsBlock, type TunePoint } from '../settings/tuneSpace';
import { SETTINGS_PREFIX } from '../settings/schema';
import { oneLine } from './terminal';
import type { TuneReplayRow } from './tuneReplay';

/** One configuration over all sessions. */
export interface TuneConfigJson {
  id: string;
  /** Its settings that differ from the shipped defaults (`{"splitpoint.autoCompact.threshold": 0.6}`). */
  settings: Record<string, unknown>;
  costUSD: number;
  rate: number;
  overflowed: number;
  compactedSessions: number;
  feasible: boolean;
  onFrontier: boolean;
}

/** One session's figures under one configuration. */
export interface TuneSessionFigures {
  costUSD: number;
  compactions: number;
  probeRecall: number | null;
  stoppedAt: number | null;
}

export interface TuneJson {
  files: string[];
  jobs: number;
  elapsedMs: number;
  /** (session, configuration) replays run (baselines included). */
  replays: number;
  configurationsTried: number;
  target: { recall: number; source: 'current-settings' | 'option' };
  rateDefinition: string;
  settingsFile: string | null;
  current: TuneConfigJson;
  /** The cheapest feasible configuration (null: none tried reaches the target without overflowing; exit 1). */
  best: TuneConfigJson | null;
  /** The block to apply: settings of best that differ from the shipped defaults or from the current settings. */
  bestSettings: Record<string, unknown> | null;
  /** Median over sessions of best's cost / the other's (null ratios left out; `sessions` counts those used). */
  median: Record<'vsCurrent' | 'vsClaudeCodeLike' | 'vsNoCompaction', { ratio: number | null; sessions: number }>;
  sessions: Array<{
    file: string;
    best: TuneSessionFigures | null;
    current: TuneSessionFigures;
    claudeCodeLike: TuneSessionFigures;
    noCompaction: TuneSessionFigures;
    /** best / current cost; null without a best. */
    ratioVsCurrent: number | null;
    ratioVsClaudeCodeLike: number | null;
    /** null also where no-compaction overflowed the window (its cost covers only the calls before). */
    ratioVsNoCompaction: number | null;
  }>;
  /** Non-dominated configurations (lower cost, higher rate) among those that overflow nowhere, by cost. */
  frontier: Array<{ id: string; settings: Record<string, unknown>; costUSD: number; rate: number }>;
  tried: TuneConfigJson[];
  steps: TuneStep[];
  passes: number;
  skippedDimensions: Array<{ key: string; reason: string }>;
}

export interface TuneReportInput {
  files: string[];
  jobs: number;
  elapsedMs: number;
  replays: number;
  search: TuneSearchResult;
  rows: ReadonlyMap<string, TuneReplayRow>;
  current: ReadonlyMap<string, unknown>;
  targetSource: 'current-settings' | 'option';
  settingsFile: string | null;
  skipped: Array<{ key: string; reason: string }>;
}

const noDefaults = new Map<string, unknown>();

function configJson(s: Scored, onFrontier: ReadonlySet<string>): TuneConfigJson {
  return {
    id: s.id,
    settings: tunedSettingsBlock(s.point, noDefaults),
    costUSD: s.costUSD,
    rate: s.rate,
    overflowed: s.overflowed,
    compactedSessions: s.compactedSessions,
    feasible: s.feasible,
    onFrontier: onFrontier.has(s.id),
  };
}

function figures(row: TuneReplayRow): TuneSessionFigures {
  return { costUSD: row.costUSD, compactions: row.compactions, probeRecall: row.probeRecall, stoppedAt: row.stoppedAt };
}

const ratio = (a: TuneSessionFigures | null, b: TuneSessionFigures) => (a === null || b.costUSD <= 0 ? null : a.costUSD / b.costUSD);

export function median(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export function tuneJson(i: TuneReportInput): TuneJson {
  const { search, rows } = i;
  const front = frontier(search.tried);
  const onFrontier = new Set(front.map((f) => f.id));
  const row = (file: string, id: string) => rows.get(`${file}\n${id}`)!;
  const sessions = i.files.map((file) => {
    const best = search.best ? figures(row(file, search.best.id)) : null;
    const current = figures(row(file, search.start.id));
    const claudeCodeLike = figures(row(file, 'claude-code-like'));
    const noCompaction = figures(row(file, 'no-compaction'));
    return {
      file,
      best,
      current,
      claudeCodeLike,
      noCompaction,
      ratioVsCurrent: ratio(best, current),
      ratioVsClaudeCodeLike: ratio(best, claudeCodeLike),
      ratioVsNoCompaction: noCompaction.stoppedAt === null ? ratio(best, noCompaction) : null,
    };
  });
  const med = (k: 'ratioVsCurrent' | 'ratioVsClaudeCodeLike' | 'ratioVsNoCompaction') => {
    const xs = sessions.map((s) => s[k]).filter((x): x is number => x !== null);
    return { ratio: median(xs), sessions: xs.length };
  };
  return {
    files: i.files,
    jobs: i.jobs,
    elapsedMs: i.elapsedMs,
    replays: i.replays,
    configurationsTried: search.tried.length,
    target: { recall: search.target, source: i.targetSource },
    rateDefinition: RATE_DEFINITION,
    settingsFile: i.settingsFile,
    current: configJson(search.start, onFrontier),
    best: search.best ? configJson(search.best, onFrontier) : null,
    bestSettings: search.best ? tunedSettingsBlock(search.best.point, i.current) : null,
    median: {
      vsCurrent: med('ratioVsCurrent'),
      vsClaudeCodeLike: med('ratioVsClaudeCodeLike'),
      vsNoCompaction: med('ratioVsNoCompaction'),
    },
    sessions,
    frontier: front.map((f) => ({ id: f.id, settings: tunedSettingsBlock(f.point, noDefaults), costUSD: f.costUSD, rate: f.rate })),
    tried: search.tried.map((t) => configJson(t, onFrontier)),
    steps: search.steps,
    passes: search.passes,
    skippedDimensions: i.skipped,
  };
}

/** The --results rows: one per (session, configuration) replay, baselines included (keys in docs/tune.md). */
export function resultRows(
  json: TuneJson,
  search: TuneSearchResult,
  rows: ReadonlyMap<string, TuneReplayRow>,
  files: readonly string[],
): object[] {
  const out: object[] = [];
  const byId = new Map(json.tried.map((t) => [t.id, t]));
  const prefixed = (p: TunePoint) => Object.fromEntries(Object.entries(pointSettings(p)).map(([k, v]) => [SETTINGS_PREFIX + k, v]));
  const kinds: Array<{ id: string; role: string; configuration: object; scored?: TuneConfigJson }> = [
    ...search.tried.map((t) => ({
      id: t.id,
      role: t.id === search.start.id ? 'current' : t.id === search.best?.id ? 'best' : 'tried',
      configuration: prefixed(t.point),
      scored: byId.get(t.id),
    })),
    { id: 'claude-code-like', role: 'baseline', configuration: { name: 'claude-code-like' } },
    { id: 'no-compaction', role: 'baseline', configuration: { name: 'no-compaction' } },
  ];
  for (const file of files) {
    const cc = rows.get(`${file}\nclaude-code-like`)!;
    const nc = rows.get(`${file}\nno-compaction`)!;
    const cur = rows.get(`${file}\n${search.start.id}`)!;
    for (const k of kinds) {
      const r = rows.get(`${file}\n${k.id}`)!;
      const { id: _id, ...figs } = r;
      out.push({
        file,
        configurationId: k.id,
        role: k.role,
        configuration: k.configuration,
        ...figs,
        costRatioVsCurrent: cur.costUSD > 0 ? r.costUSD / cur.costUSD : null,
        costRatioVsClaudeCodeLike: cc.costUSD > 0 ? r.costUSD / cc.costUSD : null,
        costRatioVsNoCompaction: nc.stoppedAt === null && nc.costUSD > 0 ? r.costUSD / nc.costUSD : null,
        configCostUSD: k.scored?.costUSD ?? null,
        configRate: k.scored?.rate ?? null,
        configFeasible: k.scored?.feasible ?? null,
        onFrontier: k.scored?.onFrontier ?? null,
      });
    }
  }
  return out;
}

const usd = (x: number) => `$${x.toFixed(2)}`;
const x2 = (r: number | null) => (r === null ? '—' : `${r.toFixed(2)}x`);
const rate = (r: number | null) => (r === null ? '—' : r.toFixed(3));
const base = (f: string) => oneLine(f.replace(/^.*[\\/]/, ''));

export function tuneText(j: TuneJson): string {
  const out: string[] = [];
  const secs = (j.elapsedMs / 1000).toFixed(1);
  const n = (x: number, word: string) => `${x} ${word}${x === 1 ? '' : 's'}`;
  out.push(
    `tune: ${n(j.files.length, 'session')}, ${n(j.jobs, 'job')}, ${j.configurationsTried} configurations tried (${j.replays} replays) in ${secs} s`,
  );
  out.push(
    `target: probe answerable rate >= ${rate(j.target.recall)} (${j.target.source === 'option' ? '--target-recall' : "the current settings' rate"})`,
  );
  out.push(`  ${j.rateDefinition}`);
  const overflow = j.current.overflowed > 0 ? `, overflows the window on ${j.current.overflowed} sessions` : '';
  out.push(`current: ${usd(j.current.costUSD)}, rate ${rate(j.current.rate)}${overflow}`);
  if (j.best === null) {
    out.push('', 'No configuration tried reaches the target without overflowing the window on some session.');
  } else {
    out.push(
      `best:    ${usd(j.best.costUSD)}, rate ${rate(j.best.rate)}; median cost ${x2(j.median.vsCurrent.ratio)} the current settings, ` +
        `${x2(j.median.vsClaudeCodeLike.ratio)} claude-code-like, ${x2(j.median.vsNoCompaction.ratio)} no-compaction ` +
        `(no-compaction fits the window on ${j.median.vsNoCompaction.sessions} of ${j.files.length} sessions; the median is over those)`,
      '',
      'Settings (paste into settings.json, or run "Splitpoint: Apply Tuned Settings…"):',
      JSON.stringify(j.bestSettings, null, 2),
    );
  }
  out.push('', table(j), '', `frontier (cost vs rate, non-dominated of ${j.configurationsTried} tried; * best):`);
  // Configurations with the same cost and rate are one point: the best (else the first) is shown, the others counted.
  const points = new Map<string, TuneJson['frontier']>();
  for (const f of j.frontier) {
    const key = `${usd(f.costUSD)} ${rate(f.rate)}`;
    points.set(key, [...(points.get(key) ?? []), f]);
  }
  for (const same of points.values()) {
    const f = same.find((x) => x.id === j.best?.id) ?? same[0];
    const more = same.length > 1 ? `  (and ${same.length - 1} more at the same cost and rate)` : '';
    out.push(
      `${f.id === j.best?.id ? '*' : ' '} ${usd(f.costUSD).padStart(9)}  ${rate(f.rate)}  ${oneLine(JSON.stringify(f.settings))}${more}`,
    );
  }
  for (const s of j.skippedDimensions) out.push(`not searched: ${s.key}: ${oneLine(s.reason)}`);
  return out.join('\n') + '\n';
}

function table(j: TuneJson): string {
  const head = ['session', 'best', 'current', 'claude-code-like', 'no-compaction', 'vs current', 'vs cc-like', 'vs no-comp', 'rate'];
  const cell = (f: TuneSessionFigures | null) => (f === null ? '—' : `${usd(f.costUSD)}${f.stoppedAt !== null ? ' (stopped)' : ''}`);
  const rows = j.sessions.map((s) => [
    base(s.file),
    cell(s.best),
    cell(s.current),
    cell(s.claudeCodeLike),
    cell(s.noCompaction),
    x2(s.ratioVsCurrent),
    x2(s.ratioVsClaudeCodeLike),
    x2(s.ratioVsNoCompaction),
    rate(s.best ? (s.best.probeRecall ?? 1) : null),
  ]);
  const widths = head.map((h, i) => rows.reduce((w, r) => Math.max(w, r[i].length), h.length));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(head), ...rows.map(line)].join('\n');
}
