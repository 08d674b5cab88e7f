// The calibration store alone: per-model snapshots in one JSON file, round trips, and defaults
// for a missing, corrupt or invalid file or entry.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CalibrationStore } from '../../src/agent/service/calibrationStore';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core';

function store(file = join(mkdtempSync(join(tmpdir(), 'sp-calib-')), 'calibration.json')) {
  const warnings: string[] = [];
  const s = new CalibrationStore(file, new MemoizedMessageCounter(new CharEstimateTokenizer()), { warn: (m) => warnings.push(m) });
  return { s, file, warnings };
}

test('a saved calibration loads back with the same prefix and factor after a restart', () => {
  const { s, file } = store();
  const c = s.load('claude-a');
  assert.equal(c.factor, 1);
  assert.equal(c.prefix, 0);
  assert.ok(c.observe(10_000, 32_000));
  assert.ok(c.observe(20_000, 45_000));
  s.save('claude-a', c);
  const reloaded = store(file).s.load('claude-a');
  assert.equal(reloaded.factor, c.factor);
  assert.equal(reloaded.prefix, c.prefix);
  assert.equal(reloaded.observations, 2);
  assert.notEqual(reloaded.factor, 1);
  assert.equal(reloaded.estimate(30_000), c.estimate(30_000));
});

test('an entry in the old format (version 1, a factor only) is ignored with a log line and replaced on save', () => {
  const { s, file, warnings } = store();
  writeFileSync(file, JSON.stringify({ 'claude-a': { version: 1, factor: 1.3, observations: 12, model: 'claude-a' } }));
  const c = s.load('claude-a');
  assert.equal(c.observations, 0);
  assert.equal(c.factor, 1);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /calibration for claude-a is in the old format/);
  c.observe(10_000, 30_000);
  s.save('claude-a', c);
  const saved = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { version: number }>;
  assert.equal(saved['claude-a']!.version, 2);
  assert.equal(store(file).s.load('claude-a').estimate(10_000), 30_000);
});

test('calibrations are kept per model: saving one model keeps the others', () => {
  const { s, file } = store();
  const a = s.load('claude-a');
  a.observe(10_000, 12_000);
  a.observe(20_000, 26_000);
  s.save('claude-a', a);
  const b = s.load('claude-b');
  assert.equal(b.factor, 1, 'a model without an entry starts from the default');
  b.observe(10_000, 8_000);
  b.observe(20_000, 15_000);
  s.save('claude-b', b);
  const all = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { factor: number }>;
  assert.deepEqual(Object.keys(all).sort(), ['claude-a', 'claude-b']);
  assert.equal(s.load('claude-a').factor, a.factor);
  assert.equal(s.load('claude-b').factor, b.factor);
  assert.notEqual(a.factor, b.factor);
});

test('a missing or corrupt file gives the default factor; the next save replaces a corrupt file', () => {
  const missing = store();
  assert.equal(missing.s.load('m').factor, 1);
  assert.deepEqual(missing.warnings, []);

  const corrupt = store();
  writeFileSync(corrupt.file, '{ not json');
  assert.equal(corrupt.s.load('m').factor, 1);
  const c = corrupt.s.load('m');
  c.observe(10_000, 15_000);
  corrupt.s.save('m', c);
  assert.equal(corrupt.s.load('m').factor, c.factor);

  const array = store();
  writeFileSync(array.file, '[1, 2]');
  assert.equal(array.s.load('m').factor, 1);
});

test('an invalid entry for a model is ignored with a warning; other models still load', () => {
  const { s, file, warnings } = store();
  const good = s.load('good');
  good.observe(10_000, 11_000);
  s.save('good', good);
  const all = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  all.bad = { version: 99, factor: 'x' };
  writeFileSync(file, JSON.stringify(all));
  assert.equal(s.load('bad').factor, 1);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /Ignoring the saved calibration for bad/);
  assert.equal(s.load('good').factor, good.factor);
});

test('a save that cannot write warns instead of throwing', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sp-calib-'));
  const { s, warnings } = store(join(dir, 'missing-dir', 'nested', 'calibration.json'));
  writeFileSync(join(dir, 'missing-dir'), 'a file where a folder should be');
  assert.doesNotThrow(() => s.save('m', s.load('m')));
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /Could not save the token calibration/);
});
