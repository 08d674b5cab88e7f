// The search space of `splitpoint tune`: which `splitpoint.*` settings it varies, over which small
// grids, and how a point of the space becomes a replay configuration (src/settings/replayConfigs.ts)
// and the settings block the extension accepts. A point is a flat map of setting names under
// `splitpoint.` (`autoCompact.threshold`), except the keep counts, which are `strategyParams.<strategy>.<param>`
// (folded into the `strategyParams` object, over the user's own strategyParams, when written out).
//
// A dimension whose setting package.json does not declare is left out, and so is one the replay
// refuses (a setting it cannot run offline): each is listed with the reason (`skipped`).
import { errorMessage, getStrategy } from '../core';
import { resolveReplayConfig } from './replayConfigs';
import { SETTINGS_PREFIX, settingSchema, type SettingSchema } from './schema';

/** A point of the space: setting name (under `splitpoint.`) -> value; keep counts as `strategyParams.<s>.<p>`. */
export type TunePoint = Readonly<Record<string, unknown>>;

export interface TuneDimension {
  /** The setting it varies (for keep counts: `strategyParams.<strategy>.<param>` of the point's strategy). */
  key(point: TunePoint): string | null;
  /** The values tried from `point` (the point's own value among them). */
  values(point: TunePoint): unknown[];
  /** Shown in progress lines and docs. */
  name: string;
}

export interface TuneSpace {
  dimensions: TuneDimension[];
  /** Settings the space would vary but leaves out, with why. */
  skipped: Array<{ key: string; reason: string }>;
}

/** The strategies tried for `autoCompact.strategy` (the ones a replay runs offline that keep or summarize). */
export const TUNED_STRATEGIES = ['recursive-summarization', 'preserve-user-messages', 'recent-turns', 'sliding-window'] as const;

/** The keep count of each strategy and its grid. */
export const KEEP_PARAMS: Readonly<Record<string, { param: string; grid: number[] }>> = {
  'recursive-summarization': { param: 'maxEventsToKeep', grid: [4, 10, 20] },
  'preserve-user-messages': { param: 'maxUserTokens', grid: [10_000, 20_000, 40_000] },
  'recent-token-fraction': { param: 'fraction', grid: [0.15, 0.3, 0.5] },
  'recent-turns': { param: 'turns', grid: [1, 2, 4] },
  'sliding-window': { param: 'maxEvents', grid: [20, 40, 80] },
  'turn-window': { param: 'maxTurns', grid: [5, 10, 20] },
};

/** Grids of the plain settings, in the order the search visits them. */
const GRIDS: ReadonlyArray<{ key: string; grid: (s: SettingSchema) => unknown[] }> = [
  { key: 'promptCaching', grid: (s) => (s.enum ?? ['5m', '1h']).filter((v) => v !== 'off') },
  { key: 'microCompact.triggerTokens', grid: () => [10_000, 25_000, 50_000] },
  { key: 'microCompact.clearAtLeast', grid: () => [5_000, 20_000, 40_000] },
  { key: 'microCompact.keepRecent', grid: () => [1, 3, 6] },
  { key: 'microCompact.supersede', grid: () => [true, false] },
  { key: 'autoCompact.policy', grid: (s) => s.enum ?? [] },
  { key: 'autoCompact.threshold', grid: () => [0.5, 0.6, 0.7, 0.8, 0.9, 0.95] },
  { key: 'autoCompact.minCallsBetween', grid: () => [0, 5, 10, 20] },
  { key: 'autoCompact.strategy', grid: () => [...TUNED_STRATEGIES] },
  { key: 'summaryModel', grid: (s) => s.enum ?? ['', 'claude-haiku-4-5'] },
  { key: 'summaryMaxTokens', grid: () => [1_024, 2_048, 4_096] },
];

/** The keep counts' keys in a point: `strategyParams.<strategy>.<param>`. */
export const KEEP_PREFIX = 'strategyParams.';

/** Settings of the user's carried into every configuration (those a replay takes; strategyParams is folded separately). */
const CARRIED = /^(maxOutputTokens|promptCaching|summaryModel|summaryMaxTokens|autoCompact\.|microCompact\.)/;

function inRange(s: SettingSchema, v: unknown): boolean {
  if (typeof v !== 'number') return true;
  return (s.minimum === undefined || v >= s.minimum) && (s.maximum === undefined || v <= s.maximum);
}

/** Sorted, unique, with the point's value first among equals (numbers ascending, others in grid order). */
function withCurrent(grid: unknown[], current: unknown): unknown[] {
  const all = grid.some((v) => sameValue(v, current)) || current === undefined ? [...grid] : [...grid, current];
  return all.every((v) => typeof v === 'number') ? (all as number[]).sort((a, b) => a - b) : all;
}

export function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The space: the plain settings package.json declares and the replay runs, and the keep count of the point's strategy. */
export function tuneSpace(): TuneSpace {
  const dimensions: TuneDimension[] = [];
  const skipped: TuneSpace['skipped'] = [];
  for (const { key, grid } of GRIDS) {
    const schema = settingSchema(key);
    if (!schema) {
      skipped.push({ key, reason: 'not a setting of this version (package.json does not declare it)' });
      continue;
    }
    const values = grid(schema).filter((v) => inRange(schema, v) && replayable(key, v));
    if (values.length < 2) {
      skipped.push({ key, reason: `the replay runs fewer than two of its values (${describeRefusal(key, grid(schema))})` });
      continue;
    }
    dimensions.push({ name: key, key: () => key, values: (p) => withCurrent(values, p[key]) });
    if (key === 'autoCompact.strategy') dimensions.push(keepDimension());
  }
  return { dimensions, skipped };
}

function keepDimension(): TuneDimension {
  const keyOf = (p: TunePoint) => {
    const keep = KEEP_PARAMS[String(p['autoCompact.strategy'])];
    return keep ? `${KEEP_PREFIX}${String(p['autoCompact.strategy'])}.${keep.param}` : null;
  };
  return {
    name: 'strategyParams (keep count of the strategy)',
    key: keyOf,
    values: (p) => {
      const k = keyOf(p);
      return k ? withCurrent(KEEP_PARAMS[String(p['autoCompact.strategy'])].grid, p[k]) : [];
    },
  };
}

function replayable(key: string, value: unknown): boolean {
  try {
    resolveReplayConfig(toConfigJson({ [key]: value }, 'probe'), 'tune-space');
    return true;
  } catch {
    return false;
  }
}

function describeRefusal(key: string, values: unknown[]): string {
  for (const v of values) {
    try {
      resolveReplayConfig(toConfigJson({ [key]: v }, 'probe'), 'tune-space');
    } catch (e) {
      return errorMessage(e);
    }
  }
  return 'a single value';
}

/** The default of a keep count: the strategy's own. */
function keepDefault(key: string): number | undefined {
  const [, strategy, param] = key.split('.');
  try {
    return getStrategy(strategy).params.find((p) => p.name === param)?.default;
  } catch {
    return undefined;
  }
}

/**
 * The point the search starts from: each dimension's setting from `settings` (the user's `splitpoint.*`
 * values, without the prefix), else its shipped default; the user's strategyParams are kept as the base.
 */
export function startPoint(space: TuneSpace, settings: ReadonlyMap<string, unknown>): Record<string, unknown> {
  const point: Record<string, unknown> = {};
  const userParams = settings.get('strategyParams');
  if (userParams !== undefined) point.strategyParams = userParams;
  // The user's other compaction settings (autoCompact.enabled, microCompact.minChars, maxOutputTokens, …) are
  // part of the current settings: every configuration tried carries them unchanged.
  for (const [key, value] of settings) if (CARRIED.test(key) && settingSchema(key)) point[key] = value;
  for (const { key } of GRIDS) {
    if (!space.dimensions.some((d) => d.name === key)) continue;
    point[key] = settings.has(key) ? settings.get(key) : settingSchema(key)?.default;
  }
  const strategy = point['autoCompact.strategy'];
  const keep = typeof strategy === 'string' ? KEEP_PARAMS[strategy] : undefined;
  if (keep) {
    const key = `${KEEP_PREFIX}${strategy as string}.${keep.param}`;
    const user = (userParams as Record<string, Record<string, unknown>> | undefined)?.[strategy as string]?.[keep.param];
    point[key] = user ?? keepDefault(key);
  }
  return point;
}

/** The point with `key` set (a new strategy brings its keep count at the user's value or its default). */
export function withValue(point: TunePoint, key: string, value: unknown): Record<string, unknown> {
  const next: Record<string, unknown> = { ...point, [key]: value };
  if (key === 'autoCompact.strategy' && typeof value === 'string' && KEEP_PARAMS[value]) {
    const keepKey = `${KEEP_PREFIX}${value}.${KEEP_PARAMS[value].param}`;
    if (next[keepKey] === undefined) {
      const user = (point.strategyParams as Record<string, Record<string, unknown>> | undefined)?.[value]?.[KEEP_PARAMS[value].param];
      next[keepKey] = user ?? keepDefault(keepKey);
    }
  }
  return next;
}

/** The settings a point sets, as the extension names them (strategyParams folded into one object; keep counts of other strategies dropped). */
export function pointSettings(point: TunePoint): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const params: Record<string, Record<string, unknown>> = structuredClone(
    (point.strategyParams as Record<string, Record<string, unknown>> | undefined) ?? {},
  );
  const strategy = point['autoCompact.strategy'];
  for (const [k, v] of Object.entries(point)) {
    if (k === 'strategyParams') continue;
    if (k.startsWith(KEEP_PREFIX)) {
      const [, s, p] = k.split('.');
      // Only the chosen strategy's keep count is set; the user's own strategyParams stay as they are.
      if (s === strategy && !sameValue(v, keepDefault(k))) params[s] = { ...params[s], [p]: v };
      else if (s === strategy && params[s]?.[p] !== undefined) params[s] = { ...params[s], [p]: v };
      continue;
    }
    out[k] = v;
  }
  if (Object.keys(params).length > 0) out.strategyParams = params;
  return out;
}

/** A replay configuration file's JSON for a point (`{"autoCompact": {"threshold": 0.6}, …}`). */
export function toConfigJson(point: TunePoint, name: string): Record<string, unknown> {
  const json: Record<string, unknown> = { name };
  for (const [k, v] of Object.entries(pointSettings(point))) {
    const dot = k.indexOf('.');
    const group = dot > 0 ? k.slice(0, dot) : '';
    if (group === 'autoCompact' || group === 'microCompact') {
      json[group] = { ...(json[group] as Record<string, unknown> | undefined), [k.slice(dot + 1)]: v };
    } else {
      json[k] = v;
    }
  }
  return json;
}

/**
 * The block the extension accepts: `{"splitpoint.<key>": value}` for every setting of `point` that
 * differs from the shipped default, and for every one the current settings set to another value (so
 * applying the block also resets what the search moved back to the default).
 */
export function tunedSettingsBlock(point: TunePoint, current: ReadonlyMap<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(pointSettings(point))) {
    const shipped = settingSchema(k)?.default;
    const differsFromDefault = !sameValue(v, shipped);
    const resetsUser = current.has(k) && !sameValue(current.get(k), v);
    if (differsFromDefault || resetsUser) out[SETTINGS_PREFIX + k] = v;
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

/** A point's identity: its settings as canonical JSON (keys sorted). */
export function pointId(point: TunePoint): string {
  const settings = pointSettings(point);
  return JSON.stringify(
    Object.fromEntries(
      Object.keys(settings)
        .sort()
        .map((k) => [k, settings[k]]),
    ),
  );
}
