// `splitpoint plan` on the built CLI: the request that would be sent (roles alternate, first is user,
// valid for the Messages API), fitsWindow, the recording's window by default, and --at N (the context
// before recorded compaction N) with a named error when N is out of range.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ApiMessage } from '../../src/core';
import { requestViolations } from '../../src/core/conversation/invariants';
import { runBuilt, runJson, scratchDir } from './builtCli';
import { REAL_SESSIONS } from './realSessions';
import { syntheticClaudeCode } from './syntheticSessions';

interface PlanJson {
  format: string;
  at: number | null;
  contextWindow: number;
  fitsWindow: unknown;
  tokensBefore: number;
  tokensAfter: number;
  kept: string[];
  archived: string[];
  request: { messages: ApiMessage[] };
}

function assertRequest(p: PlanJson, label: string): void {
  assert.equal(typeof p.fitsWindow, 'boolean', label);
  const messages = p.request.messages;
  assert.ok(messages.length > 0, `${label}: empty request`);
  assert.equal(messages[0].role, 'user', `${label}: first message`);
  messages.forEach((m, i) => {
    if (i > 0) assert.notEqual(m.role, messages[i - 1].role, `${label}: roles do not alternate at ${i}`);
  });
  assert.deepEqual(requestViolations(messages), [], label);
}

type Inspect = { compactions: Array<{ archivedMessages: number }>; contextWindow: number };

for (const s of REAL_SESSIONS) {
  test(`plan --json on ${s.file}: the request alternates from a user message, fits its window, and --at 1 plans before compaction 1`, async () => {
    const [inspect, current, at1] = await Promise.all([
      runJson<Inspect>('inspect', s.file, '--json'),
      runJson<PlanJson>('plan', s.file, '--strategy', 'recent-turns', '--json'),
      runJson<PlanJson>('plan', s.file, '--strategy', 'sliding-window', '--at', '1', '--json'),
    ]);
    assertRequest(current, `${s.file} current`);
    assert.equal(current.at, null);
    assert.equal(current.contextWindow, inspect.contextWindow, 'the window defaults to the recording’s');
    assert.equal(current.fitsWindow, true);
    assertRequest(at1, `${s.file} --at 1`);
    assert.equal(at1.at, 1);
    assert.equal(at1.kept.length + at1.archived.length, inspect.compactions[0].archivedMessages);
  });
}

test('plan --at past the last compaction exits 2 naming how many compactions the file has', async () => {
  const codexB = REAL_SESSIONS[3].file;
  const r = await runBuilt('plan', codexB, '--strategy', 'recent-turns', '--at', '99', '--json');
  assert.equal(r.code, 2);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /--at 99: .*codex-agentv-b\.jsonl has 2 recorded compactions \(--at takes 1\.\.2\)/);
  const none = await runBuilt('plan', 'examples/session.jsonl', '--strategy', 'recent-turns', '--at', '1');
  assert.equal(none.code, 2);
  assert.match(none.stderr, /--at 1: examples\/session\.jsonl has 0 recorded compactions/);
  const zero = await runBuilt('plan', 'examples/session.jsonl', '--strategy', 'recent-turns', '--at', '0');
  assert.equal(zero.code, 2);
  assert.match(zero.stderr, /--at must be a positive integer, got "0"/);
});

test('plan --at N on a synthetic session plans on exactly the context before compaction N; the table says so', async () => {
  const file = join(await scratchDir(), 'synthetic-claude-plan.jsonl');
  writeFileSync(file, syntheticClaudeCode().text);
  const inspect = await runJson<Inspect>('inspect', file, '--json');
  for (const at of [1, 2]) {
    const p = await runJson<PlanJson>('plan', file, '--strategy', 'recent-turns', '--param', 'turns=1', '--at', String(at), '--json');
    assertRequest(p, `--at ${at}`);
    assert.equal(p.kept.length + p.archived.length, inspect.compactions[at - 1].archivedMessages);
  }
  const table = await runBuilt('plan', file, '--strategy', 'recent-turns', '--at', '2');
  assert.equal(table.code, 0, table.stderr);
  assert.match(table.stdout, /the context before recorded compaction 2\)/);
});

test('plan --window overrides the recording’s window, and a small window still gives a request that fits', async () => {
  const codexA = REAL_SESSIONS[2].file;
  const p = await runJson<PlanJson>('plan', codexA, '--strategy', 'token-budget', '--window', '32000', '--json');
  assert.equal(p.contextWindow, 32_000);
  assertRequest(p, 'token-budget at 32000');
  assert.equal(p.fitsWindow, true);
  assert.ok(p.tokensAfter < 32_000, `kept ${p.tokensAfter} tokens`);
});
