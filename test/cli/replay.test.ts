// `splitpoint replay` as users run it (the bundled CLI, a child process): the JSON contract, the
// built-in configurations, user configuration files and price overrides, and clear errors (exit 2)
// for a bad session file, a bad configuration and bad prices.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from '../../src/core/index';
import { serializeSplitpointJsonl } from '../../src/core/importers';
import type { ReplayJson } from '../../src/cli/replay';
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
  'pathRecall',
  'promptRecall',
  'summaryCostUSD',
  'priceSource',
  'costErrorVsRecorded',
];
/** Keys of every configuration whose value is always a number. */
const CONFIG_NUMBERS = CONFIG_KEYS.filter((k) => !['name', 'ledgerRecall', 'priceSource', 'costErrorVsRecorded'].includes(k));
const RECORDED_KEYS = ['calls', 'inputTokens', 'cacheReadTokens', 'cacheWriteTokens', 'outputTokens'];
const RECORDED_NUMBERS = [...RECORDED_KEYS, 'cacheWrite1hTokens', 'costUSD', 'costUSDAt5m'];
const WINDOW_SOURCES = ['recorded', 'inferred-from-usage', 'model-table', 'user'];
const PRICE_SOURCES = ['table', 'family-fallback', 'user'];
/** The built-ins in the order `replay` runs them. */
const BUILTINS = ['as-recorded', 'no-compaction', 'claude-code-like', 'codex-like', 'splitpoint-default'];
/** Configurations that carry Splitpoint's ledger (ledgerRecall a number; null for the others). */
const WITH_LEDGER = new Set(['splitpoint-default']);
const CLAUDE_CODE = 'test/fixtures/real-sessions/claude-code-cipher-box-a.jsonl';

const dir = mkdtempSync(join(tmpdir(), 'sp-replay-cli-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

/** A small Splitpoint JSONL recording: prompts and answers with recorded usage (about 2,000 + the visible input). */
function session(model = 'claude-sonnet-4-5'): string {
  const messages: Message[] = [];
  for (let k = 1; k <= 6; k++) {
    messages.push({ id: `u${k}`, role: 'user', content: `Please look at src/file${k}.ts and fix the bug number ${k}. `.repeat(20) });
    const usage = {
      inputTokens: 2_000 + 300 * k,
      cacheReadTokens: 0,
      cacheCreationTokens: 0,
      outputTokens: 12,
      model,
    };
    messages.push({ id: `a${k}`, role: 'assistant', content: [{ type: 'text', text: `Fixed bug ${k}.` }], usage });
  }
  const file = join(dir, `session-${model}.jsonl`);
  writeFileSync(file, serializeSplitpointJsonl(messages));
  return file;
}

const isFraction = (x: unknown) => typeof x === 'number' && x >= 0 && x <= 1;

/** The keys issue 21 added, with their types, on one `replay --json` answer. */
function assertContract(out: ReplayJson): void {
  assert.ok(WINDOW_SOURCES.includes(out.windowSource), `windowSource ${out.windowSource}`);
  assert.ok(Array.isArray(out.warnings) && out.warnings.every((w: unknown) => typeof w === 'string'));
  assert.ok(isFraction(out.cacheServedRatio), `cacheServedRatio ${out.cacheServedRatio}`);
  assert.ok(['5m', '1h'].includes(out.recordedTtl), `recordedTtl ${out.recordedTtl}`);
  assert.ok(Array.isArray(out.segments) && out.segments.length >= 1);
  for (const g of out.segments)
    for (const k of ['calls', 'overheadTokens', 'factor'] as const) assert.equal(typeof g[k], 'number', `segments.${k}`);
  const r = out.recorded!;
  for (const k of RECORDED_NUMBERS) assert.equal(typeof r[k], 'number', `recorded.${k}`);
  assert.ok(r.cacheWrite1hTokens >= 0 && r.cacheWrite1hTokens <= r.cacheWriteTokens);
  assert.ok(PRICE_SOURCES.includes(r.priceSource), `recorded.priceSource ${r.priceSource}`);
  assert.ok(Array.isArray(r.compactions));
  for (const c of r.compactions) {
    assert.equal(typeof c.call, 'number');
    assert.ok(c.preTokens === null || typeof c.preTokens === 'number');
    assert.ok(c.trigger === null || typeof c.trigger === 'string');
  }
  for (const c of out.configs) {
    for (const k of CONFIG_KEYS) assert.ok(k in c, `${c.name}: missing ${k}`);
    for (const k of CONFIG_NUMBERS) assert.equal(typeof c[k], 'number', `${c.name}.${k}`);
    assert.ok(c.costUSD > 0 && c.summaryCostUSD >= 0 && c.summaryCostUSD <= c.costUSD, c.name);
    assert.ok(isFraction(c.pathRecall) && isFraction(c.promptRecall), `${c.name}: recalls are fractions`);
    assert.ok(PRICE_SOURCES.includes(c.priceSource), `${c.name}.priceSource ${c.priceSource}`);
    if (WITH_LEDGER.has(c.name)) assert.ok(isFraction(c.ledgerRecall), `${c.name} carries the ledger: ledgerRecall a number`);
    else if (BUILTINS.includes(c.name)) assert.equal(c.ledgerRecall, null, `${c.name} carries no ledger: ledgerRecall null`);
    if (c.name === 'as-recorded') assert.equal(typeof c.costErrorVsRecorded, 'number', 'as-recorded: its error vs recorded');
    else assert.equal(c.costErrorVsRecorded, null, `${c.name}: costErrorVsRecorded only for as-recorded`);
    assert.ok(!('points' in c), 'the per-call points are not part of the CLI JSON');
  }
}

test('replay --json: the contract keys for every built-in configuration and the recorded usage', async () => {
  const file = session();
  const r = await runBuilt(...['replay', file, '--json']);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout) as ReplayJson;
  for (const k of ['file', 'window', 'recorded', 'configs']) assert.ok(k in out, `missing ${k}`);
  assert.equal(out.file, file);
  assert.equal(typeof out.window, 'number');
  assert.deepEqual(
    out.configs.map((c: { name: string }) => c.name),
    BUILTINS,
  );
  assertContract(out);
  const rec = out.recorded!;
  for (const k of RECORDED_KEYS) assert.equal(typeof rec[k], 'number', `recorded.${k}`);
  // Six calls, no compaction recorded: one segment over all of them, nothing written for an hour.
  assert.deepEqual(rec.compactions, []);
  assert.equal(
    out.segments.reduce((sum: number, g: { calls: number }) => sum + g.calls, 0),
    rec.calls,
  );
  assert.equal(rec.cacheWrite1hTokens, 0);
  assert.equal(rec.costUSD, rec.costUSDAt5m);
});

test('replay on a Claude Code recording: 1-hour writes priced as billed, its compaction, the as-recorded row', async () => {
  const raw = readFileSync(CLAUDE_CODE, 'utf8').split('\n');
  const boundaries = raw.filter((l) => l.includes('"subtype":"compact_boundary"')).length;
  const sum = (key: string) =>
    raw.reduce((total, l) => total + [...l.matchAll(new RegExp(`"${key}":(\\d+)`, 'g'))].reduce((t, m) => t + Number(m[1]), 0), 0);
  // What the file itself says: every cache write of this session has the 1-hour TTL.
  assert.ok(sum('ephemeral_1h_input_tokens') > 0 && sum('ephemeral_5m_input_tokens') === 0);
  const r = await runBuilt(...['replay', CLAUDE_CODE, '--config', 'as-recorded', '--config', 'claude-code-like', '--json']);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout) as ReplayJson;
  assertContract(out);
  const rec = out.recorded!;
  assert.equal(out.recordedTtl, '1h');
  assert.ok(rec.cacheWrite1hTokens > 0);
  assert.ok(rec.costUSD > rec.costUSDAt5m, 'a 1-hour write costs 2x, a 5-minute one 1.25x');
  assert.equal(rec.compactions.length, boundaries);
  assert.equal(out.segments.length, boundaries + 1, 'a calibration segment per part between recorded compactions');
  const asRecorded = out.configs[0];
  assert.equal(asRecorded.name, 'as-recorded');
  assert.equal(asRecorded.compactions, boundaries, 'the recording’s own compactions');
  assert.equal(asRecorded.calls, rec.calls);
  // Every warning of the report is on stderr, prefixed as the other commands' warnings are.
  for (const w of out.warnings) assert.ok(r.stderr.includes(`splitpoint: warning: ${w}`), w);

  const text = await runBuilt(...['replay', CLAUDE_CODE, '--config', 'as-recorded', '--config', 'claude-code-like']);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, new RegExp(`^window\\s+${out.window.toLocaleString('en-US')} tokens \\(`, 'm'));
  assert.match(text.stdout, /^cache\s+recorded TTL 1h/m);
  assert.match(text.stdout, new RegExp(`^calibration\\s+${boundaries + 1} segments`, 'm'));
  const pct = (x: number) => `${x < 0 ? '-' : '+'}${Math.abs(100 * x).toFixed(1)}% vs recorded`;
  const row = text.stdout.split('\n').find((l) => l.startsWith('as-recorded '))!;
  assert.ok(row.endsWith(pct(asRecorded.costErrorVsRecorded!)), row);
  const cc = text.stdout.split('\n').find((l) => l.startsWith('claude-code-like '))!;
  const probe = out.configs.find((c) => c.name === 'claude-code-like')!.probeRecall;
  const probeCell = probe === null ? '—' : `${(100 * probe).toFixed(0)}%`;
  assert.ok(cc.endsWith(probeCell), `path and prompt recall, no ledger recall, the JSON's probe recall: ${cc}`);
  assert.match(cc, /\d+%\s+\d+%\s+—\s+(\d+%|—)$/, 'path and prompt recall, no ledger recall, probe recall');
  assert.match(text.stdout, /^\(recorded\)\s/m);
});

test('replay of a model the price table lacks: priced by a fallback, said on stderr and in the JSON', async () => {
  const file = session('claude-fable-5');
  const r = await runBuilt(...['replay', file, '--config', 'codex-like', '--json']);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout) as ReplayJson;
  assertContract(out);
  assert.equal(out.recorded!.priceSource, 'family-fallback');
  assert.equal(out.configs[0].priceSource, 'family-fallback');
  assert.ok(
    out.warnings.some((w) => w.includes('claude-fable-5')),
    `a warning names the model: ${out.warnings.join('; ')}`,
  );
  const lines = r.stderr.split('\n').filter((l) => l.startsWith('splitpoint: warning: '));
  for (const w of out.warnings) assert.ok(lines.includes(`splitpoint: warning: ${w}`), `on stderr: ${w}`);
  const text = await runBuilt(...['replay', file, '--config', 'codex-like']);
  assert.equal(text.code, 0, text.stderr);
  assert.ok(!text.stdout.includes('warning'), 'warnings stay off stdout');
  for (const w of out.warnings) assert.ok(text.stderr.includes(`splitpoint: warning: ${w}\n`), w);
});

test('splitpoint --help lists replay with its flags', async () => {
  const r = await runBuilt('--help');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^ {2}splitpoint replay FILE \[--config NAME\|FILE \.\.\.\] \[--prices FILE\] \[--json\]$/m);
  const section = r.stdout.slice(r.stdout.indexOf('splitpoint replay'));
  assert.match(section, /--config NAME\|FILE .*repeatable/);
  for (const name of BUILTINS) assert.ok(section.includes(name), `the built-in ${name} is named`);
  assert.match(section, /--prices FILE /);
  assert.match(section, /--json /);
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
  assert.equal(base.configs[0].priceSource, 'table');
  assert.equal(doubled.configs[0].priceSource, 'user', "a --prices row is the user's price");
  assert.equal(doubled.recorded.priceSource, 'user');
  const text = await runBuilt(...['replay', file, '--config', cfg, '--config', 'codex-like']);
  assert.equal(text.code, 0, text.stderr);
  assert.match(
    text.stdout,
    /config\s+calls\s+compactions\s+peak context\s+input\s+cache read\s+cache write\s+output\s+cost\s+path recall\s+prompt recall\s+ledger recall/,
  );
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
  assert.ok(r.stderr.includes(`no-such-config: not a built-in configuration (${BUILTINS.join(', ')})`), r.stderr);
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

test('replay: summaryModel and summaryMaxTokens in a configuration file; the JSON says the model and the bound of the summaries', async () => {
  const write = (name: string, json: unknown) => {
    const f = join(dir, `${name}.json`);
    writeFileSync(f, JSON.stringify({ name, autoCompact: { threshold: 0.4 }, ...(json as object) }));
    return f;
  };
  const files = [write('own', {}), write('haiku', { summaryModel: 'claude-haiku-4-5' }), write('fixed', { summaryMaxTokens: 4096 })];
  const r = await runBuilt(...['replay', CLAUDE_CODE, ...files.flatMap((f) => ['--config', f]), '--json']);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout) as ReplayJson;
  const [own, haiku, fixed] = out.configs;
  assert.ok((own.summaryCalls as number) > 0, 'a threshold of 40% compacts this session');
  assert.equal(own.summaryModel, out.model, "the session's model by default");
  assert.equal(haiku.summaryModel, 'claude-haiku-4-5');
  assert.equal(own.summaryBound?.source, 'probes');
  assert.deepEqual(fixed.summaryBound, { min: 4096, max: 4096, source: 'setting' });
  assert.match((haiku.notes as string[]).join('\n'), /summaries by claude-haiku-4-5: the standalone prompt, uncached/);
  writeFileSync(files[0], JSON.stringify({ summaryMaxTokens: -5 }));
  const bad = await runBuilt(...['replay', CLAUDE_CODE, '--config', files[0]]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /own\.json: summaryMaxTokens: must be at least 0, got -5/);
});
