// `inspect` and `plan` on the window from the evidence and prices as billed: a Claude Code recording whose
// call read 303,594 tokens ran with the 1M window (never shown over 100% of a 200K one), windowSource in
// both JSONs, plan's cost preview priced on the recording's calibrated counts with the cache its last call
// left (not assumed) and its priceSource, and a warning on stderr when a fallback price is used.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../src/cli/main';

const ONE_M = 'test/fixtures/window-1m/claude-code-1m-window.jsonl';
const REAL_A = 'test/fixtures/real-sessions/claude-code-cipher-box-a.jsonl';

async function cli(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), readFile: (p) => readFileSync(p, 'utf8') });
  return { code, stdout, stderr };
}

/** The usages of a Claude Code file's assistant lines, in file order. */
function rawUsages(file: string): Array<{ input_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number }> {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.includes('"usage"'))
    .map((l) => JSON.parse(l))
    .filter((j) => j.type === 'assistant' && j.message?.usage)
    .map((j) => j.message.usage);
}
const requestOf = (u: ReturnType<typeof rawUsages>[number]) => u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;

test('inspect: a 303,594-token Claude Code call proves the 1M window; text and JSON say so and never exceed 100%', async () => {
  const largest = Math.max(...rawUsages(ONE_M).map(requestOf));
  assert.equal(largest, 303_594);
  const json = await cli('inspect', ONE_M, '--json');
  assert.equal(json.code, 0, json.stderr);
  const s = JSON.parse(json.stdout);
  assert.equal(s.windowSource, 'inferred-from-usage');
  assert.equal(s.contextWindow, 1_000_000);
  assert.equal(s.recordedInputTokens, requestOf(rawUsages(ONE_M).at(-1)!));
  assert.ok(s.recordedInputTokens / s.contextWindow <= 1);
  assert.match(s.windowNote, /a recorded call read 303,594 tokens, more than the 200,000 window the table gives claude-opus-4-6/);
  const text = await cli('inspect', ONE_M);
  assert.match(text.stdout, /of a 1,000,000 window \(inferred from recorded usage\)$/m);
  assert.match(text.stdout, /^window {7}a recorded call read 303,594 tokens, more than the 200,000 window/m);
  const shares = [...text.stdout.matchAll(/\((\d+\.\d)%\)/g)].map((m) => Number(m[1]));
  assert.ok(shares.length > 0 && shares.every((p) => p <= 100), `shares ${shares.join(', ')}`);
  // --window is the user's; the contradiction is said.
  const given = JSON.parse((await cli('inspect', ONE_M, '--json', '--window', '200000')).stdout);
  assert.deepEqual([given.contextWindow, given.windowSource], [200_000, 'user']);
  assert.match(given.windowNote, /read 303,594 tokens in one call, more than the 200,000 window given/);
  const givenText = await cli('inspect', ONE_M, '--window', '200000');
  assert.match(givenText.stdout, /window \(given with --window\)$/m);
  // The real recordings: their table window (Claude) or their recorded one (Codex), no contradiction.
  const real = JSON.parse((await cli('inspect', REAL_A, '--json')).stdout);
  assert.deepEqual([real.contextWindow, real.windowSource, real.windowNote], [200_000, 'model-table', null]);
  const codex = JSON.parse((await cli('inspect', 'test/fixtures/real-sessions/codex-agentv-a.jsonl', '--json')).stdout);
  assert.equal(codex.windowSource, 'recorded');
});

test('plan --json: windowSource, and the cost priced on calibrated counts with the recorded cache (not assumed), from the table', async () => {
  const r = await cli('plan', ONE_M, '--strategy', 'sliding-window', '--param', 'maxEvents=4', '--json');
  assert.equal(r.code, 0, r.stderr);
  const plan = JSON.parse(r.stdout);
  assert.deepEqual([plan.contextWindow, plan.windowSource], [1_000_000, 'inferred-from-usage']);
  assert.equal(plan.cost.priceSource, 'table');
  assert.equal(plan.cost.cacheAssumed, false);
  assert.equal(plan.costCounts, 'calibrated');
  assert.doesNotMatch(r.stderr, /no price in the table/);

  // A real Claude Code session: the recorded last call left read + write in the cache. Local o200k counts
  // of the context are far below it; the calibrated request holds it (within the calibration's error: the
  // cached prefix priced is at most the request's calibrated size).
  const last = rawUsages(REAL_A).at(-1)!;
  const cached = last.cache_read_input_tokens + last.cache_creation_input_tokens;
  const real = JSON.parse((await cli('plan', REAL_A, '--strategy', 'sliding-window', '--param', 'maxEvents=10', '--json')).stdout);
  assert.equal(real.costCounts, 'calibrated');
  assert.ok(real.tokensBefore < cached, `o200k ${real.tokensBefore} < recorded cache ${cached}`);
  assert.ok(Math.abs(real.cost.cachedPrefixTokens - cached) <= cached * 0.02, `${real.cost.cachedPrefixTokens} vs recorded ${cached}`);
  assert.equal(real.cost.cacheAssumed, false);
  assert.equal(real.cost.model, 'claude-opus-4-6');
  const priced = real.cost.cachedPrefixTokens;
  assert.ok(
    real.notes.some((n: string) => n.startsWith(`cache: invalidates ${real.cost.invalidatedCachedTokens} of ${priced} cached tokens;`)),
  );
  // The table says it too, without "(assumed)".
  const table = await cli('plan', REAL_A, '--strategy', 'sliding-window', '--param', 'maxEvents=10');
  assert.match(table.stdout, new RegExp(`^cost .* of ${priced} cached tokens; `, 'm'));
  assert.match(table.stdout, /^window {5}200000 \(the model's standard window\)$/m);
});

test('plan: a model priced by a family fallback says so on stderr and in cost.priceSource; an unknown cache is still assumed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sp-price-'));
  const messages = [
    { role: 'user', content: `Explain the parser. ${'The tokenizer splits every line. '.repeat(200)}` },
    { role: 'assistant', content: 'It splits lines.' },
    { role: 'user', content: 'Thanks.' },
  ];
  for (const [model, source, warned] of [
    ['claude-fable-5', 'family-fallback', true],
    ['claude-opus-4-8', 'family-fallback', true],
    ['claude-sonnet-4-5', 'table', false],
  ] as const) {
    const file = join(dir, `${model}.json`);
    writeFileSync(file, JSON.stringify({ model, messages }));
    const r = await cli('plan', file, '--strategy', 'sliding-window', '--param', 'maxEvents=1', '--json');
    assert.equal(r.code, 0, r.stderr);
    const plan = JSON.parse(r.stdout);
    assert.equal(plan.cost.priceSource, source, model);
    assert.equal(plan.cost.cacheAssumed, true, 'no recorded usage: the cache is assumed');
    assert.equal(plan.costCounts, 'local');
    assert.equal(plan.windowSource, 'model-table');
    const warning = new RegExp(`^splitpoint: warning: ${model}: no price in the table; priced as the claude-[a-z*-]+ family's price`, 'm');
    if (warned) assert.match(r.stderr, warning);
    else assert.doesNotMatch(r.stderr, /no price in the table/);
  }
});
