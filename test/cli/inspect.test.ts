// `splitpoint inspect` on the built CLI: the JSON contract on the four real sessions and on synthetic
// ones, the readable summary, and where the window comes from.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Message } from '../../src/core';
import { serializeSplitpointJsonl } from '../../src/core/importers';
import { runBuilt, runJson, scratchDir } from './builtCli';
import { COMPACTION_KEYS, INSPECT_KEYS, REAL_SESSIONS } from './realSessions';
import { syntheticClaudeCode } from './syntheticSessions';

type Inspect = Record<string, unknown> & { compactions: Array<Record<string, unknown>>; warnings: unknown[] };

const isCount = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= 0;
const isCountOrNull = (v: unknown) => v === null || isCount(v);

function assertContract(r: Inspect, label: string): void {
  for (const key of INSPECT_KEYS) assert.ok(key in r, `${label}: missing key ${key}`);
  assert.equal(typeof r.format, 'string', label);
  for (const key of ['messages', 'contextTokens', 'genuinePrompts'] as const)
    assert.ok(isCount(r[key]), `${label}: ${key} = ${String(r[key])}`);
  assert.ok(isCountOrNull(r.estimatedInputTokens), `${label}: estimatedInputTokens`);
  assert.ok(isCountOrNull(r.recordedInputTokens), `${label}: recordedInputTokens`);
  assert.ok(Array.isArray(r.warnings) && r.warnings.every((w) => typeof w === 'string'), `${label}: warnings`);
  assert.ok(Array.isArray(r.compactions), `${label}: compactions`);
  for (const c of r.compactions) {
    assert.deepEqual(Object.keys(c).sort(), [...COMPACTION_KEYS].sort(), label);
    assert.ok(['auto', 'manual', 'unknown'].includes(c.trigger as string), `${label}: trigger ${String(c.trigger)}`);
    assert.ok(isCountOrNull(c.preTokens) && isCount(c.archivedMessages) && isCount(c.summaryTokens), `${label}: ${JSON.stringify(c)}`);
  }
}

for (const s of REAL_SESSIONS) {
  test(`inspect --json on ${s.file}: the contract's keys and types, ${s.compactions} recorded compaction(s), recorded usage`, async () => {
    const r = await runJson<Inspect>('inspect', s.file, '--json');
    assertContract(r, s.file);
    assert.equal(r.format, s.format);
    assert.equal(r.compactions.length, s.compactions);
    for (const c of r.compactions) {
      assert.equal(c.source, s.format);
      assert.ok((c.archivedMessages as number) > 0, 'a compaction archives the context it replaced');
      // What the agent recorded before compacting is more than the current context's own count.
      if (c.preTokens !== null) assert.ok((c.preTokens as number) > (r.contextTokens as number) / 2);
    }
    // Real sessions record usage on every call: both figures exist, and the calibrated estimate is close.
    assert.ok((r.recordedInputTokens as number) > 0);
    assert.ok(r.estimatedInputTokens !== null);
    const error = Math.abs((r.estimatedInputTokens as number) - (r.recordedInputTokens as number)) / (r.recordedInputTokens as number);
    assert.ok(error < 0.25, `estimate ${String(r.estimatedInputTokens)} vs recorded ${String(r.recordedInputTokens)}`);
    assert.ok((r.genuinePrompts as number) > 0);
  });
}

test('inspect: the window is the recording’s (Codex token_count) unless --window says otherwise', async () => {
  const codex = REAL_SESSIONS[2].file;
  assert.equal((await runJson<Inspect>('inspect', codex, '--json')).contextWindow, 258_400);
  assert.equal((await runJson<Inspect>('inspect', codex, '--json', '--window', '32000')).contextWindow, 32_000);
  const text = await runBuilt('inspect', codex, '--window', '32000');
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /of a 32,000 window/);
});

test('inspect on a synthetic Claude Code session: two compactions in order, prompts without the command stub, the last call', async () => {
  const session = syntheticClaudeCode();
  const file = join(await scratchDir(), 'synthetic-claude.jsonl');
  writeFileSync(file, session.text);
  const r = await runJson<Inspect>('inspect', file, '--json');
  assertContract(r, file);
  assert.equal(r.format, 'claude-code-jsonl');
  assert.deepEqual(
    r.compactions.map((c) => ({ trigger: c.trigger, preTokens: c.preTokens })),
    session.compactions,
  );
  assert.ok(r.compactions.every((c) => (c.summaryTokens as number) > 0));
  assert.equal(r.genuinePrompts, session.prompts);
  assert.equal(r.recordedInputTokens, session.lastRecordedInput);
  assert.equal(r.recordedCalls, session.recordedCalls);
  assert.ok(isCount(r.estimatedInputTokens) && (r.estimatedInputTokens as number) > 0);
  // The current context is the second summary and what followed it, not the whole history.
  assert.equal(r.messages, 3);

  const text = await runBuilt('inspect', file);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^compaction 1 +manual +13,650 tokens before; archived \d+ messages/m);
  assert.match(text.stdout, /^compaction 2 +auto +7,400 tokens before/m);
  assert.match(text.stdout, new RegExp(`last call read ${session.lastRecordedInput.toLocaleString('en-US')} input tokens`));
});

test('inspect: no estimate with fewer than 2 recorded calls; no recorded figures without usage', async () => {
  const dir = await scratchDir();
  const usage = { inputTokens: 10, cacheReadTokens: 900, cacheCreationTokens: 90, outputTokens: 5, model: 'claude-sonnet-4-5' };
  const one: Message[] = [
    { id: 'u1', role: 'user', content: 'hello' },
    { id: 'a1', role: 'assistant', content: 'hi', usage },
  ];
  writeFileSync(join(dir, 'one-call.jsonl'), serializeSplitpointJsonl(one));
  const r = await runJson<Inspect>('inspect', join(dir, 'one-call.jsonl'), '--json');
  assertContract(r, 'one-call');
  assert.equal(r.recordedInputTokens, 1000);
  assert.equal(r.estimatedInputTokens, null);
  assert.deepEqual(r.compactions, []);
  assert.equal(r.genuinePrompts, 1);

  const none = await runJson<Inspect>('inspect', 'test/fixtures/sessions/anthropic-request.json', '--json');
  assertContract(none, 'anthropic');
  assert.equal(none.recordedInputTokens, null);
  assert.equal(none.estimatedInputTokens, null);
});

test('inspect: usage errors and malformed files exit 2 with a named error', async () => {
  const missing = await runBuilt('inspect', 'no/such/file.jsonl', '--json');
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /no\/such\/file\.jsonl: file not found/);
  const bad = await runBuilt('inspect', 'test/fixtures/malformed/truncated-line.jsonl');
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /truncated-line\.jsonl:4: invalid JSON/);
  const flag = await runBuilt('inspect', REAL_SESSIONS[0].file, '--strategy', 'recent-turns');
  assert.equal(flag.code, 2);
  assert.match(flag.stderr, /inspect does not take --strategy/);
  assert.equal(flag.stdout, '');
});

test('inspect counts a prompt a rollback later removed as typed, and says how many were (JSON and text)', async () => {
  // Codex: thread_rolled_back removes the last turn(s); Claude Code: a rewind leaves a prompt on an abandoned branch.
  const cases: Array<[string, number]> = [
    ['test/fixtures/sessions/codex-rollback.jsonl', 2],
    ['test/fixtures/import-cases/claude-rewind.jsonl', 1],
  ];
  for (const [file, rolledBack] of cases) {
    const r = await runJson<Inspect>('inspect', file, '--json');
    assert.equal(r.rolledBackPrompts, rolledBack, file);
    assert.ok((r.genuinePrompts as number) > rolledBack, `${file}: the rolled-back prompts are among the typed ones`);
    const text = await runBuilt('inspect', file);
    assert.match(text.stdout, new RegExp(`${r.genuinePrompts as number} genuine prompts \\(${rolledBack} later removed by a rollback\\)`));
  }
});
