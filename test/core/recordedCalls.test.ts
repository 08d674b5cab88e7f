import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Message, RecordedUsage } from '../../src/core/conversation/conversation';
import { estimateCalls, estimateErrors, recordedCalls, type RecordedCall } from '../../src/core/counting/recordedCalls';
import type { MessageTokenCounter } from '../../src/core/counting/tokens';

/** Counts a message as the number in its text ("t:1200" is 1,200 tokens). */
const numberCounter: MessageTokenCounter = {
  countMessage: (m) => Number(/t:(\d+)/.exec(typeof m.content === 'string' ? m.content : JSON.stringify(m.content))?.[1] ?? 0),
  countMessages(ms) {
    return ms.reduce((n, m) => n + this.countMessage(m), 0);
  },
};

const usage = (input: number, model = 'claude-x', output = 10): RecordedUsage => ({
  inputTokens: 1,
  cacheReadTokens: input - 1,
  cacheCreationTokens: 0,
  outputTokens: output,
  model,
});
const user = (id: string, tokens: number): Message => ({ id, role: 'user', content: `t:${tokens}` });
const reply = (id: string, tokens: number, u?: RecordedUsage): Message => ({
  id,
  role: 'assistant',
  content: `t:${tokens}`,
  ...(u ? { usage: u } : {}),
});

test('each assistant message with usage is one call whose input is the context before it, contexts in order', () => {
  const before = [user('u1', 100), reply('a1', 10, usage(20_100)), user('r1', 300), reply('a2', 10, usage(20_500))];
  const current = [user('s', 50), reply('a3', 10, usage(20_060)), user('u2', 5), reply('a4', 10)];
  const calls = recordedCalls([before, current]);
  assert.deepEqual(
    calls.map((c) => [c.messageId, c.input.map((m) => m.id)]),
    [
      ['a1', ['u1']],
      ['a2', ['u1', 'a1', 'r1']],
      ['a3', ['s']],
    ],
  );
  assert.equal(calls[1]!.usage, before[3]!.usage);
});

test('one response recorded as several assistant messages with the same usage is one call; zero-input calls are left out', () => {
  const u = usage(30_000);
  const context = [user('u1', 100), reply('a1', 10, u), user('r1', 5), reply('a1b', 10, { ...u }), reply('z', 1, usage(0)), user('u2', 1)];
  const calls = recordedCalls([context]);
  assert.deepEqual(
    calls.map((c) => c.messageId),
    ['a1'],
  );
});

test('estimateCalls: the first call of each model has no estimate; later ones come from earlier calls of that model only', () => {
  const calls: RecordedCall[] = [
    { messageId: 'a', input: [user('x', 1000)], usage: usage(21_300) },
    { messageId: 'b', input: [user('x', 2000)], usage: usage(5000, 'other') },
    { messageId: 'c', input: [user('x', 3000)], usage: usage(23_900) },
    { messageId: 'd', input: [user('x', 8000)], usage: usage(30_400) },
    { messageId: 'e', input: [user('x', 4000)], usage: usage(6000, 'other') },
  ];
  const estimates = estimateCalls(calls, numberCounter);
  assert.deepEqual(
    estimates.map((e) => [e.messageId, e.recorded, e.raw, e.model]),
    [
      ['a', 21_300, 1000, 'claude-x'],
      ['b', 5000, 2000, 'other'],
      ['c', 23_900, 3000, 'claude-x'],
      ['d', 30_400, 8000, 'claude-x'],
      ['e', 6000, 4000, 'other'],
    ],
  );
  assert.equal(estimates[0]!.estimated, null);
  assert.equal(estimates[1]!.estimated, null);
  // One earlier call: the default factor 1 and the rest as the prefix (21,300 - 1,000 = 20,300).
  assert.equal(estimates[2]!.estimated, 20_300 + 3000);
  assert.equal(estimates[4]!.estimated, 3000 + 4000);
  // Two earlier calls on the line 20,000 + 1.3 × raw: the fit finds it.
  assert.equal(estimates[3]!.estimated, 20_000 + 1.3 * 8000);
});

test('estimateCalls never looks ahead: changing a later call changes no earlier estimate', () => {
  const make = (last: number): RecordedCall[] =>
    [1000, 4000, 9000, 12_000, last].map((raw, i) => ({
      messageId: `m${i}`,
      input: [user('x', raw)],
      usage: usage(18_000 + 1.2 * raw + 37 * i),
    }));
  const a = estimateCalls(make(15_000), numberCounter);
  const b = estimateCalls(make(60_000), numberCounter);
  assert.deepEqual(
    a.slice(0, 4).map((e) => e.estimated),
    b.slice(0, 4).map((e) => e.estimated),
  );
  assert.notEqual(a[4]!.estimated, b[4]!.estimated);
});

test('estimateErrors gives the median and the worst relative error over the estimated calls', () => {
  const e = (recorded: number, estimated: number | null) => ({ messageId: 'm', recorded, estimated, raw: 0, model: undefined });
  assert.equal(estimateErrors([e(100, null)]), null);
  assert.deepEqual(estimateErrors([e(100, null), e(100, 110), e(200, 190), e(100, 70)]), { calls: 3, median: 0.1, worst: 0.3 });
  const even = estimateErrors([e(100, 101), e(100, 103), e(100, 90), e(100, 100)]);
  assert.equal(even?.median, 0.02);
});
