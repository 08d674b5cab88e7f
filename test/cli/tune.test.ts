// `splitpoint tune` as users run it (the bundled CLI and its worker, a child process): the JSON and
// --results contracts, the target taken from --settings (a settings.json with comments), the same
// answer with one worker as with two, and clear errors (exit 2) for a missing folder, an empty folder,
// a file in no known format, a bad --target-recall, --jobs or settings value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from '../../src/core/index';
import { serializeSplitpointJsonl } from '../../src/core/importers';
import type { TuneJson } from '../../src/cli/tuneReport';
import { runBuilt } from './builtCli';

const dir = mkdtempSync(join(tmpdir(), 'sp-tune-cli-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

/**
 * A Splitpoint recording whose recorded requests grow by `step` tokens a call up to 190,000 of a 200,000
 * window: the shipped threshold (0.8) compacts once near the end, lower ones earlier and more often.
 */
function session(name: string, step: number): string {
  const messages: Message[] = [];
  for (let k = 1; 2_000 + step * k < 190_000; k++) {
    const prompt =
      k % 3 === 1 ? `Never touch src/legacy${k}.ts; use the parser in src/parse${k}.ts instead. ` : `Fix bug ${k} in src/file${k}.ts. `;
    messages.push({ id: `u${k}`, role: 'user', content: prompt.repeat(15) });
    const usage = {
      inputTokens: 50,
      cacheReadTokens: 2_000 + step * k,
      cacheCreationTokens: 0,
      outputTokens: 40,
      model: 'claude-sonnet-4-5',
    };
    messages.push({
      id: `a${k}`,
      role: 'assistant',
      content: [{ type: 'text', text: `Fixed bug ${k}: the figure was ${k * 17} ms.` }],
      usage,
    });
  }
  const file = join(dir, name);
  writeFileSync(file, serializeSplitpointJsonl(messages));
  return file;
}

const SESSIONS = join(dir, 'sessions');
mkdirSync(SESSIONS);
const FILES = [session('sessions/one.jsonl', 9_000), session('sessions/two.jsonl', 14_000)];

const JSON_KEYS = [
  'files',
  'jobs',
  'elapsedMs',
  'replays',
  'configurationsTried',
  'target',
  'rateDefinition',
  'settingsFile',
  'current',
  'best',
  'bestSettings',
  'median',
  'sessions',
  'frontier',
  'tried',
  'steps',
  'passes',
  'skippedDimensions',
];
const ROW_KEYS = [
  'file',
  'configurationId',
  'role',
  'configuration',
  'costUSD',
  'calls',
  'compactions',
  'summaryCalls',
  'summaryCostUSD',
  'peakContextTokens',
  'inputTokens',
  'cacheReadTokens',
  'cacheWriteTokens',
  'outputTokens',
  'probeRecall',
  'pathRecall',
  'promptRecall',
  'stoppedAt',
  'costRatioVsCurrent',
  'costRatioVsClaudeCodeLike',
  'costRatioVsNoCompaction',
  'configCostUSD',
  'configRate',
  'configFeasible',
  'onFrontier',
];

/** What must not depend on the number of workers: everything but the timing and the jobs. */
const answer = (j: TuneJson) => ({ ...j, elapsedMs: 0, jobs: 0 });

test('tune DIR --json --results: the keys of the contract, one row per (session, configuration), the target from --settings', async () => {
  const settings = join(dir, 'settings.json');
  // A VS Code settings.json: comments, a trailing comma, settings of other extensions.
  writeFileSync(settings, '{\n  // mine\n  "editor.fontSize": 13,\n  "splitpoint.autoCompact.threshold": 0.7,\n}\n');
  const results = join(dir, 'results.jsonl');
  const r = await runBuilt('tune', SESSIONS, '--json', '--results', results, '--settings', settings, '--jobs', '2');
  assert.ok(r.code === 0 || r.code === 1, r.stderr);
  const j = JSON.parse(r.stdout) as TuneJson;
  assert.deepEqual(Object.keys(j), JSON_KEYS);
  assert.deepEqual(j.files, FILES);
  assert.equal(j.settingsFile, settings);
  assert.deepEqual(j.current.settings, { 'splitpoint.autoCompact.threshold': 0.7 });
  assert.equal(j.target.source, 'current-settings');
  assert.equal(j.target.recall, j.current.rate, 'the target is the current settings’ rate');
  assert.ok(j.current.compactedSessions > 0, 'the current settings compact on these sessions');
  assert.equal(j.tried.length, j.configurationsTried);
  assert.ok(j.tried.length > 5, `${j.tried.length} configurations tried`);
  if (j.best) {
    assert.ok(j.best.feasible && j.best.rate >= j.target.recall - 1e-9);
    assert.ok(j.best.costUSD <= j.current.costUSD);
    for (const t of j.tried) if (t.feasible) assert.ok(t.costUSD >= j.best.costUSD - 1e-9, 'no feasible configuration tried is cheaper');
    assert.ok(j.frontier.some((f) => f.id === j.best!.id) || j.best.rate < 1);
  }
  const lines = readFileSync(results, 'utf8').trim().split('\n');
  assert.equal(lines.length, FILES.length * (j.configurationsTried + 2), 'every configuration tried and the two baselines, per session');
  const rows = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  for (const row of rows) assert.deepEqual(Object.keys(row), ROW_KEYS);
  const current = rows.filter((x) => x.role === 'current');
  assert.equal(current.length, FILES.length);
  for (const row of current) {
    assert.equal(row.costRatioVsCurrent, 1);
    assert.equal((row.configuration as Record<string, unknown>)['splitpoint.autoCompact.threshold'], 0.7);
  }
  assert.equal(rows.filter((x) => x.role === 'baseline').length, 2 * FILES.length);
  // The per-configuration figures are the sums and means of its rows.
  for (const t of j.tried) {
    const mine = rows.filter((x) => x.configurationId === t.id);
    const sum = mine.reduce((s, x) => s + (x.costUSD as number), 0);
    assert.ok(Math.abs(sum - t.costUSD) < 1e-9);
    const rate = mine.reduce((s, x) => s + ((x.probeRecall as number | null) ?? 1), 0) / mine.length;
    assert.ok(Math.abs(rate - t.rate) < 1e-9);
  }
});

test('one worker gives the same answer as two (each replay is a pure function of session and configuration)', async () => {
  const files = [...FILES, 'test/fixtures/real-sessions/claude-code-cipher-box-a.jsonl'];
  const one = await runBuilt('tune', ...files, '--json', '--jobs', '1', '--target-recall', '0.5');
  const two = await runBuilt('tune', ...files, '--json', '--jobs', '2', '--target-recall', '0.5');
  assert.equal(one.code, two.code, one.stderr + two.stderr);
  const a = JSON.parse(one.stdout) as TuneJson;
  const b = JSON.parse(two.stdout) as TuneJson;
  assert.equal(a.jobs, 1);
  assert.equal(b.jobs, 2);
  assert.equal(a.target.source, 'option');
  assert.deepEqual(answer(a), answer(b));
  // Without a terminal, progress is a plain line per step on stderr.
  assert.match(two.stderr, /^splitpoint: tune: current settings: 1 configuration x 3 sessions in [0-9.]+ s$/m);
});

test('the text output: the settings block, the per-session table and the frontier', async () => {
  const r = await runBuilt('tune', FILES[0], '--target-recall', '0', '--jobs', '1');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^tune: 1 session, 1 job, \d+ configurations tried \(\d+ replays\)/);
  assert.match(r.stdout, /^target: probe answerable rate >= 0\.000 \(--target-recall\)$/m);
  const block = /^\{\n[\s\S]*?\n\}$/m.exec(r.stdout);
  assert.ok(block, r.stdout);
  for (const key of Object.keys(JSON.parse(block[0]) as object)) assert.match(key, /^splitpoint\./);
  assert.match(r.stdout, /^session +best +current +claude-code-like +no-compaction/m);
  assert.match(r.stdout, /^one\.jsonl /m);
  assert.match(r.stdout, /^frontier \(cost vs rate/m);
  // One line per point of the frontier: configurations with the same cost and rate are counted on it.
  const json = JSON.parse((await runBuilt('tune', FILES[0], '--target-recall', '0', '--jobs', '1', '--json')).stdout) as TuneJson;
  const points = new Set(json.frontier.map((f) => `${f.costUSD.toFixed(2)} ${f.rate.toFixed(3)}`));
  const lines = r.stdout
    .slice(r.stdout.indexOf('\nfrontier ('))
    .split('\n')
    .filter((l) => /^[* ] +\$\d/.test(l));
  assert.equal(lines.length, points.size, r.stdout);
  const counted = lines.reduce((n, l) => n + 1 + Number(/\(and (\d+) more at the same cost and rate\)$/.exec(l)?.[1] ?? 0), 0);
  assert.equal(counted, json.frontier.length, r.stdout);
});

test('bad input exits 2 naming it: a missing or empty folder, a file in no known format, bad options and settings', async () => {
  const empty = join(dir, 'empty');
  mkdirSync(empty);
  const garbage = join(dir, 'garbage.jsonl');
  writeFileSync(garbage, 'this is not a session\n');
  const badSettings = join(dir, 'bad-settings.json');
  writeFileSync(badSettings, '{"splitpoint.autoCompact.threshold": 3}');
  const brokenSettings = join(dir, 'broken-settings.json');
  writeFileSync(brokenSettings, '{"splitpoint.autoCompact.threshold": ');
  const cases: Array<[string[], RegExp]> = [
    [[join(dir, 'nowhere')], /nowhere: file or folder not found/],
    [[empty], /empty: the folder holds no \.jsonl or \.json session file/],
    [[FILES[0], garbage], /garbage\.jsonl/],
    [[FILES[0], '--target-recall', '1.5'], /--target-recall must be a number from 0 to 1.*"1\.5"/],
    [[FILES[0], '--target-recall', 'most'], /--target-recall must be a number from 0 to 1/],
    [[FILES[0], '--jobs', '0'], /--jobs must be a positive integer/],
    [[FILES[0], '--settings', badSettings], /bad-settings\.json: autoCompact\.threshold: must be at most 0\.99, got 3/],
    [[FILES[0], '--settings', brokenSettings], /broken-settings\.json: not valid JSON with comments/],
    [[FILES[0], '--settings', join(dir, 'no-settings.json')], /no-settings\.json: file not found/],
    [[], /tune needs session FILES or a DIR/],
  ];
  for (const [args, pattern] of cases) {
    const r = await runBuilt('tune', ...args, ...(args.includes('--jobs') ? [] : ['--jobs', '1']));
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, pattern, args.join(' '));
    assert.equal(r.stdout, '');
  }
});
