// The plain part of "Splitpoint: Apply Tuned Settings…": reading the block tune printed (alone, inside
// tune's text output, or tune's --json), checking every key against the settings' schema with an error
// naming the key, and the diff against the user's global values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeChange, diffDocuments, parseTunedSettings, tunedDiff, TunedSettingsError } from '../../src/settings/applyTuned';

const BLOCK = '{\n  "splitpoint.autoCompact.threshold": 0.6,\n  "splitpoint.microCompact.keepRecent": 1\n}';

test('the block is read alone, from tune’s text output, and from tune’s --json', () => {
  const expected = new Map<string, unknown>([
    ['splitpoint.autoCompact.threshold', 0.6],
    ['splitpoint.microCompact.keepRecent', 1],
  ]);
  assert.deepEqual(parseTunedSettings(BLOCK, 'clip'), expected);
  const text = `tune: 5 sessions\nbest: $50.31\n\nSettings (paste into settings.json):\n${BLOCK}\n\nsession  best\n`;
  assert.deepEqual(parseTunedSettings(text, 'clip'), expected);
  const json = JSON.stringify({ files: ['a'], bestSettings: JSON.parse(BLOCK), best: { id: 'x' } });
  assert.deepEqual(parseTunedSettings(json, 'tune.json'), expected);
});

test('every key is checked against the schema; the error names the source and the key', () => {
  const bad = (text: string, pattern: RegExp) =>
    assert.throws(
      () => parseTunedSettings(text, 'tuned.json'),
      (e: unknown) => e instanceof TunedSettingsError && pattern.test(e.message),
    );
  bad('{"splitpoint.autoCompact.threshold": 3}', /^tuned\.json: splitpoint\.autoCompact\.threshold: must be at most 0\.99, got 3$/);
  bad('{"splitpoint.autoCompact.treshold": 0.5}', /splitpoint\.autoCompact\.treshold: is not a setting/);
  bad('{"splitpoint.promptCaching": "2h"}', /splitpoint\.promptCaching: must be one of "5m", "1h", "auto", "off"/);
  bad('{"splitpoint.baseUrl": "http://x"}', /splitpoint\.baseUrl: is not a compaction setting/);
  bad('{"editor.fontSize": 12}', /editor\.fontSize: is not a Splitpoint setting/);
  bad('{"splitpoint.strategyParams": {"sliding-window": {"maxEvents": -1}}}', /strategyParams\.sliding-window/);
  bad('{"splitpoint.microCompact.keepRecent": 1.5}', /keepRecent: must be integer/);
  bad('no json here', /^tuned\.json: /);
  bad('{}', /sets no setting/);
  bad(JSON.stringify({ bestSettings: null }), /bestSettings: is null/);
});

test('the diff lists what changes against the user’s global values; equal values are left out', () => {
  const proposed = parseTunedSettings(
    '{"splitpoint.autoCompact.threshold": 0.7, "splitpoint.microCompact.keepRecent": 1, "splitpoint.promptCaching": "1h"}',
    'clip',
  );
  const user: Record<string, unknown> = { 'splitpoint.microCompact.keepRecent': 1, 'splitpoint.promptCaching': '5m' };
  const changes = tunedDiff(proposed, (k) => user[k]);
  assert.deepEqual(changes, [
    { key: 'splitpoint.autoCompact.threshold', from: undefined, effectiveFrom: 0.6, to: 0.7 },
    { key: 'splitpoint.promptCaching', from: '5m', effectiveFrom: '5m', to: '1h' },
  ]);
  assert.equal(describeChange(changes[0]), 'splitpoint.autoCompact.threshold: 0.6 (default) → 0.7');
  assert.equal(describeChange(changes[1]), 'splitpoint.promptCaching: "5m" → "1h"');
  const docs = diffDocuments(changes);
  assert.deepEqual(JSON.parse(docs.before), { 'splitpoint.autoCompact.threshold': 0.6, 'splitpoint.promptCaching': '5m' });
  assert.deepEqual(JSON.parse(docs.after), { 'splitpoint.autoCompact.threshold': 0.7, 'splitpoint.promptCaching': '1h' });
  // A block value equal to the default still writes when the user set another value (it resets it).
  const reset = tunedDiff(new Map([['splitpoint.autoCompact.threshold', 0.6]]), () => 0.7);
  assert.equal(reset.length, 1);
  assert.equal(tunedDiff(new Map([['splitpoint.autoCompact.threshold', 0.6]]), () => undefined).length, 0);
});
