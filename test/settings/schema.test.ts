// package.json's contributes.configuration is the one definition of the `splitpoint.*` settings: the
// settings module's fallbacks are the schema's defaults (a default retyped and changed fails here), every
// setting the schema declares is read (changing it changes what the host gets), and the module reads no
// setting the schema does not declare.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { STRATEGY_NAMES } from '../../src/core';
import { DEFAULT_HOST_SETTINGS, settingsFrom, type HostSettings } from '../../src/settings/hostSettings';
import { SETTING_KEYS, settingSchema, shippedSettings, type SettingSchema } from '../../src/settings/schema';
import {
  contextWindowOf,
  mcpSettingsFrom,
  mentionMaxFileBytesFrom,
  PROMPT_CACHING_VALUES,
  type SettingsSource,
} from '../../src/settings/settingsModel';

/** A model no built-in table knows: its window is splitpoint.defaultContextWindow's. */
const UNKNOWN_MODEL = 'x-unknown-model';

/** Everything the settings module reads from one source. */
function readAll(c: SettingsSource) {
  return {
    host: settingsFrom(c),
    mentionMaxFileBytes: mentionMaxFileBytesFrom(c),
    mcp: mcpSettingsFrom(c),
    unknownModelWindow: contextWindowOf(c, UNKNOWN_MODEL),
  };
}
type Read = ReturnType<typeof readAll>;

/** Where each setting lands in what the module reads, in the schema's units. */
const READ_AS: Record<string, (r: Read) => unknown> = {
  model: (r) => r.host.model,
  baseUrl: (r) => r.host.baseUrl ?? '',
  maxOutputTokens: (r) => r.host.maxOutputTokens,
  contextWindows: () => ({}),
  defaultContextWindow: (r) => r.unknownModelWindow,
  'autoCompact.enabled': (r) => r.host.autoCompact.enabled,
  'autoCompact.threshold': (r) => r.host.autoCompact.threshold,
  'autoCompact.strategy': (r) => r.host.autoCompact.strategy,
  'autoCompact.policy': (r) => r.host.autoCompact.policy,
  'autoCompact.minCallsBetween': (r) => r.host.autoCompact.minCallsBetween,
  'autoCompact.review': (r) => r.host.autoCompact.review,
  'autoCompact.reviewTimeoutSeconds': (r) => r.host.autoCompact.reviewTimeoutSeconds,
  'serverContext.excludeTools': (r) => r.host.serverContext?.excludeTools,
  'serverContext.instructions': (r) => r.host.serverContext?.instructions,
  strategyParams: (r) => r.host.strategyParams,
  'microCompact.keepRecent': (r) => r.host.microCompact.keepRecent,
  'microCompact.minChars': (r) => r.host.microCompact.minChars,
  'microCompact.triggerTokens': (r) => r.host.microCompact.triggerTokens,
  'microCompact.clearAtLeast': (r) => r.host.microCompact.clearAtLeast,
  'microCompact.tools': (r) => r.host.microCompact.tools,
  'microCompact.cacheAware': (r) => r.host.microCompact.cacheAware,
  'microCompact.horizonTurns': (r) => r.host.microCompact.horizonTurns,
  'microCompact.supersede': (r) => r.host.microCompact.supersede,
  transcriptFolder: (r) => r.host.transcriptFolder,
  instructions: (r) => r.host.instructions,
  promptCaching: (r) => r.host.promptCaching,
  'probes.afterCompaction': (r) => r.host.probes?.afterCompaction,
  'probes.model': (r) => r.host.probes?.model,
  summaryModel: (r) => r.host.summary?.model,
  summaryMaxTokens: (r) => r.host.summary?.maxTokens,
  commandTimeoutSeconds: (r) => r.host.commandTimeoutMs / 1000,
  // User-only settings: unset is "no servers".
  'mcp.servers': (r) => r.mcp.servers ?? {},
  'mcp.autoApprove': (r) => r.mcp.autoApprove,
  'mentions.maxFileKB': (r) => r.mentionMaxFileBytes / 1024,
  'checkpoints.enabled': (r) => r.host.checkpoints?.enabled,
  'checkpoints.maxCount': (r) => r.host.checkpoints?.maxCount,
  'checkpoints.maxFileSizeKB': (r) => r.host.checkpoints?.maxFileKB,
  'checkpoints.maxStorageMB': (r) => r.host.checkpoints?.maxStorageMB,
};

/** A source with no value and no default at all: get answers the caller's fallback. */
const nothingSet: SettingsSource = {
  get: ((_section: string, fallback?: unknown) => fallback) as SettingsSource['get'],
  inspect: () => undefined,
};

/** A source that records every setting asked for. */
function recording(c: SettingsSource, asked: Set<string>): SettingsSource {
  return {
    get: ((section: string, fallback?: unknown) => {
      asked.add(section);
      return c.get(section, fallback);
    }) as SettingsSource['get'],
    inspect: <T>(section: string) => {
      asked.add(section);
      return c.inspect<T>(section);
    },
  };
}

/** A valid value of a setting that is not its default (what a user might set instead). */
function otherValue(key: string, s: SettingSchema): unknown {
  if (key === 'contextWindows') return { [DEFAULT_HOST_SETTINGS.model]: 123_456 };
  if (s.enum) return s.enum.find((v) => v !== s.default);
  switch (s.type) {
    case 'boolean':
      return !s.default;
    case 'integer':
      return (s.default as number) + 7;
    case 'number':
      return ((s.minimum ?? 0) + (s.maximum ?? 1)) / 2;
    case 'string':
      return 'x-other';
    case 'array':
      return ['x-other'];
    case 'object':
      return { 'x-other': { command: 'x' } };
  }
  throw new Error(`no other value for ${key} (type ${JSON.stringify(s.type)})`);
}

test('every setting in the schema has a default, and the test knows where the module puts it', () => {
  assert.deepEqual([...SETTING_KEYS].sort(), Object.keys(READ_AS).sort());
  for (const key of SETTING_KEYS) assert.notEqual(settingSchema(key)?.default, undefined, key);
});

test("the module's defaults are the schema's: with the shipped settings every value is the schema default", () => {
  const read = readAll(shippedSettings());
  for (const key of SETTING_KEYS) assert.deepEqual(READ_AS[key]!(read), settingSchema(key)!.default, key);
});

test("with nothing at all set (not even the manifest's defaults), every fallback is the schema's default", () => {
  const read = readAll(nothingSet);
  for (const key of SETTING_KEYS) assert.deepEqual(READ_AS[key]!(read), settingSchema(key)!.default, key);
  assert.deepEqual(read.host, DEFAULT_HOST_SETTINGS);
});

test('DEFAULT_HOST_SETTINGS is what ships', () => {
  const expected: HostSettings = settingsFrom(shippedSettings());
  assert.deepEqual(DEFAULT_HOST_SETTINGS, expected);
  assert.equal(DEFAULT_HOST_SETTINGS.model, settingSchema('model')!.default);
});

test('every setting in the schema is read: setting it to another value changes what the module reads', () => {
  const shipped = readAll(shippedSettings());
  for (const key of SETTING_KEYS) {
    const value = otherValue(key, settingSchema(key)!);
    const read = readAll(shippedSettings(new Map([[key, value]])));
    assert.notDeepEqual(read, shipped, `splitpoint.${key} = ${JSON.stringify(value)} changed nothing`);
  }
});

test('the module reads every setting the schema declares and none it does not', () => {
  const asked = new Set<string>();
  readAll(recording(shippedSettings(), asked));
  assert.deepEqual(
    [...asked].filter((k) => !settingSchema(k)),
    [],
    'read but not declared in package.json',
  );
  assert.deepEqual(
    SETTING_KEYS.filter((k) => !asked.has(k)),
    [],
    'declared in package.json but never read',
  );
});

test("the schema's enums are the values the host understands", () => {
  assert.deepEqual(settingSchema('promptCaching')!.enum, [...PROMPT_CACHING_VALUES]);
  const strategies = settingSchema('autoCompact.strategy')!.enum!;
  assert.deepEqual(
    strategies.filter((s) => !(STRATEGY_NAMES as readonly unknown[]).includes(s)),
    [],
    'an auto-compact strategy the engine does not know',
  );
  assert.deepEqual(settingSchema('autoCompact.review')!.enum, ['never', 'always']);
});
