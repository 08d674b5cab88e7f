// `splitpoint replay` as users run it (the bundled CLI, a child process): the JSON contract, the
// built-in configurations, user configuration files and price overrides, and clear errors (exit 2)
// for a bad session file, a bad configuration and bad prices.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from '../../src/core/index';
import { serializeSplitpointJsonl } from '../../src/core/importers';
import { runBuilt } from './builtCli';

const CONFIG_KEYS = [
  'name',
  'calls',
  'compactions',
  'peakContextTokens',
  'inputTokens',
  'cacheReadTokens',
  'cacheWriteTokens',
  'outputTokens',
  'costUSD',
  'ledgerRecall',
];
const RECORDED_KEYS = ['calls', 'inputTokens', 'cacheReadTokens', 'cacheWriteTokens', 'outputTokens'];

const dir = mkdtempSync(join(tmpdir(), 'sp-replay-cli-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

/** A small Splitpoint JSONL recording: prompts and answers with recorded usage (about 2,000 + the visible input). */
function session(): string {
  const messages: Message[] = [];
  for (let k = 1; k <= 6; k++) {
    messages.push({ id: `u${k}`, role: 'user', content: `Please look at src/file${k}.ts and fix the bug number ${k}. `.repeat(20) });
    const usage = {
      inputTokens: 2_000 + 300 * k,
      cacheReadTokens: 0,
      cacheCreationTokens: 0,
      outputTokens: 12,
      model: 'claude-sonnet-4-5',
    };
    messages.push({ id: `a${k}`, role: 'assistant', content: [{ type: 'text', text: `Fixed bug ${k}.` }], usage });
  }
  const file = join(dir, 'session.jsonl');
  writeFileSync(file, serializeSplitpointJsonl(messages));
  return file;
}

test('replay --json: the contract keys for every built-in configuration and the recorded usage', async () => {
  const file = session();
  const r = await runBuilt(...['replay', file, '--json']);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  for (const k of ['file', 'window', 'recorded', 'configs']) assert.ok(k in out, `missing ${k}`);
  assert.equal(out.file, file);
  assert.equal(typeof out.window, 'number');
  if (out.recorded !== null) for (const k of RECORDED_KEYS) assert.equal(typeof out.recorded[k], 'number', `recorded.${k}`);
  assert.deepEqual(
    out.configs.map((c: { name: string }) => c.name),
    ['no-compaction', 'claude-code-like', 'codex-like', 'splitpoint-default'],
  );
  for (const c of out.configs) {
    for (const k of CONFIG_KEYS) assert.ok(k in c, `${c.name}: missing ${k}`);
    for (const k of CONFIG_KEYS.slice(1)) assert.equal(typeof c[k], 'number', `${c.name}.${k}`);
    assert.ok(c.costUSD > 0 && c.ledgerRecall >= 0 && c.ledgerRecall <= 1);
    assert.ok(!('points' in c), 'the per-call points are not part of the CLI JSON');
  }
});

test('replay with a user configuration file, twice the price, and the text table', async () => {
  const file = session();
  const cfg = join(dir, 'mine.json');
  writeFileSync(
    cfg,
    JSON.stringify({ name: 'mine', promptCaching: 'off', autoCompact: { enabled: false }, microCompact: { enabled: false } }),
  );
  const prices = join(dir, 'prices.json');
  writeFileSync(prices, JSON.stringify({ 'claude-sonnet-4-5': { input: 6, output: 30 } }));
  const base = JSON.parse((await runBuilt(...['replay', file, '--config', cfg, '--json'])).stdout);
  const doubled = JSON.parse((await runBuilt(...['replay', file, '--config', cfg, '--prices', prices, '--json'])).stdout);
  assert.equal(base.configs[0].name, 'mine');
  assert.equal(base.configs[0].cacheReadTokens, 0, 'caching off: nothing read from the cache');
  assert.ok(Math.abs(doubled.configs[0].costUSD - 2 * base.configs[0].costUSD) < 1e-9);
  const text = await runBuilt(...['replay', file, '--config', cfg, '--config', 'codex-like']);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /config\s+calls\s+compactions\s+peak context\s+input\s+cache read\s+cache write\s+output\s+cost\s+recall/);
  assert.match(text.stdout, /^mine\s+6\s/m);
  assert.match(text.stdout, /^codex-like\s+6\s/m);
});

test('replay: a bad session file, configuration or price file exits 2 naming the file and the field', async () => {
  const file = session();
  const bad = join(dir, 'bad.json');
  writeFileSync(bad, JSON.stringify({ autoCompact: { threshold: 3 } }));
  let r = await runBuilt(...['replay', file, '--config', bad]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /bad\.json: autoCompact\.threshold: must be at most 0\.99, got 3/);
  writeFileSync(bad, JSON.stringify({ strategyParams: { 'preserve-user-messages': { maxUserTokens: 0 } } }));
  r = await runBuilt(...['replay', file, '--config', bad]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /bad\.json: strategyParams\.preserve-user-messages: .*maxUserTokens must be >= 1/);
  writeFileSync(bad, '{"model": "x"}');
  r = await runBuilt(...['replay', file, '--config', bad]);
  assert.match(r.stderr, /bad\.json: model: is not a compaction setting/);
  r = await runBuilt(...['replay', file, '--config', 'no-such-config']);
  assert.equal(r.code, 2);
  assert.match(
    r.stderr,
    /no-such-config: not a built-in configuration \(no-compaction, claude-code-like, codex-like, splitpoint-default\)/,
  );
  writeFileSync(bad, '{"claude": {"input": -1}}');
  r = await runBuilt(...['replay', file, '--prices', bad]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /bad\.json: claude\.input: must be a non-negative number/);
  const broken = join(dir, 'broken.json');
  writeFileSync(broken, '{"messages": [');
  r = await runBuilt(...['replay', broken]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /broken\.json/);
  r = await runBuilt(...['replay', join(dir, 'missing.jsonl')]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /missing\.jsonl: file not found/);
});
