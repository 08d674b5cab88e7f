// Replay configuration files: splitpoint-default is exactly what ships (the manifest's defaults read the
// way the extension reads them), a file overrides only the keys it names, and bad files are refused
// with the file and the field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { DEFAULT_HOST_SETTINGS } from '../../src/settings/hostSettings';
import { builtinReplayConfigs, loadReplayConfig, resolveReplayConfig } from '../../src/settings/replayConfigs';

const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as {
  contributes: { configuration: { properties: Record<string, { default?: unknown }> } };
};
const shipped = (key: string) => manifest.contributes.configuration.properties[`splitpoint.${key}`]?.default;

test('splitpoint-default is the manifest defaults, as the extension resolves them (and the host defaults agree)', () => {
  const sp = builtinReplayConfigs().find((c) => c.name === 'splitpoint-default')!;
  const micro = sp.pipeline.microCompact;
  for (const k of ['keepRecent', 'minChars', 'triggerTokens', 'clearAtLeast', 'cacheAware', 'horizonTurns', 'supersede'] as const) {
    assert.deepEqual(micro[k], shipped(`microCompact.${k}`), `microCompact.${k}`);
    assert.deepEqual(micro[k], DEFAULT_HOST_SETTINGS.microCompact[k], `DEFAULT_HOST_SETTINGS.microCompact.${k}`);
  }
  assert.equal(micro.enabled, true);
  assert.equal(sp.pipeline.autoCompact.enabled, shipped('autoCompact.enabled'));
  assert.equal(sp.pipeline.autoCompact.strategy, shipped('autoCompact.strategy'));
  assert.match(
    sp.pipeline.autoCompact.trigger.description,
    new RegExp(`${Number(shipped('autoCompact.threshold')) * 100}% of the context window`),
  );
  assert.equal(sp.maxOutputTokens, shipped('maxOutputTokens'));
  assert.equal(sp.promptCaching, 'auto');
});

test('a configuration file overrides only what it names; the replay-only keys work', () => {
  const c = resolveReplayConfig(
    {
      name: 'mine',
      autoCompact: { headroomTokens: 30_000 },
      microCompact: { enabled: false, keepRecent: 7, supersede: !shipped('microCompact.supersede') },
      promptCaching: '1h',
    },
    'mine.json',
  );
  assert.equal(c.name, 'mine');
  assert.equal(c.promptCaching, '1h');
  assert.equal(c.pipeline.microCompact.enabled, false);
  assert.equal(c.pipeline.microCompact.keepRecent, 7);
  assert.equal(c.pipeline.microCompact.supersede, !shipped('microCompact.supersede'));
  assert.equal(c.pipeline.microCompact.triggerTokens, shipped('microCompact.triggerTokens'));
  assert.equal(c.pipeline.autoCompact.trigger.description, 'headroom <= 30,000 tokens');
  assert.equal(c.pipeline.autoCompact.strategy, shipped('autoCompact.strategy'));
  const codex = builtinReplayConfigs().find((x) => x.name === 'codex-like')!;
  assert.equal(codex.pipeline.autoCompact.strategy, 'preserve-user-messages');
  assert.deepEqual(codex.pipeline.autoCompact.params, { maxUserTokens: 20_000 });
  assert.equal(codex.agentPoint, 'codex', 'codex-like compacts where Codex does (agentCompactPoint), not at a fixed fraction');
});

test('bad configuration files name the file and the field', () => {
  const bad = (json: unknown) => () => resolveReplayConfig(json, 'c.json');
  assert.throws(bad({ autoCompact: { threshold: 0.9, headroomTokens: 10 } }), /c\.json: autoCompact\.headroomTokens: give one of/);
  assert.throws(
    bad({ autoCompact: { threshold: 0.9, agentPoint: 'codex' } }),
    /c\.json: autoCompact\.agentPoint: give one of .* not autoCompact\.threshold and autoCompact\.agentPoint/,
  );
  assert.throws(
    bad({ autoCompact: { agentPoint: 'cline' } }),
    /c\.json: autoCompact\.agentPoint: must be "claude-code" or "codex", got "cline"/,
  );
  assert.throws(bad({ microCompact: { tools: ['Read', 3] } }), /c\.json: microCompact\.tools\[1\]: must be string, got 3/);
  assert.throws(bad({ microCompact: { cacheAware: 'yes' } }), /c\.json: microCompact\.cacheAware: must be boolean/);
  assert.throws(bad({ microCompact: { supersede: 1 } }), /c\.json: microCompact\.supersede: must be boolean, got 1/);
  assert.throws(bad({ autoCompact: { strategy: 'magic' } }), /c\.json: autoCompact\.strategy: must be one of/);
  assert.throws(bad({ promptCaching: '10m' }), /c\.json: promptCaching: must be one of .*"1h".*got "10m"/);
  assert.throws(bad({ transcriptFolder: '/tmp' }), /c\.json: transcriptFolder: is not a compaction setting/);
  assert.throws(
    bad({ autoCompact: { strategy: 'server-compact' } }),
    /c\.json: autoCompact\.strategy: server-compact runs on Anthropic's servers/,
  );
  assert.throws(bad({ name: '' }), /c\.json: name: must be a non-empty string/);
  assert.throws(() => loadReplayConfig('x.json', () => '{"a":'), /x\.json: not valid JSON/);
});

test('summaryModel and summaryMaxTokens: shipped as the session model and sized by the probes; a file may set them; bad values named', () => {
  const sp = builtinReplayConfigs().find((c) => c.name === 'splitpoint-default')!;
  assert.equal(sp.summaryModel, shipped('summaryModel'));
  assert.equal(sp.summaryModel, '');
  assert.equal(sp.summaryMaxTokens, shipped('summaryMaxTokens'));
  assert.equal(sp.summaryMaxTokens, 0);
  assert.deepEqual(DEFAULT_HOST_SETTINGS.summary, { model: '', maxTokens: 0 });
  const c = resolveReplayConfig({ summaryModel: ' claude-haiku-4-5 ', summaryMaxTokens: 2_048 }, 'cheap.json');
  assert.equal(c.summaryModel, 'claude-haiku-4-5');
  assert.equal(c.summaryMaxTokens, 2_048);
  const bad = (json: unknown) => () => resolveReplayConfig(json, 'c.json');
  assert.throws(bad({ summaryMaxTokens: -1 }), /c\.json: summaryMaxTokens: must be at least 0, got -1/);
  assert.throws(bad({ summaryMaxTokens: 1.5 }), /c\.json: summaryMaxTokens: must be integer, got 1\.5/);
  assert.throws(bad({ summaryModel: 4 }), /c\.json: summaryModel: must be string, got 4/);
  // The agents' baselines keep their own bounds: Claude Code's 20,000 output reserve, Codex's fixed 4,096.
  const byName = (n: string) => builtinReplayConfigs().find((x) => x.name === n)!;
  assert.equal(byName('claude-code-like').summaryMaxTokens, 20_000);
  assert.equal(byName('codex-like').summaryMaxTokens, 4_096);
});
