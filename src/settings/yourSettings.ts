// "Your settings" as a replay configuration (issue 25): the user's effective splitpoint.* compaction
// settings (every key a replay configuration takes), written as a configuration file would write them
// and resolved the same way (resolveReplayConfig), so the replay runs exactly what the extension runs.
// Only the settings that differ from the shipped defaults are written; none differ: the shipped
// default (`splitpoint-default`) is the user's settings, and no configuration is added.
import type { ReplayConfig } from '../core';
import { errorMessage } from '../core';
import { isReplaySetting, resolveReplayConfig } from './replayConfigs';
import { SETTING_KEYS, settingSchema } from './schema';
import type { SettingsSource } from './settingsSource';

/** The configuration's name in the replay. */
export const YOUR_SETTINGS = 'your-settings';

export type YourSettings =
  /** Every compaction setting is at its shipped default: splitpoint-default is the user's settings. */
  | { state: 'default'; changed: [] }
  /** The configuration to replay, and the settings (under splitpoint.) that differ from the defaults. */
  | { state: 'replayed'; changed: string[]; config: ReplayConfig }
  /** A value the replay refuses (out of the schema's range, a strategy it cannot run offline), named. */
  | { state: 'invalid'; changed: string[]; error: string };

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The user's compaction settings from `source` as a replay configuration (see the file comment). */
export function yourSettingsConfig(source: SettingsSource): YourSettings {
  const json: Record<string, unknown> = {};
  const changed: string[] = [];
  for (const key of SETTING_KEYS) {
    if (!isReplaySetting(key)) continue;
    const value = source.get<unknown>(key);
    if (value === undefined || same(value, settingSchema(key)?.default)) continue;
    changed.push(key);
    const [group, inner] = key.split('.', 2);
    if (inner === undefined) json[key] = value;
    else json[group] = { ...((json[group] as Record<string, unknown> | undefined) ?? {}), [inner]: value };
  }
  if (changed.length === 0) return { state: 'default', changed: [] };
  const description = `Your settings: ${changed.map((k) => `splitpoint.${k}`).join(', ')} changed; the rest at the shipped defaults.`;
  try {
    return { state: 'replayed', changed, config: resolveReplayConfig({ name: YOUR_SETTINGS, description, ...json }, 'your settings') };
  } catch (e) {
    return { state: 'invalid', changed, error: errorMessage(e) };
  }
}
