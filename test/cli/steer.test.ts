// Issue 13's CLI contract on the built CLI: `plan FILE … --pin ID[,ID…] --split-at ID --json` adds
// `pinned` (ids), `ledger` and `lost` ({files:[{path,read,edited,created}], commands:[{command,exitCode}],
// errors:[{text,resolved}], instructions:[text]}, exact keys) beside `request.messages`; ids that do not
// exist exit 2 naming the id. On a synthetic session (ids known) and on the real sessions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ApiMessage } from '../../src/core';
import { requestViolations } from '../../src/core/conversation/invariants';
import { runBuilt, runJson, scratchDir } from './builtCli';
import { REAL_SESSIONS } from './realSessions';

interface Entry {
  id: string;
  index: number;
  kind: string;
}
interface Ledger {
  files: Array<Record<string, unknown>>;
  commands: Array<Record<string, unknown>>;
  errors: Array<Record<string, unknown>>;
  instructions: unknown[];
}
interface SteerJson {
  strategy: string;
  params: Record<string, number>;
  noop: boolean;
  notes: string[];
  tailStartId: string | null;
  needsSummary: boolean;
  fitsWindow: boolean;
  kept: string[];
  archived: string[];
  entries: { kept: Entry[]; archived: Entry[] };
  pinned: string[];
  ledger: Ledger;
  lost: Ledger;
  request: { messages: ApiMessage[] };
}

function assertLedgerShape(l: Ledger, label: string): void {
  assert.deepEqual(Object.keys(l), ['files', 'commands', 'errors', 'instructions'], label);
  for (const f of l.files) {
    assert.deepEqual(Object.keys(f), ['path', 'read', 'edited', 'created'], `${label} file`);
    assert.equal(typeof f.path, 'string');
    for (const k of ['read', 'edited', 'created']) assert.ok(Number.isInteger(f[k]), `${label} file ${k}`);
  }
  for (const c of l.commands) {
    assert.deepEqual(Object.keys(c), ['command', 'exitCode'], `${label} command`);
    assert.ok(c.exitCode === null || Number.isInteger(c.exitCode), `${label} exitCode ${String(c.exitCode)}`);
  }
  for (const e of l.errors) {
    assert.deepEqual(Object.keys(e), ['text', 'resolved'], `${label} error`);
    assert.equal(typeof e.resolved, 'boolean');
  }
  for (const i of l.instructions) assert.equal(typeof i, 'string', `${label} instruction`);
}

const text = (m: ApiMessage): string => JSON.stringify(m.content);

/** A Splitpoint session whose ids the test knows: two turns of tool work, then a third prompt. */
async function session(): Promise<string> {
  const lines = [
    { type: 'splitpoint.header', version: 2, sessionId: 'steer', createdAt: 0 },
    { id: 'u1', role: 'user', content: 'Fix the leap-year bug in src/date.ts.' },
    { id: 'c1', role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read_file', input: { path: 'src/date.ts' } }] },
    { id: 'r1', role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'export const isLeap = (y) => y % 4 === 0;' }] },
    { id: 'a1', role: 'assistant', content: [{ type: 'text', text: 'Century years are wrong; fixing.' }] },
    { id: 'u2', role: 'user', content: 'Now run the tests.' },
    { id: 'c2', role: 'assistant', content: [{ type: 'tool_use', id: 't2', name: 'run_command', input: { command: 'npm test' } }] },
    { id: 'r2', role: 'user', content: [{ type: 'tool_result', tool_use_id: 't2', content: 'exit code 0\n12 passing' }] },
    { id: 'a2', role: 'assistant', content: [{ type: 'text', text: 'All 12 tests pass.' }] },
    { id: 'u3', role: 'user', content: 'Release it.' },
    { id: 'a3', role: 'assistant', content: [{ type: 'text', text: 'Released.' }] },
  ];
  const file = join(await scratchDir(), 'steer-session.jsonl');
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return file;
}

test('plan --split-at ID --json: everything before the message is archived, the plan names where the split moved, ledger/lost keys exact', async () => {
  const file = await session();
  const exact = await runJson<SteerJson>('plan', file, '--split-at', 'u2', '--param', 'summarize=0', '--json');
  assert.equal(exact.strategy, 'split-at');
  assert.deepEqual(exact.params, { summarize: 0 });
  assert.equal(exact.tailStartId, 'u2');
  assert.deepEqual(exact.archived, ['u1', 'c1', 'r1', 'a1']);
  assert.equal(exact.needsSummary, false);
  assert.deepEqual(exact.pinned, []);
  assertLedgerShape(exact.ledger, 'ledger');
  assertLedgerShape(exact.lost, 'lost');
  assert.deepEqual(requestViolations(exact.request.messages), []);
  // What was archived survives in the ledger (the opener of the tail), not invented: its file and its prompt.
  assert.ok(
    exact.ledger.files.some((f) => f.path === 'src/date.ts'),
    JSON.stringify(exact.ledger.files),
  );
  assert.ok(exact.ledger.instructions.some((i) => String(i).includes('leap-year')));
  assert.ok(text(exact.request.messages[0]).includes('src/date.ts'), 'the ledger rides in the request');

  const moved = await runJson<SteerJson>('plan', file, '--split-at', 'r2', '--param', 'summarize=0', '--json');
  assert.equal(moved.tailStartId, 'u3');
  assert.ok(
    moved.notes.some((n) => n.includes('moved from r2 to u3')),
    moved.notes.join('; '),
  );
  assert.deepEqual(requestViolations(moved.request.messages), []);
  // summarize defaults to 1: on a session this small a ~2,000-token summary would save nothing, and the plan says so.
  const summarized = await runJson<SteerJson>('plan', file, '--split-at', 'u3', '--json');
  assert.deepEqual(summarized.params, { summarize: 1 });
  assert.equal(summarized.noop, true);
  assert.ok(
    summarized.notes.some((n) => n.includes('would not save tokens')),
    summarized.notes.join('; '),
  );
});

test('plan --pin ID,ID keeps the pinned messages (and a tool partner) verbatim in the request; pinned lists them', async () => {
  const file = await session();
  const p = await runJson<SteerJson>('plan', file, '--split-at', 'u3', '--pin', 'u1,c2', '--param', 'summarize=0', '--json');
  assert.deepEqual(p.pinned, ['u1', 'c2', 'r2'], 'c2 pins its tool_result r2');
  for (const id of p.pinned) assert.ok(p.kept.includes(id) && !p.archived.includes(id), `${id} kept`);
  assert.deepEqual(p.archived, ['c1', 'r1', 'a1', 'u2', 'a2']);
  assert.ok(p.request.messages.some((m) => text(m).includes('Fix the leap-year bug')));
  assert.deepEqual(requestViolations(p.request.messages), []);
  // Without --split-at the pins work with any strategy.
  const other = await runJson<SteerJson>('plan', file, '--strategy', 'turn-window', '--param', 'maxTurns=1', '--pin', 'u1', '--json');
  assert.equal(other.strategy, 'turn-window');
  assert.deepEqual(other.pinned, ['u1']);
});

test('plan with a --pin or --split-at id that does not exist exits 2 naming the id; --split-at with another --strategy is a usage error', async () => {
  const file = await session();
  const split = await runBuilt('plan', file, '--split-at', 'no-such-id', '--json');
  assert.equal(split.code, 2);
  assert.equal(split.stdout, '');
  assert.match(split.stderr, /--split-at no-such-id: .*steer-session\.jsonl has no message with that id/);
  const pin = await runBuilt('plan', file, '--strategy', 'turn-window', '--pin', 'u1,ghost-7', '--json');
  assert.equal(pin.code, 2);
  assert.equal(pin.stdout, '');
  assert.match(pin.stderr, /--pin ghost-7: cannot pin message "ghost-7"/);
  const both = await runBuilt('plan', file, '--strategy', 'turn-window', '--split-at', 'u2');
  assert.equal(both.code, 2);
  assert.match(both.stderr, /--split-at plans with the split-at strategy; --strategy turn-window cannot be combined/);
  const empty = await runBuilt('plan', file, '--split-at', 'u2', '--pin', 'u1,,u2');
  assert.equal(empty.code, 2);
  assert.match(empty.stderr, /--pin expects ID\[,ID…\], got "u1,,u2"/);
});

for (const s of REAL_SESSIONS) {
  test(`plan --split-at the middle message of ${s.file} with the first prompt pinned: valid request, nothing after the split archived`, async () => {
    const base = await runJson<SteerJson>('plan', s.file, '--strategy', 'sliding-window', '--json');
    const all = [...base.entries.kept, ...base.entries.archived].sort((a, b) => a.index - b.index);
    const middle = all[Math.floor(all.length / 2)];
    const first = base.request.messages[0];
    assert.equal(first.role, 'user');
    const p = await runJson<SteerJson>('plan', s.file, '--split-at', middle.id, '--param', 'summarize=0', '--json');
    assert.equal(p.noop, false, p.notes.join('; '));
    assert.deepEqual(requestViolations(p.request.messages), [], s.file);
    assert.equal(p.fitsWindow, true);
    const tail = all.find((e) => e.id === p.tailStartId)!;
    assert.ok(tail.index >= middle.index || p.notes.some((n) => n.includes(`moved from ${middle.id}`)), p.notes.join('; '));
    if (p.tailStartId !== middle.id) assert.ok(p.notes.some((n) => n.includes(`moved from ${middle.id} to ${p.tailStartId}`)));
    const archivedAt = new Set(p.entries.archived.map((e) => e.index));
    for (const e of all) if (e.index >= tail.index) assert.equal(archivedAt.has(e.index), false, `${e.id} after the split is kept`);
    assertLedgerShape(p.ledger, `${s.file} ledger`);
    assertLedgerShape(p.lost, `${s.file} lost`);
    assert.ok(p.ledger.files.length + p.ledger.commands.length > 0, 'the archived half of a real session touched files or ran commands');

    const pinId = all.find((e) => e.kind === 'user-prompt')!.id;
    const pinned = await runJson<SteerJson>('plan', s.file, '--split-at', middle.id, '--pin', pinId, '--param', 'summarize=0', '--json');
    assert.ok(pinned.pinned.includes(pinId));
    assert.equal(pinned.archived.includes(pinId), false);
    assert.deepEqual(requestViolations(pinned.request.messages), [], `${s.file} pinned`);
  });
}
