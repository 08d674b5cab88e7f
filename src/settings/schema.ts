// The `splitpoint.*` settings' one definition: package.json's contributes.configuration. Every default,
// type, range and enum the host or a replay configuration uses is read from here, never retyped.
// The JSON import is typed, so `shippedDefault('model')` is a string and an unknown key does not compile.
import pkg from '../../package.json';
import type { InspectedSetting, SettingsSource } from './settingsSource';

export const SETTINGS_SECTION = 'splitpoint';
export const SETTINGS_PREFIX = `${SETTINGS_SECTION}.`;

type Properties = typeof pkg.contributes.configuration.properties;
type Unprefixed<P> = P extends `splitpoint.${infer K}` ? K : never;

/** A setting's name under `splitpoint.` (e.g. `autoCompact.threshold`), as the schema declares it. */
export type SettingKey = Unprefixed<keyof Properties>;

/** What the schema says about one setting (the parts the host and the replay check). */
export interface SettingSchema {
  type?: string | string[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  enum?: unknown[];
  items?: SettingSchema;
  scope?: string;
}

/** The schema of every setting, by its full name (`splitpoint.model`). */
export const SETTINGS_SCHEMA: Readonly<Record<string, SettingSchema>> = pkg.contributes.configuration.properties;

/** Every setting's name under `splitpoint.`. */
export const SETTING_KEYS = Object.keys(SETTINGS_SCHEMA).map((k) => k.slice(SETTINGS_PREFIX.length)) as SettingKey[];

/** The schema of `splitpoint.<key>` (undefined for a name the schema does not declare). */
export function settingSchema(key: string): SettingSchema | undefined {
  return SETTINGS_SCHEMA[SETTINGS_PREFIX + key];
}

/** The default that ships for `splitpoint.<key>`, typed as the manifest writes it. */
export function shippedDefault<K extends SettingKey>(key: K): Properties[`splitpoint.${K}`]['default'] {
  return pkg.contributes.configuration.properties[`splitpoint.${key}`].default;
}

/**
 * A settings source that answers like VS Code with no user, workspace or folder values: `values`
 * where given (as user values), else the shipped default.
 */
export function shippedSettings(values: ReadonlyMap<string, unknown> = new Map()): SettingsSource {
  const fallback = (section: string) => settingSchema(section)?.default;
  const get = (section: string, defaultValue?: unknown) =>
    values.has(section) ? values.get(section) : (fallback(section) ?? defaultValue);
  return {
    get: get as SettingsSource['get'],
    inspect: <T>(section: string): InspectedSetting<T> => ({
      key: SETTINGS_PREFIX + section,
      defaultValue: fallback(section) as T,
      globalValue: values.get(section) as T,
    }),
  };
}
