// The splitpoint CLI: each input format, each kind of malformed input, plan output as table and JSON.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { runCli } from '../src/cli/main';
import { toApiMessages, type Message } from '../src/core/conversation/conversation';
import { requestViolations } from '../src/core/conversation/invariants';
import { STRATEGY_NAMES } from '../src/core/strategies';

async function cli(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), readFile: (p) => readFileSync(p, 'utf8') });
  return { code, stdout, stderr };
}

const S = 'test/fixtures/sessions';
const M = 'test/fixtures/malformed';

test('strategies lists every strategy with its parameters and defaults', async () => {
  const r = await cli('strategies');
  assert.equal(r.code, 0);
  for (const name of STRATEGY_NAMES) assert.match(r.stdout, new RegExp(`^${name}`, 'm'));
  assert.match(r.stdout, /--param maxUserTokens=20000/);
  assert.match(r.stdout, /--param overlapSize=2/);
  const json = JSON.parse((await cli('strategies', '--json')).stdout);
  assert.deepEqual(
    json.map((s: { name: string }) => s.name),
    STRATEGY_NAMES,
  );
});

for (const [file, format] of [
  ['splitpoint-session.jsonl', 'splitpoint-jsonl'],
  ['anthropic-request.json', 'anthropic-json'],
  ['anthropic-messages.json', 'anthropic-json'],
  ['claude-code-session.jsonl', 'claude-code-jsonl'],
  ['codex-rollout.jsonl', 'codex-rollout-jsonl'],
] as const) {
  test(`plan --json reads ${format} (${file}) and returns a valid plan`, async () => {
    const r = await cli('plan', `${S}/${file}`, '--strategy', 'sliding-window', '--param', 'maxEvents=2', '--json');
    assert.equal(r.code, 0, r.stderr);
    const plan = JSON.parse(r.stdout);
    assert.equal(plan.format, format);
    assert.equal(plan.strategy, 'sliding-window');
    assert.deepEqual(plan.params, { maxEvents: 2 });
    assert.ok(Array.isArray(plan.kept) && Array.isArray(plan.archived) && Array.isArray(plan.truncated));
    assert.ok(plan.tokensBefore >= plan.tokensAfter);
    assert.ok(plan.kept.length + plan.archived.length > 0);
    assert.ok(plan.kept.includes(plan.tailStartId));
    assert.deepEqual(requestViolations(toApiMessages(plan.messages as Message[])), []);
  });
}

test('plan prints a readable table with the split point and the tail start', async () => {
  const r = await cli('plan', 'examples/session.jsonl', '--strategy', 'recent-turns', '--param', 'turns=1');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^strategy\s+recent-turns turns=1/m);
  assert.match(r.stdout, /^tokens\s+\d+ -> \d+/m);
  assert.match(r.stdout, /──── split point ────/);
  assert.match(r.stdout, /<- tail start/);
  assert.match(r.stdout, /\barchived\b/);
});

test('plan with LLM strategies reports the summarizer input size', async () => {
  // (examples/session.jsonl: on the 11-message Codex fixture a summary would not save tokens, so the plan is a no-op.)
  const r = await cli('plan', 'examples/session.jsonl', '--strategy', 'preserve-user-messages', '--json');
  const plan = JSON.parse(r.stdout);
  assert.equal(plan.needsSummary, true);
  assert.ok(plan.summarizerInputTokens > 0);
});

test('--window changes the per-turn budget of recent-turns', async () => {
  const small = JSON.parse(
    (await cli('plan', 'examples/session.jsonl', '--strategy', 'recent-turns', '--window', '9000', '--max-output', '1000', '--json'))
      .stdout,
  );
  assert.equal(small.contextWindow, 9000);
  assert.ok(small.notes.some((n: string) => n.includes('per-turn budget 2000 tokens')));
});

test("import converts another agent's session to Splitpoint JSONL", async () => {
  const r = await cli('import', `${S}/codex-rollout.jsonl`);
  assert.equal(r.code, 0);
  const [header, ...lines] = r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.deepEqual([header.type, header.version, header.importedFrom], ['splitpoint.header', 2, 'codex-rollout-jsonl']);
  assert.ok(lines.length > 3);
  assert.ok(lines.every((m) => typeof m.id === 'string' && (m.role === 'user' || m.role === 'assistant')));
});

const malformed: Array<[string, RegExp]> = [
  ['truncated-line.jsonl', /truncated-line\.jsonl:4: invalid JSON/],
  ['bad-syntax.json', /bad-syntax\.json:\d+: invalid JSON/],
  ['wrong-role.json', /wrong-role\.json: messages\[2\]\.role: expected "user" or "assistant", got "system"/],
  ['missing-tool-use-id.json', /missing-tool-use-id\.json.*id/],
  ['missing-tool-use-id.jsonl', /missing-tool-use-id\.jsonl:\d+: .*id/],
  ['claude-tool-use-no-id.jsonl', /claude-tool-use-no-id\.jsonl:\d+: .*id/],
  ['codex-missing-call-id.jsonl', /codex-missing-call-id\.jsonl:\d+: .*call_id/],
  ['wrong-content-type.jsonl', /wrong-content-type\.jsonl:\d+: .*content/],
  ['empty.jsonl', /empty\.jsonl: .*empty/],
  ['unknown-format.jsonl', /unknown-format\.jsonl.*(Splitpoint|supported)/i],
  ['late-header.jsonl', /late-header\.jsonl:\d+: .*header/],
];
for (const [file, pattern] of malformed) {
  test(`malformed input ${file} exits 2 naming file, line and field`, async () => {
    const r = await cli('plan', `${M}/${file}`, '--strategy', 'sliding-window');
    assert.equal(r.code, 2);
    assert.match(r.stderr, pattern);
    assert.equal(r.stdout, '');
  });
}

test('a missing file, an unknown strategy and a bad parameter exit 2 with a clear message', async () => {
  let r = await cli('plan', 'no/such/file.jsonl', '--strategy', 'sliding-window');
  assert.equal(r.code, 2);
  assert.match(r.stderr, /no\/such\/file\.jsonl: file not found/);
  r = await cli('plan', `${S}/codex-rollout.jsonl`, '--strategy', 'nope');
  assert.equal(r.code, 2);
  assert.match(r.stderr, /unknown strategy "nope"; known strategies: sliding-window/);
  r = await cli('plan', `${S}/codex-rollout.jsonl`, '--strategy', 'recursive-summarization', '--param', 'overlapSize=10');
  assert.equal(r.code, 2);
  assert.match(r.stderr, /overlapSize must be >= 0 and < maxEventsToKeep \(10\), got 10/);
  r = await cli('plan', `${S}/codex-rollout.jsonl`, '--strategy', 'sliding-window', '--param', 'maxEvents=abc');
  assert.match(r.stderr, /maxEvents must be a number, got "abc"/);
  r = await cli('plan', `${S}/codex-rollout.jsonl`, '--strategy', 'sliding-window', '--param', 'bogus=1');
  assert.match(r.stderr, /bogus is not a parameter of this strategy \(it takes: maxEvents\)/);
  r = await cli('plan', `${S}/codex-rollout.jsonl`, '--strategy', 'sliding-window', '--window', '-5');
  assert.match(r.stderr, /--window must be a positive integer, got "-5"/);
  r = await cli('frobnicate');
  assert.equal(r.code, 2);
});

test('the real binary exits with code 2 on malformed input and 0 on success', () => {
  const run = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { encoding: 'utf8' });
  const bad = run('plan', `${M}/truncated-line.jsonl`, '--strategy', 'turn-window');
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /truncated-line\.jsonl:4: invalid JSON/);
  const good = run('plan', `${S}/splitpoint-session.jsonl`, '--strategy', 'turn-window', '--param', 'maxTurns=1', '--json');
  assert.equal(good.status, 0, good.stderr);
  assert.equal(JSON.parse(good.stdout).strategy, 'turn-window');
});
