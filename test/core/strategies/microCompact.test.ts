import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planMicroCompact } from '../../../src/core/strategies/microCompact';
import { planViolations } from '../../../src/core/conversation/invariants';
import type { ToolResultBlock } from '../../../src/core/conversation/conversation';
import { assistant, call, ctxWith, results, user } from '../../helpers/build';

const long = (c: string) => c.repeat(300);
const convo = () => [
  user('u1'),
  call('c1', ['t1', 'read_file']),
  results('r1', ['t1', long('a')]),
  call('c2', ['t2', 'run_command'], ['t3', 'search']),
  results('r2', ['t2', long('b')], ['t3', 'short']),
  call('c4', ['t4', 'read_file']),
  results('r4', ['t4', long('d')]),
  call('c5', ['t5', 'list_files']),
  results('r5', ['t5', long('e')]),
  assistant('a1'),
];
const resultOf = (m: { content: unknown }, i = 0) => (m.content as ToolResultBlock[])[i];

test('micro-compact: results older than the last 3 and longer than the threshold become [Previous: used <tool>]', () => {
  const msgs = convo();
  const plan = planMicroCompact(msgs, { keepRecent: 3, minChars: 100 }, ctxWith());
  const out = new Map(plan.output.map((m) => [m.id, m]));
  assert.equal(resultOf(out.get('r1')!).content, '[Previous: used read_file]');
  assert.equal(resultOf(out.get('r2')!).content, '[Previous: used run_command]');
  // t3 is among the last 3 results (t3, t4, t5): intact; t4 and t5 intact too.
  assert.equal(resultOf(out.get('r2')!, 1).content, 'short');
  assert.equal(resultOf(out.get('r4')!).content, long('d'));
  assert.deepEqual(
    plan.truncated.map((t) => t.id),
    ['r1', 'r2'],
  );
  assert.equal(plan.archived.length, 0);
  assert.deepEqual(planViolations(msgs, plan), []);
});

test('micro-compact: block type, tool_use_id and is_error are kept', () => {
  const msgs = convo();
  (msgs[2].content as ToolResultBlock[])[0].is_error = true;
  const plan = planMicroCompact(msgs, { keepRecent: 1, minChars: 100 }, ctxWith());
  const r1 = resultOf(plan.output[2]);
  assert.deepEqual(r1, { type: 'tool_result', tool_use_id: 't1', content: '[Previous: used read_file]', is_error: true });
  assert.deepEqual(plan.output[2].truncated, { results: [{ toolUseId: 't1', toolName: 'read_file', originalChars: 300 }] });
});

test('micro-compact: short results are left alone', () => {
  const plan = planMicroCompact(convo(), { keepRecent: 0, minChars: 100 }, ctxWith());
  assert.equal(
    resultOf(
      plan.output.find((m) => m.id === 'r2')!,
      1,
    ).content,
    'short',
  );
});

test('micro-compact: the input messages are not mutated and a second pass changes nothing', () => {
  const msgs = convo();
  const before = JSON.stringify(msgs);
  const first = planMicroCompact(msgs, { keepRecent: 3, minChars: 10 }, ctxWith());
  assert.equal(JSON.stringify(msgs), before);
  const second = planMicroCompact(first.output, { keepRecent: 3, minChars: 10 }, ctxWith());
  assert.equal(second.noop, true);
});

test('micro-compact: with at most keepRecent results nothing changes', () => {
  const msgs = [user('u1'), call('c1', ['t1', 'read_file']), results('r1', ['t1', long('x')])];
  assert.equal(planMicroCompact(msgs, { keepRecent: 3, minChars: 100 }, ctxWith()).noop, true);
});
