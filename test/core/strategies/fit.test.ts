// Plans fit the window they are given: shrinking the tail (turn starts first, then tool-exchange
// boundaries), truncating tool results as a last resort, window-derived defaults, never an increase.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Message } from '../../../src/core/conversation/conversation';
import { fitViolations, planViolations, requestViolations } from '../../../src/core/conversation/invariants';
import { requestBudget, type PlanContext } from '../../../src/core/pipeline/plan';
import { planRequest } from '../../../src/core/pipeline/planRequest';
import { planWith } from '../../../src/core/strategies';
import { fitCandidates } from '../../../src/core/strategies/fit';
import { planMicroCompact } from '../../../src/core/strategies/microCompact';
import { planPreserveUserMessages } from '../../../src/core/strategies/preserveUserMessages';
import { planRecursiveSummarization } from '../../../src/core/strategies/recursiveSummarization';
import { planTokenBudget } from '../../../src/core/strategies/tokenBudget';
import { planTurnWindow } from '../../../src/core/strategies/turnWindow';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../../src/core/counting/tokens';
import { assistant, call, ctxWith, FixedCostCounter, ids, results, summary, user } from '../../helpers/build';

/** One prompt followed by `n` tool exchanges (c_i, r_i), each message costing 10 unless `costs` says. */
function toolLoop(n: number): Message[] {
  const msgs: Message[] = [user('u1')];
  for (let i = 0; i < n; i++) msgs.push(call(`c${i}`, [`t${i}`, 'read_file']), results(`r${i}`, [`t${i}`, 'x'.repeat(400)]));
  return msgs;
}

/** A window whose request budget is exactly `budget` tokens (answer reserve 100). */
function windowOf(budget: number, tokens = new FixedCostCounter(), over: Partial<PlanContext> = {}): PlanContext {
  return ctxWith(tokens, { contextWindow: budget + 100, maxOutputTokens: 100, summaryMaxTokens: 30, ...over });
}

test('fit: the cut candidates are the later turn starts, then the tool-exchange boundaries after the last one', () => {
  const msgs = [user('u1'), assistant('a1'), user('u2'), call('c2', ['t2', 'ls']), results('r2', ['t2', 'x']), assistant('a2')];
  assert.deepEqual(fitCandidates(msgs, 0), [2, 3, 5]);
  assert.deepEqual(fitCandidates(msgs, 2), [3, 5]);
  assert.deepEqual(fitCandidates(toolLoop(3), 0), [1, 3, 5]);
});

test('fit: a turn that no longer fits moves the cut to a later turn start, and the note says so', () => {
  const msgs = [user('u1'), assistant('a1'), user('u2'), assistant('a2'), user('u3'), assistant('a3')];
  const ctx = windowOf(45);
  // turn-window keeps 2 turns (40 tokens) under this budget; 3 turns would not fit, so maxTurns 3 keeps 2.
  const plan = planTurnWindow(msgs, { maxTurns: 3 }, ctx);
  assert.deepEqual(ids(plan.output), ['u2', 'a2', 'u3', 'a3']);
  assert.equal(plan.fitsWindow, true);
  assert.ok(plan.notes.some((n) => n.includes('shrunk to fit')));
  assert.deepEqual([...planViolations(msgs, plan), ...fitViolations(plan, ctx)], []);
});

test('fit: turn-window on one prompt and many tool calls cuts at a tool-exchange boundary behind a placeholder', () => {
  const msgs = toolLoop(50);
  const ctx = windowOf(100);
  const plan = planTurnWindow(msgs, { maxTurns: 10 }, ctx);
  assert.equal(plan.noop, false, 'one turn <= maxTurns, but it does not fit: the plan must still cut');
  assert.equal(plan.output[0].synthetic, 'placeholder');
  assert.equal(plan.output[1].role, 'assistant');
  // 100 tokens: the placeholder (10) and four exchanges (80): the earliest boundary that fits.
  assert.deepEqual(ids(plan.output.slice(1)), ['c46', 'r46', 'c47', 'r47', 'c48', 'r48', 'c49', 'r49']);
  assert.equal(plan.tokensAfter, 90);
  assert.deepEqual([...planViolations(msgs, plan), ...fitViolations(plan, ctx)], []);
});

test('fit: when even the newest exchange does not fit, its tool results are truncated (the last resort)', () => {
  const msgs = toolLoop(3);
  const tokens = new MemoizedMessageCounter(new CharEstimateTokenizer());
  const ctx = ctxWith(tokens, { contextWindow: 600, maxOutputTokens: 500, summaryMaxTokens: 20 });
  for (const name of [
    'sliding-window',
    'token-budget',
    'recursive-summarization',
    'recent-turns',
    'turn-window',
    'recent-token-fraction',
  ]) {
    const plan = planWith(name, msgs, {}, ctx);
    assert.equal(plan.fitsWindow, true, `${name}: ${plan.notes.join(' | ')}`);
    assert.ok(plan.tokensAfter <= requestBudget(ctx));
    assert.equal(plan.truncated.length, 1, name);
    assert.match(JSON.stringify(plan.output), /\[Truncated to fit the context window: read_file output of 400 chars\]/);
    assert.ok(
      plan.notes.some((n) => /1 tool result in it truncated/.test(n)),
      `${name}: ${plan.notes.join(' | ')}`,
    );
    assert.deepEqual([...planViolations(msgs, plan), ...fitViolations(plan, ctx)], [], name);
  }
});

test('fit: a summary strategy that would not save tokens is a no-op with a note, never an increase', () => {
  // 8 messages of 10 tokens; a 2,000-token summary of 6 of them would grow the history 80 -> 2,020.
  const msgs = [user('u1'), assistant('a1'), user('u2'), assistant('a2'), user('u3'), assistant('a3'), user('u4'), assistant('a4')];
  const plan = planRecursiveSummarization(msgs, { maxEventsToKeep: 2, overlapSize: 0 }, ctxWith());
  assert.equal(plan.noop, true);
  assert.equal(plan.tokensAfter, plan.tokensBefore);
  assert.match(plan.notes[0], /would not save tokens \(80 -> 2020 with a ~2000-token summary\)/);
  // The same cut with a small enough summary estimate does save tokens, and is made.
  assert.equal(
    planRecursiveSummarization(msgs, { maxEventsToKeep: 2, overlapSize: 0 }, ctxWith(undefined, { summaryMaxTokens: 20 })).noop,
    false,
  );
});

test('fit: token-budget derives its budget from the window, and never exceeds the request budget', () => {
  const msgs: Message[] = [];
  for (let i = 0; i < 40; i++) msgs.push(user(`u${i}`), assistant(`a${i}`));
  const ctx = windowOf(500);
  const auto = planTokenBudget(msgs, { maxTokens: 0 }, ctx);
  assert.equal(auto.params.maxTokens, 200, '40% of the 500-token request budget');
  assert.equal(auto.tokensAfter, 200);
  assert.ok(auto.notes.some((n) => n.includes('derived from the window')));
  const capped = planTokenBudget(msgs, { maxTokens: 80_000 }, ctx);
  assert.equal(capped.params.maxTokens, 500);
  assert.equal(capped.tokensAfter, 500);
  assert.ok(capped.notes.some((n) => n.includes('over the 500-token request budget')));
  assert.equal(planWith('token-budget', msgs, {}, ctx).params.maxTokens, 200, 'the registry default is the derived one');
});

test('fit: the overhead of the system prompt and tools counts against the window', () => {
  const msgs: Message[] = [];
  for (let i = 0; i < 10; i++) msgs.push(user(`u${i}`), assistant(`a${i}`));
  const plain = planWith('sliding-window', msgs, { maxEvents: 40 }, windowOf(200));
  assert.equal(plain.noop, true);
  const withOverhead = planWith('sliding-window', msgs, { maxEvents: 40 }, windowOf(200, undefined, { overheadTokens: 50 }));
  assert.equal(withOverhead.noop, false);
  assert.equal(withOverhead.tokensAfter, 140);
  assert.ok(withOverhead.notes.some((n) => n.includes('overhead 50')));
});

test('fit: preserve-user-messages caps the prompts at what the window leaves beside the summary', () => {
  const msgs = [user('u1'), assistant('a1'), user('u2'), assistant('a2'), user('u3'), assistant('a3')];
  const ctx = windowOf(55, new FixedCostCounter({ a1: 100 }));
  const plan = planPreserveUserMessages(msgs, { maxUserTokens: 20_000 }, ctx);
  // 55 - 30 for the summary leaves 25: two prompts of 10.
  assert.deepEqual(ids(plan.output.filter((m) => !m.synthetic)), ['u2', 'u3']);
  assert.ok(plan.notes[0].startsWith('prompts capped at 25 tokens'));
  assert.deepEqual([...planViolations(msgs, plan), ...fitViolations(plan, ctx)], []);
});

test('fit: micro-compact alone may not fit, and then says placeholders are not enough', () => {
  const msgs = [...toolLoop(6), assistant('done')];
  const ctx = windowOf(100);
  const plan = planMicroCompact(msgs, { keepRecent: 3, minChars: 100 }, ctx);
  assert.equal(plan.fitsWindow, false);
  assert.ok(plan.notes.some((n) => n.startsWith('placeholders alone are not enough')));
  assert.deepEqual(fitViolations(plan, ctx), []);
  assert.equal(planMicroCompact(msgs, { keepRecent: 3, minChars: 100 }, windowOf(1000)).fitsWindow, true);
});

test('planRequest: the request merges adjacent same-role messages as the agent sends them', () => {
  const msgs = [summary('s0'), user('u1'), assistant('a1'), user('u2'), assistant('a2')];
  const plan = planWith('sliding-window', msgs, { maxEvents: 2 }, ctxWith());
  assert.deepEqual(ids(plan.output), ['s0', 'u2', 'a2']);
  const request = planRequest(plan);
  assert.deepEqual(
    request.map((m) => m.role),
    ['user', 'assistant'],
  );
  assert.deepEqual(request[0].content, [
    { type: 'text', text: 'summary s0' },
    { type: 'text', text: 'prompt u2' },
  ]);
  assert.deepEqual(requestViolations(request), []);
  // A summary plan's request carries the summary once it is written, the pending text before.
  const summarized = planWith(
    'recursive-summarization',
    [...toolLoop(4), assistant('done')],
    { maxEventsToKeep: 2, overlapSize: 0 },
    windowOf(1000),
  );
  assert.match(JSON.stringify(planRequest(summarized)[0]), /summary pending/);
  assert.match(JSON.stringify(planRequest(summarized, { summary: 'They read four files.' })[0]), /They read four files\./);
});
