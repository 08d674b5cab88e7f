// Replay configurations: plain JSON files with the same keys as the extension's `splitpoint.*`
// settings (nested: `{"autoCompact": {"threshold": 0.9}}` is `splitpoint.autoCompact.threshold`), plus
// a few that only a replay needs. A key a file leaves out has the extension's shipped default, read
// from the same place the extension reads it (package.json contributes.configuration, through
// settingsFrom), so `splitpoint-default` — a file with no settings at all — is exactly what ships.
// Values are checked against the settings' own schema (type, minimum, maximum, enum); a bad file
// fails with its name and the field. The built-ins live in replay-configs/ and are bundled.
//
// Replay-only keys: name, description; autoCompact.headroomTokens (compact when the window minus
// the request is at most this many tokens: the budget trigger's headroom form, instead of threshold);
// autoCompact.agentPoint ("claude-code" | "codex": compact where that agent does on the replayed session's
// window, as the live strip computes it: core/live/status.ts agentCompactPoint; instead of threshold);
// microCompact.enabled (layer 1 on or off; on in the extension); ledger (Splitpoint's artifact ledger
// carried through compactions: true in the extension; Claude Code and Codex have none); replay
// ("as-recorded": the recording's own compactions, TTL and sizes instead of a pipeline).
import claudeCodeLike from '../../replay-configs/claude-code-like.json';
import codexLike from '../../replay-configs/codex-like.json';
import asRecorded from '../../replay-configs/as-recorded.json';
import noCompaction from '../../replay-configs/no-compaction.json';
import splitpointDefault from '../../replay-configs/splitpoint-default.json';
import { pipelineSettingsFor } from './engineSettings';
import { budgetTrigger, errorMessage, getStrategy, resolveParams, SERVER_STRATEGIES, SplitpointError, type ReplayConfig } from '../core';
import { SETTING_KEYS, settingSchema, shippedSettings, type SettingSchema } from './schema';
import { settingsFrom } from './hostSettings';

/** A configuration file that cannot be used: names the file and the field. */
export class ReplayConfigError extends SplitpointError {
  constructor(
    readonly file: string,
    readonly field: string | undefined,
    readonly detail: string,
  ) {
    super(`${file}: ${field ? `${field}: ` : ''}${detail}`);
    this.name = 'ReplayConfigError';
  }
}

/** The built-in configurations, in the order the replay shows them. */
export const BUILTIN_REPLAY_CONFIGS: ReadonlyArray<{ name: string; json: unknown }> = [
  { name: 'as-recorded', json: asRecorded },
  { name: 'no-compaction', json: noCompaction },
  { name: 'claude-code-like', json: claudeCodeLike },
  { name: 'codex-like', json: codexLike },
  { name: 'splitpoint-default', json: splitpointDefault },
];

export const BUILTIN_REPLAY_CONFIG_NAMES = BUILTIN_REPLAY_CONFIGS.map((c) => c.name);

/** Settings groups a replay takes (the rest are about the API, files and tools, not compaction). */
const REPLAY_SETTINGS = /^(maxOutputTokens|promptCaching|summaryModel$|summaryMaxTokens$|autoCompact\.|microCompact\.|strategyParams$)/;

/** Settings groups written as objects in a file: `{"autoCompact": {"threshold": 0.9}}` is `autoCompact.threshold`. */
const GROUPS = new Set(['autoCompact', 'microCompact']);

/** The file's keys as setting names (strategyParams stays one object, as in the settings). */
function flatten(json: Record<string, unknown>, file: string): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [k, v] of Object.entries(json)) {
    if (!GROUPS.has(k)) {
      out.set(k, v);
      continue;
    }
    if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new ReplayConfigError(file, k, 'must be an object');
    for (const [inner, value] of Object.entries(v)) out.set(`${k}.${inner}`, value);
  }
  return out;
}

export function checkType(file: string, key: string, value: unknown, s: SettingSchema): void {
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  const ok = types.some((t) =>
    t === 'integer'
      ? Number.isInteger(value)
      : t === 'number'
        ? typeof value === 'number' && Number.isFinite(value)
        : t === 'array'
          ? Array.isArray(value)
          : t === 'object'
            ? value !== null && typeof value === 'object' && !Array.isArray(value)
            : typeof value === t,
  );
  if (types.length > 0 && !ok) throw new ReplayConfigError(file, key, `must be ${types.join(' or ')}, got ${JSON.stringify(value)}`);
  if (typeof value === 'number') {
    if (s.minimum !== undefined && value < s.minimum) throw new ReplayConfigError(file, key, `must be at least ${s.minimum}, got ${value}`);
    if (s.maximum !== undefined && value > s.maximum) throw new ReplayConfigError(file, key, `must be at most ${s.maximum}, got ${value}`);
  }
  if (s.enum && !s.enum.includes(value)) {
    throw new ReplayConfigError(
      file,
      key,
      `must be one of ${s.enum.map((e) => JSON.stringify(e)).join(', ')}, got ${JSON.stringify(value)}`,
    );
  }
  if (Array.isArray(value) && s.items) value.forEach((item, i) => checkType(file, `${key}[${i}]`, item, s.items!));
}

/** Checks every key against the settings' schema (or the replay-only rules); returns the settings part. */
function validated(file: string, flat: Map<string, unknown>): Map<string, unknown> {
  const settings = new Map<string, unknown>();
  for (const [key, value] of flat) {
    if (key === 'name' || key === 'description') {
      if (typeof value !== 'string' || (key === 'name' && value.trim() === ''))
        throw new ReplayConfigError(file, key, 'must be a non-empty string');
      continue;
    }
    if (key === 'ledger') {
      if (typeof value !== 'boolean') throw new ReplayConfigError(file, key, 'must be true or false');
      continue;
    }
    if (key === 'replay') {
      if (value !== 'as-recorded' && value !== 'pipeline')
        throw new ReplayConfigError(file, key, `must be "as-recorded" or "pipeline", got ${JSON.stringify(value)}`);
      continue;
    }
    if (key === 'autoCompact.agentPoint') {
      if (value !== 'claude-code' && value !== 'codex')
        throw new ReplayConfigError(file, key, `must be "claude-code" or "codex", got ${JSON.stringify(value)}`);
      settings.set(key, value);
      continue;
    }
    if (key === 'autoCompact.headroomTokens' || key === 'microCompact.enabled') {
      if (key === 'autoCompact.headroomTokens' && !(Number.isInteger(value) && (value as number) > 0))
        throw new ReplayConfigError(file, key, `must be a positive integer, got ${JSON.stringify(value)}`);
      if (key === 'microCompact.enabled' && typeof value !== 'boolean') throw new ReplayConfigError(file, key, 'must be true or false');
      settings.set(key, value);
      continue;
    }
    const schema = settingSchema(key);
    if (!schema || !REPLAY_SETTINGS.test(key)) {
      const known = SETTING_KEYS.filter((k) => REPLAY_SETTINGS.test(k));
      throw new ReplayConfigError(
        file,
        key,
        `${schema ? 'is not a compaction setting' : 'is not a setting'} (a replay takes name, description, ledger, replay, ` +
          `autoCompact.headroomTokens, autoCompact.agentPoint, microCompact.enabled and ${known.join(', ')})`,
      );
    }
    checkType(file, key, value, schema);
    settings.set(key, value);
  }
  const points = ['autoCompact.threshold', 'autoCompact.headroomTokens', 'autoCompact.agentPoint'].filter((k) => settings.has(k));
  if (points.length > 1)
    throw new ReplayConfigError(
      file,
      points[1],
      `give one of autoCompact.threshold, headroomTokens or agentPoint, not ${points.join(' and ')}`,
    );
  checkStrategyParams(file, settings.get('strategyParams'));
  return settings;
}

export function checkStrategyParams(file: string, value: unknown): void {
  if (value === undefined) return;
  for (const [name, params] of Object.entries(value as Record<string, unknown>)) {
    const field = `strategyParams.${name}`;
    let def;
    try {
      def = getStrategy(name);
    } catch (e) {
      throw new ReplayConfigError(file, field, errorMessage(e));
    }
    if (params === null || typeof params !== 'object' || Array.isArray(params))
      throw new ReplayConfigError(file, field, 'must be an object');
    try {
      resolveParams(def, params as Record<string, number>);
    } catch (e) {
      throw new ReplayConfigError(file, field, errorMessage(e));
    }
  }
}

/** Resolve a parsed configuration file into what the replay runs (throws ReplayConfigError). */
export function resolveReplayConfig(json: unknown, file: string): ReplayConfig {
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    throw new ReplayConfigError(file, undefined, 'must be a JSON object');
  const values = validated(file, flatten(json as Record<string, unknown>, file));
  const host = settingsFrom(shippedSettings(values));
  const pipeline = pipelineSettingsFor(host, (name) => resolveParams(getStrategy(name), host.strategyParams[name] ?? {}));
  if ((SERVER_STRATEGIES as readonly string[]).includes(pipeline.autoCompact.strategy))
    throw new ReplayConfigError(
      file,
      'autoCompact.strategy',
      `${pipeline.autoCompact.strategy} runs on Anthropic's servers (context_management): the replay cannot run it offline`,
    );
  const headroom = values.get('autoCompact.headroomTokens') as number | undefined;
  if (headroom !== undefined) pipeline.autoCompact.trigger = budgetTrigger({ headroomTokens: headroom });
  const agentPoint = values.get('autoCompact.agentPoint') as ReplayConfig['agentPoint'];
  const micro = values.get('microCompact.enabled');
  if (micro === false) pipeline.microCompact.enabled = false;
  const name = (json as { name?: string }).name?.trim() || file.replace(/^.*[\\/]/, '').replace(/\.json$/i, '');
  const description = (json as { description?: string }).description;
  const ledger = (json as { ledger?: boolean }).ledger ?? true;
  const mode = (json as { replay?: 'as-recorded' | 'pipeline' }).replay ?? 'pipeline';
  return {
    name,
    ...(description ? { description } : {}),
    pipeline,
    maxOutputTokens: host.maxOutputTokens,
    promptCaching: host.promptCaching,
    ledger,
    mode,
    summaryModel: host.summary?.model ?? '',
    summaryMaxTokens: host.summary?.maxTokens ?? 0,
    ...(agentPoint ? { agentPoint } : {}),
  };
}

/** A configuration by built-in name, or read from a file (`read` returns its text). */
export function loadReplayConfig(nameOrFile: string, read: (file: string) => string): ReplayConfig {
  const builtin = BUILTIN_REPLAY_CONFIGS.find((c) => c.name === nameOrFile);
  if (builtin) return resolveReplayConfig(builtin.json, `replay-configs/${builtin.name}.json`);
  let text: string;
  try {
    text = read(nameOrFile);
  } catch (e) {
    throw new ReplayConfigError(
      nameOrFile,
      undefined,
      `not a built-in configuration (${BUILTIN_REPLAY_CONFIG_NAMES.join(', ')}), and cannot be read as a file: ${errorMessage(e)}`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new ReplayConfigError(nameOrFile, undefined, `not valid JSON: ${errorMessage(e)}`);
  }
  return resolveReplayConfig(json, nameOrFile);
}

/** Every built-in configuration, resolved. */
export function builtinReplayConfigs(): ReplayConfig[] {
  return BUILTIN_REPLAY_CONFIGS.map((c) => resolveReplayConfig(c.json, `replay-configs/${c.name}.json`));
}

/** Whether `splitpoint.<key>` is a setting a replay configuration takes (a compaction setting). */
export function isReplaySetting(key: string): boolean {
  return REPLAY_SETTINGS.test(key);
}
