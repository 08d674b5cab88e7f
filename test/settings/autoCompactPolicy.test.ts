// splitpoint.autoCompact.policy, splitpoint.autoCompact.minCallsBetween and promptCaching "auto" (issue 25):
// read by the host with the manifest's defaults, carried into the pipeline settings, accepted by replay
// configuration files, and a bad value refused naming the file and the field.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { DEFAULT_HOST_SETTINGS, settingsFrom } from '../../src/settings/hostSettings';
import { pipelineSettingsFor } from '../../src/settings/engineSettings';
import { resolveReplayConfig } from '../../src/settings/replayConfigs';
import type { SettingsSource } from '../../src/settings/settingsModel';

const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as {
  contributes: {
    configuration: { properties: Record<string, { enum?: string[]; default?: unknown; minimum?: number; description?: string }> };
  };
};
const prop = (key: string) => manifest.contributes.configuration.properties[`splitpoint.${key}`];

function source(values: Record<string, unknown>): SettingsSource {
  function get<T>(section: string, defaultValue?: T): T | undefined {
    return section in values ? (values[section] as T) : defaultValue;
  }
  return { get: get as SettingsSource['get'], inspect: () => undefined };
}

test('the manifest declares the policy, minCallsBetween and promptCaching "auto" with what the host reads by default', () => {
  assert.deepEqual(prop('autoCompact.policy')?.enum, ['threshold', 'pays']);
  assert.equal(DEFAULT_HOST_SETTINGS.autoCompact.policy, prop('autoCompact.policy')?.default);
  assert.equal(prop('autoCompact.minCallsBetween')?.minimum, 1);
  assert.equal(DEFAULT_HOST_SETTINGS.autoCompact.minCallsBetween, prop('autoCompact.minCallsBetween')?.default);
  assert.ok(prop('promptCaching')?.enum?.includes('auto'));
  assert.equal(DEFAULT_HOST_SETTINGS.promptCaching, prop('promptCaching')?.default);
  const pipeline = pipelineSettingsFor(DEFAULT_HOST_SETTINGS, () => ({}));
  assert.equal(pipeline.autoCompact.policy, prop('autoCompact.policy')?.default);
  assert.equal(pipeline.autoCompact.minCallsBetween, prop('autoCompact.minCallsBetween')?.default);
  assert.equal(pipeline.promptCaching, prop('promptCaching')?.default);
});

test('settingsFrom reads the policy and minCallsBetween; bad values fall back to the defaults', () => {
  const s = settingsFrom(source({ 'autoCompact.policy': 'pays', 'autoCompact.minCallsBetween': 25, promptCaching: 'auto' }));
  assert.equal(s.autoCompact.policy, 'pays');
  assert.equal(s.autoCompact.minCallsBetween, 25);
  assert.equal(s.promptCaching, 'auto');
  const t = settingsFrom(source({ 'autoCompact.policy': 'threshold' }));
  assert.equal(t.autoCompact.policy, 'threshold');
  const bad = settingsFrom(source({ 'autoCompact.policy': 'sometimes', 'autoCompact.minCallsBetween': -3 }));
  assert.equal(bad.autoCompact.policy, prop('autoCompact.policy')?.default);
  assert.equal(bad.autoCompact.minCallsBetween, prop('autoCompact.minCallsBetween')?.default);
});

test('replay configuration files take the new keys; bad values name the file and the field', () => {
  const c = resolveReplayConfig({ autoCompact: { policy: 'pays', minCallsBetween: 5 }, promptCaching: 'auto' }, 'mine.json');
  assert.equal(c.pipeline.autoCompact.policy, 'pays');
  assert.equal(c.pipeline.autoCompact.minCallsBetween, 5);
  assert.equal(c.promptCaching, 'auto');
  assert.equal(c.pipeline.promptCaching, 'auto');
  assert.throws(
    () => resolveReplayConfig({ autoCompact: { policy: 'always' } }, 'p.json'),
    /^ReplayConfigError: p\.json: autoCompact\.policy: must be one of "threshold", "pays", got "always"$/,
  );
  assert.throws(
    () => resolveReplayConfig({ autoCompact: { minCallsBetween: 0 } }, 'm.json'),
    /m\.json: autoCompact\.minCallsBetween: must be at least 1, got 0/,
  );
  assert.throws(
    () => resolveReplayConfig({ autoCompact: { minCallsBetween: 2.5 } }, 'm.json'),
    /m\.json: autoCompact\.minCallsBetween: must be integer/,
  );
  assert.throws(
    () => resolveReplayConfig({ promptCaching: '2h' }, 't.json'),
    /t\.json: promptCaching: must be one of "5m", "1h", "auto", "off", got "2h"/,
  );
});
