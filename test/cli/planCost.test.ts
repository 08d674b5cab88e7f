// `splitpoint plan --json` carries the plan's cost with the prompt cache, checked here by hand from
// Claude Sonnet's price list ($3 input, $0.30 cache read, $3.75 5-minute write per million tokens) and
// the per-message token counts the same JSON reports.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../src/cli/main';

async function cli(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), readFile: (p) => readFileSync(p, 'utf8') });
  return { code, stdout, stderr };
}

interface Entry {
  id: string;
  index: number;
  tokens: number;
}

const close = (a: number, b: number) => Math.abs(a - b) < 1e-12;

test('plan --json: cost = cached tokens invalidated, next request USD before/after, payback turns (the previous request assumed cached)', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'sp-plancost-')), 'request.json');
  const messages = [
    { role: 'user', content: `Explain the parser. ${'The tokenizer splits every line into words and numbers. '.repeat(300)}` },
    { role: 'assistant', content: `It works like this. ${'Each word is looked up in the table of keywords. '.repeat(200)}` },
    { role: 'user', content: `And the printer? ${'Please show where the output is formatted. '.repeat(100)}` },
    { role: 'assistant', content: `The printer formats it. ${'Columns are padded to the widest cell. '.repeat(100)}` },
    { role: 'user', content: 'Thanks, now fix the bug.' },
  ];
  writeFileSync(file, JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 1024, messages }));
  const r = await cli('plan', file, '--strategy', 'sliding-window', '--param', 'maxEvents=1', '--json');
  assert.equal(r.code, 0, r.stderr);
  const plan = JSON.parse(r.stdout);
  // Existing keys are still there.
  for (const key of ['strategy', 'params', 'tokensBefore', 'tokensAfter', 'kept', 'archived', 'messages', 'request'])
    assert.ok(key in plan, key);
  const entries: Entry[] = [...plan.entries.kept, ...plan.entries.archived].sort((a: Entry, b: Entry) => a.index - b.index);
  assert.equal(entries.length, 5);
  // The previous request was messages 0..2 (before the last assistant message): assumed cached whole.
  const cached = entries[0].tokens + entries[1].tokens + entries[2].tokens;
  assert.ok(cached >= 1024, 'long enough to be cached');
  const { cost } = plan;
  assert.equal(cost.cacheAssumed, true);
  assert.equal(cost.model, 'claude-sonnet-4-5');
  assert.equal(cost.cachedPrefixTokens, cached);
  // The plan archives from message 0: the whole cached prefix is invalidated.
  assert.deepEqual(plan.archived.slice(0, 1), [entries[0].id]);
  assert.equal(cost.invalidatedCachedTokens, cached);
  // Before: the cached prefix read, the rest (the last two messages) written.
  const before = (cached * 0.3 + (plan.tokensBefore - cached) * 3.75) / 1e6;
  assert.ok(close(cost.nextRequestUSD.before, before), `${cost.nextRequestUSD.before} vs ${before}`);
  // After: nothing cached; the short request (under Sonnet's 1,024-token minimum) is not cached either: input price.
  assert.ok(plan.tokensAfter < 1024);
  const after = (plan.tokensAfter * 3) / 1e6;
  assert.ok(close(cost.nextRequestUSD.after, after), `${cost.nextRequestUSD.after} vs ${after}`);
  // Cheaper at once.
  assert.ok(after < before);
  assert.equal(cost.paybackTurns, 0);
  assert.ok(plan.notes.some((n: string) => n.startsWith('cache: invalidates') && n.includes('(assumed')));
  // The table shows it too.
  const table = await cli('plan', file, '--strategy', 'sliding-window', '--param', 'maxEvents=1');
  assert.match(
    table.stdout,
    /^cost\s+next request \$\d+\.\d{4} -> \$\d+\.\d{4}; invalidates \d+ of \d+ cached tokens \(assumed\); cheaper at once$/m,
  );
});

test('plan --json on micro-compact: the batch decision and the cost priced against what is already cleared', async () => {
  const r = await cli(
    'plan',
    'test/fixtures/sessions/claude-code-session.jsonl',
    '--strategy',
    'micro-compact',
    '--param',
    'keepRecent=0',
    '--json',
  );
  assert.equal(r.code, 0, r.stderr);
  const plan = JSON.parse(r.stdout);
  assert.ok(['cleared', 'held', 'none'].includes(plan.microCompaction.action));
  assert.equal(plan.microCompaction.cacheAware, true);
  // The recording's last call says what it left in the cache (its cache read + write): the cache is weighed, not assumed.
  const lastUsage = readFileSync('test/fixtures/sessions/claude-code-session.jsonl', 'utf8')
    .split('\n')
    .filter((l) => l.includes('"usage"'))
    .map((l) => JSON.parse(l).message.usage)
    .at(-1);
  const recordedCache = lastUsage.cache_read_input_tokens + lastUsage.cache_creation_input_tokens;
  assert.notEqual(plan.microCompaction.cache, null);
  assert.equal(plan.cost.cacheAssumed, false);
  assert.ok(plan.microCompaction.cache.cachedPrefixTokens > 0 && plan.microCompaction.cache.cachedPrefixTokens <= recordedCache);
  assert.equal(typeof plan.cost.nextRequestUSD.before, 'number');
  assert.deepEqual(plan.params, {
    keepRecent: 0,
    minChars: 100,
    triggerTokens: 0,
    clearAtLeast: 0,
    cacheAware: 1,
    horizonTurns: 10,
    supersede: 0,
  });
});
