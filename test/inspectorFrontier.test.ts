// The replay's frontier as the host builds it (issue 25): points on the cost / probe-rate frontier,
// configurations that archived nothing kept apart, the shipped default and the user's settings marked;
// and "your settings" as a replay configuration, from the settings that differ from the defaults.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { frontierOf } from '../src/inspector/replayFrontier';
import { replayView } from '../src/inspector/inspectorReplay';
import { shippedSettings } from '../src/settings/schema';
import { yourSettingsConfig } from '../src/settings/yourSettings';
import type { ReplayReport } from '../src/core/replay';

const point = (name: string, costUSD: number, probeRecall: number | null) => ({ name, costUSD, probeRecall });

test('the frontier: no other point is as cheap with at least the rate; no rate is never on it; ties keep both', () => {
  const configs = [
    point('cheap-poor', 5, 0.4),
    point('splitpoint-default', 6, null),
    point('mid', 7, 0.8),
    point('dominated', 8, 0.7),
    point('dear-best', 10, 0.95),
    point('same-as-mid', 7, 0.8),
    point('your-settings', 9, 0.8),
  ];
  const f = frontierOf(configs, 'your-settings', { state: 'replayed', changed: ['autoCompact.threshold'] });
  const on = Object.fromEntries(f.map((p) => [p.name, p.onFrontier]));
  assert.deepEqual(on, {
    'cheap-poor': true,
    'splitpoint-default': false,
    mid: true,
    dominated: false,
    'dear-best': true,
    'same-as-mid': true,
    'your-settings': false,
  });
  assert.equal(f[1].probeRecall, null, 'nothing archived stays null (never 0 or 1)');
  assert.deepEqual(
    f.filter((p) => p.marks.length > 0).map((p) => [p.name, p.marks]),
    [
      ['splitpoint-default', ['default']],
      ['your-settings', ['yours']],
    ],
  );
});

test('settings at the defaults: the default point is theirs; settings not read: no one is marked as theirs', () => {
  const configs = [point('no-compaction', 3, null), point('splitpoint-default', 4, 0.5)];
  assert.deepEqual(frontierOf(configs, null, { state: 'default', changed: [] })[1].marks, ['default', 'yours']);
  assert.deepEqual(frontierOf(configs, null, { state: 'unknown', changed: [] })[1].marks, ['default']);
  assert.deepEqual(frontierOf(configs, null, { state: 'invalid', changed: ['x'], error: 'e' })[1].marks, ['default']);
});

test('your settings: only compaction settings that differ from the defaults, resolved as a configuration file is', () => {
  assert.deepEqual(yourSettingsConfig(shippedSettings()), { state: 'default', changed: [] });
  // A setting at its default value, and settings a replay does not take (the model, the transcript folder), change nothing.
  const unchanged = shippedSettings(
    new Map<string, unknown>([
      ['autoCompact.threshold', shippedSettings().get('autoCompact.threshold')],
      ['model', 'claude-opus-4-6'],
      ['transcriptFolder', '/tmp/t'],
    ]),
  );
  assert.equal(yourSettingsConfig(unchanged).state, 'default');
  const mine = yourSettingsConfig(
    shippedSettings(
      new Map<string, unknown>([
        ['autoCompact.threshold', 0.5],
        ['microCompact.keepRecent', 7],
        ['summaryModel', 'claude-haiku-4-5'],
        ['promptCaching', '1h'],
      ]),
    ),
  );
  assert.equal(mine.state, 'replayed');
  if (mine.state !== 'replayed') return;
  assert.deepEqual(mine.changed.sort(), ['autoCompact.threshold', 'microCompact.keepRecent', 'promptCaching', 'summaryModel']);
  assert.equal(mine.config.name, 'your-settings');
  assert.match(mine.config.pipeline.autoCompact.trigger.description, /50% of the context window/);
  assert.equal(mine.config.pipeline.microCompact.keepRecent, 7);
  assert.equal(mine.config.summaryModel, 'claude-haiku-4-5');
  assert.equal(mine.config.promptCaching, '1h');
  assert.equal(mine.config.ledger, true, 'the extension carries the ledger');
  // A value the replay refuses is named, not replayed.
  const bad = yourSettingsConfig(shippedSettings(new Map<string, unknown>([['autoCompact.strategy', 'server-compact']])));
  assert.equal(bad.state, 'invalid');
  assert.match(
    bad.state === 'invalid' ? bad.error : '',
    /^your settings: autoCompact\.strategy: server-compact runs on Anthropic's servers/,
  );
});

test('the view carries each configuration probe rate, the frontier and what your settings are (an invalid one as a note)', () => {
  const config = (name: string, costUSD: number, probeRecall: number | null) =>
    ({
      name,
      costUSD,
      probeRecall,
      points: [],
      notes: [],
      calls: 1,
      compactions: probeRecall === null ? 0 : 1,
    }) as unknown as ReplayReport['configs'][number];
  const report = {
    window: 200_000,
    windowSource: 'model-table',
    recordedTtl: '5m',
    recorded: null,
    warnings: [],
    configs: [config('splitpoint-default', 2, null), config('your-settings', 1.5, 0.75)],
  } as unknown as ReplayReport;
  const yours = yourSettingsConfig(shippedSettings(new Map<string, unknown>([['autoCompact.threshold', 0.5]])));
  const view = replayView('f.jsonl', report, yours);
  assert.deepEqual(
    view.configs.map((c) => c.probeRecall),
    [null, 0.75],
  );
  assert.deepEqual(view.yourSettings, { state: 'replayed', changed: ['autoCompact.threshold'] });
  assert.deepEqual(
    view.frontier.map((p) => [p.name, p.onFrontier, p.marks]),
    [
      ['splitpoint-default', false, ['default']],
      ['your-settings', true, ['yours']],
    ],
  );
  const invalid = replayView('f.jsonl', report, { state: 'invalid', changed: ['autoCompact.strategy'], error: 'your settings: bad' });
  assert.equal(invalid.notes[0], 'your settings were not replayed: your settings: bad');
  assert.equal(replayView('f.jsonl', report).yourSettings.state, 'unknown');
});
