// "Splitpoint: Apply Tuned Settings…": the block `splitpoint tune` prints (`{"splitpoint.autoCompact.threshold": 0.6, …}`),
// read from a file or the clipboard, every key checked against the settings' schema (package.json), and the
// diff against the user's current (global) values. Plain module: the command glue is src/extension/applyTunedSettings.ts.
import { errorMessage } from '../core';
import { checkStrategyParams, checkType, ReplayConfigError } from './replayConfigs';
import { SETTINGS_PREFIX, settingSchema } from './schema';
import { sameValue } from './tuneSpace';

/** A block that cannot be applied: names the source and, where it is one key's fault, the key. */
export class TunedSettingsError extends ReplayConfigError {
  override name = 'TunedSettingsError';
}

/** Settings a tuned block may set: the ones the tune searches (and maxOutputTokens, which a replay takes). */
const TUNABLE = /^splitpoint\.(maxOutputTokens|promptCaching|summaryModel|summaryMaxTokens|autoCompact\.|microCompact\.|strategyParams$)/;

/**
 * The JSON object in `text`: the whole text, or the first `{` … last `}` of it (the block inside tune's text
 * output), or `bestSettings` of tune's --json output.
 */
function objectIn(text: string, source: string): Record<string, unknown> {
  const attempts = [text.trim()];
  const first = text.indexOf('{');
  const last = text.lastIndexOf('}');
  if (first >= 0 && last > first) attempts.push(text.slice(first, last + 1));
  // tune's text output: the block is the lines from a "{" alone on its line to the next "}" alone on its line.
  const block = /^\{\n[\s\S]*?\n\}$/m.exec(text.replace(/\r\n/g, '\n'));
  if (block) attempts.push(block[0]);
  let lastError = 'no JSON object found';
  for (const a of attempts) {
    try {
      const json: unknown = JSON.parse(a);
      if (json === null || typeof json !== 'object' || Array.isArray(json)) {
        lastError = 'must be a JSON object of "splitpoint.*" settings';
        continue;
      }
      const o = json as Record<string, unknown>;
      if ('bestSettings' in o && !Object.keys(o).some((k) => k.startsWith(SETTINGS_PREFIX))) {
        if (o.bestSettings === null)
          throw new TunedSettingsError(source, 'bestSettings', 'is null: the tune found no configuration that reaches its target');
        if (typeof o.bestSettings === 'object' && !Array.isArray(o.bestSettings)) return o.bestSettings as Record<string, unknown>;
      }
      return o;
    } catch (e) {
      if (e instanceof TunedSettingsError) throw e;
      lastError = `not valid JSON: ${errorMessage(e)}`;
    }
  }
  throw new TunedSettingsError(source, undefined, lastError);
}

/** The settings of a tuned block, each key checked against the schema (type, range, enum; strategyParams by strategy). */
export function parseTunedSettings(text: string, source: string): Map<string, unknown> {
  const o = objectIn(text, source);
  const out = new Map<string, unknown>();
  for (const [key, value] of Object.entries(o)) {
    if (!key.startsWith(SETTINGS_PREFIX))
      throw new TunedSettingsError(source, key, 'is not a Splitpoint setting (keys start with "splitpoint.")');
    const name = key.slice(SETTINGS_PREFIX.length);
    const schema = settingSchema(name);
    if (!schema) throw new TunedSettingsError(source, key, 'is not a setting of this version of Splitpoint');
    if (!TUNABLE.test(key)) throw new TunedSettingsError(source, key, 'is not a compaction setting (a tuned block sets only those)');
    try {
      checkType(source, key, value, schema);
      if (name === 'strategyParams') checkStrategyParams(source, value);
    } catch (e) {
      if (e instanceof ReplayConfigError) throw new TunedSettingsError(source, e.field ?? key, e.detail);
      throw e;
    }
    out.set(key, value);
  }
  if (out.size === 0) throw new TunedSettingsError(source, undefined, 'sets no setting');
  return out;
}

/** One setting the block would change. */
export interface TunedChange {
  key: string;
  /** The user's (global) value now; undefined when the user has none (the default applies). */
  from: unknown;
  /** What applies now: the user's value, else the shipped default. */
  effectiveFrom: unknown;
  to: unknown;
}

/** The changes `proposed` makes to the user's global values (`current(key)`); keys whose value is already that are left out. */
export function tunedDiff(proposed: ReadonlyMap<string, unknown>, current: (key: string) => unknown): TunedChange[] {
  const out: TunedChange[] = [];
  for (const [key, to] of proposed) {
    const from = current(key);
    const effectiveFrom = from !== undefined ? from : settingSchema(key.slice(SETTINGS_PREFIX.length))?.default;
    if (sameValue(effectiveFrom, to) && (from === undefined || sameValue(from, to))) continue;
    out.push({ key, from, effectiveFrom, to });
  }
  return out;
}

/** A change as one line: `splitpoint.autoCompact.threshold: 0.8 (default) → 0.6`. */
export function describeChange(c: TunedChange): string {
  const from = c.from === undefined ? `${JSON.stringify(c.effectiveFrom)} (default)` : JSON.stringify(c.from);
  return `${c.key}: ${from} → ${JSON.stringify(c.to)}`;
}

/** The two JSON documents of the diff editor: every changed key's value before and after. */
export function diffDocuments(changes: readonly TunedChange[]): { before: string; after: string } {
  const before = Object.fromEntries(changes.map((c) => [c.key, c.effectiveFrom]));
  const after = Object.fromEntries(changes.map((c) => [c.key, c.to]));
  return { before: JSON.stringify(before, null, 2) + '\n', after: JSON.stringify(after, null, 2) + '\n' };
}
