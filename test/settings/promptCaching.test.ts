// splitpoint.promptCaching: the manifest offers exactly the values the host understands, and a bad
// value falls back to the default, auto (as the other settings fall back to theirs).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { DEFAULT_HOST_SETTINGS, settingsFrom } from '../../src/settings/hostSettings';
import { PROMPT_CACHING_VALUES, promptCachingOf, type SettingsSource } from '../../src/settings/settingsModel';

function source(values: Record<string, unknown>): SettingsSource {
  function get<T>(section: string, defaultValue?: T): T | undefined {
    return section in values ? (values[section] as T) : defaultValue;
  }
  return { get: get as SettingsSource['get'], inspect: () => undefined };
}

test('the manifest declares promptCaching with the values and default the host reads', () => {
  const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as {
    contributes: { configuration: { properties: Record<string, { enum?: string[]; default?: unknown }> } };
  };
  const setting = manifest.contributes.configuration.properties['splitpoint.promptCaching'];
  assert.deepEqual(setting?.enum, [...PROMPT_CACHING_VALUES]);
  assert.equal(setting?.default, DEFAULT_HOST_SETTINGS.promptCaching);
  assert.equal(DEFAULT_HOST_SETTINGS.promptCaching, 'auto');
});

test('settingsFrom reads 5m, 1h, auto and off; anything else is auto', () => {
  for (const v of ['5m', '1h', 'auto', 'off'] as const) assert.equal(settingsFrom(source({ promptCaching: v })).promptCaching, v);
  assert.equal(settingsFrom(source({})).promptCaching, 'auto');
  for (const bad of ['2h', 'OFF', 1, null, true]) assert.equal(promptCachingOf(bad), 'auto', `${JSON.stringify(bad)}`);
});
