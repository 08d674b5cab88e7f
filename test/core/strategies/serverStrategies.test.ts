// The server strategies' emulation against the documented rules (src/core/pipeline/serverContext.ts): the
// clear_tool_uses trigger, keep, exclude_tools, clear_tool_inputs and clear_at_least; compaction's
// trigger, its block archiving what precedes it, and null-content blocks changing nothing; parameter
// validation; the request the agent sends for each.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Message, ToolResultBlock, ToolUseBlock } from '../../../src/core/conversation/conversation';
import { DEFAULT_PLAN_CONTEXT, type PlanContext } from '../../../src/core/pipeline/plan';
import {
  CLEARED_TOOL_RESULT_TEXT,
  COMPACT_BETA,
  CONTEXT_MANAGEMENT_BETA,
  serverContextReport,
  serverContextRequest,
} from '../../../src/core/pipeline/serverContext';
import { getStrategy, planWith, resolveParams, StrategyParamError } from '../../../src/core/strategies';
import { ReplacementCache } from '../../../src/core/pipeline/replacementCache';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../../src/core/counting/tokens';

const ctx = (o: Partial<PlanContext> = {}): PlanContext => ({
  ...DEFAULT_PLAN_CONTEXT,
  tokens: new MemoizedMessageCounter(new CharEstimateTokenizer()),
  ...o,
});

/** A prompt, then `n` tool exchanges (tool names in turn: read_file, search), each result ~`size` chars. */
function history(n: number, size = 4000): Message[] {
  const out: Message[] = [{ id: 'u0', role: 'user', content: 'Investigate.' }];
  for (let i = 0; i < n; i++) {
    const name = i % 2 === 0 ? 'read_file' : 'search';
    out.push({ id: `a${i}`, role: 'assistant', content: [{ type: 'tool_use', id: `t${i}`, name, input: { q: `x${i}` } }] });
    out.push({ id: `r${i}`, role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: `${i}:`.padEnd(size, 'z') }] });
  }
  return out;
}

const resultOf = (m: Message) => (m.content as ToolResultBlock[])[0].content;

test('server-clear-tool-uses: under the trigger nothing is cleared; over it, all but the kept most recent tool uses', () => {
  const msgs = history(6);
  const below = planWith('server-clear-tool-uses', msgs, { triggerTokens: 1_000_000 }, ctx());
  assert.ok(below.noop);
  assert.match(below.notes.join(' '), /emulation of the server.*below the trigger/s);

  const plan = planWith('server-clear-tool-uses', msgs, { triggerTokens: 1_000, keepToolUses: 2 }, ctx());
  assert.ok(!plan.noop);
  assert.deepEqual(
    plan.truncated.map((t) => t.id),
    ['r0', 'r1', 'r2', 'r3'],
  );
  assert.equal(plan.archived.length, 0, 'the server never archives');
  const out = new Map(plan.output.map((m) => [m.id, m]));
  assert.equal(resultOf(out.get('r0')!), CLEARED_TOOL_RESULT_TEXT);
  assert.equal(resultOf(out.get('r5')!), resultOf(msgs[msgs.length - 1]));
  assert.deepEqual((out.get('a0')!.content as ToolUseBlock[])[0].input, { q: 'x0' }, 'inputs stay by default');
  assert.match(plan.notes.join(' '), /clear the 4 oldest tool results/);
});

test('server-clear-tool-uses: exclude_tools (from the settings), clear_tool_inputs and clear_at_least', () => {
  const msgs = history(6);
  const excluded = planWith(
    'server-clear-tool-uses',
    msgs,
    { triggerTokens: 1_000, keepToolUses: 2 },
    ctx({ serverContext: { excludeTools: ['search'] } }),
  );
  assert.deepEqual(
    excluded.truncated.map((t) => t.id),
    ['r0', 'r2'],
  );
  const inputs = planWith('server-clear-tool-uses', msgs, { triggerTokens: 1_000, keepToolUses: 4, clearToolInputs: 1 }, ctx());
  const a0 = inputs.output.find((m) => m.id === 'a0')!;
  assert.deepEqual((a0.content as ToolUseBlock[])[0].input, {});
  const a5 = inputs.output.find((m) => m.id === 'a5')!;
  assert.deepEqual((a5.content as ToolUseBlock[])[0].input, { q: 'x5' });
  // Two results of ~1,000 tokens each can go: clear_at_least above that leaves everything.
  const atLeast = planWith('server-clear-tool-uses', msgs, { triggerTokens: 1_000, keepToolUses: 4, clearAtLeast: 50_000 }, ctx());
  assert.ok(atLeast.noop);
  assert.match(atLeast.notes.join(' '), /fewer than clear_at_least 50000/);
});

test('server-compact: under the trigger a no-op; over it the preview summarizes all but the current turn', () => {
  const msgs = [...history(30, 10_000), { id: 'u9', role: 'user' as const, content: 'Now fix it.' }];
  const below = planWith('server-compact', msgs, { triggerTokens: 1_000_000 }, ctx());
  assert.ok(below.noop);
  assert.match(below.notes.join(' '), /below the trigger/);
  const over = planWith('server-compact', msgs, { triggerTokens: 50_000 }, ctx());
  assert.ok(over.needsSummary);
  assert.equal(over.tailStartId, 'u9');
  assert.match(over.notes.join(' '), /emulation of the server.*would summarize the conversation into a compaction block/s);
});

test('server-compact: a compaction block the server returned archives what precedes it; a null-content one changes nothing', () => {
  const msgs = history(3);
  const block = {
    id: 'ac',
    role: 'assistant' as const,
    content: [
      { type: 'compaction', content: 'Summary so far.' },
      { type: 'text', text: 'Done.' },
    ],
  };
  const plan = planWith('server-compact', [...msgs, block, { id: 'u1', role: 'user', content: 'Next?' }], {}, ctx());
  assert.ok(!plan.needsSummary);
  assert.equal(plan.tailStartId, 'ac');
  assert.deepEqual(
    plan.archived.map((e) => e.id),
    msgs.map((m) => m.id),
  );
  assert.equal(plan.output[0].synthetic, 'placeholder');
  assert.equal(plan.output[1].id, 'ac');
  const failed = {
    ...block,
    content: [
      { type: 'compaction', content: null },
      { type: 'text', text: 'Done.' },
    ],
  };
  const none = planWith('server-compact', [...msgs, failed, { id: 'u1', role: 'user', content: 'Next?' }], {}, ctx());
  assert.ok(none.noop, 'a failed compaction is a no-op (and the history is under the default trigger)');
});

test('parameters are validated like every strategy; the compaction trigger has the documented floor', () => {
  assert.throws(() => resolveParams(getStrategy('server-compact'), { triggerTokens: 10_000 }), StrategyParamError);
  assert.throws(() => resolveParams(getStrategy('server-clear-tool-uses'), { clearToolInputs: 2 }), /between 0 and 1/);
  assert.throws(() => resolveParams(getStrategy('server-clear-tool-uses'), { keep: 2 }), /not a parameter/);
  assert.deepEqual(resolveParams(getStrategy('server-clear-tool-uses')), {
    triggerTokens: 100_000,
    keepToolUses: 3,
    clearAtLeast: 0,
    clearToolInputs: 0,
  });
  assert.deepEqual(resolveParams(getStrategy('server-compact')), { triggerTokens: 150_000, pauseAfterCompaction: 0 });
});

test('the request extras and the report of what the server did', () => {
  assert.equal(serverContextRequest('recent-turns', {}), null);
  assert.deepEqual(
    serverContextRequest('server-clear-tool-uses', { triggerTokens: 5, keepToolUses: 1, clearAtLeast: 0, clearToolInputs: 1 }),
    {
      betas: [CONTEXT_MANAGEMENT_BETA],
      context_management: {
        edits: [
          {
            type: 'clear_tool_uses_20250919',
            trigger: { type: 'input_tokens', value: 5 },
            keep: { type: 'tool_uses', value: 1 },
            clear_tool_inputs: true,
          },
        ],
      },
    },
  );
  assert.deepEqual(
    serverContextRequest('server-compact', { triggerTokens: 60_000, pauseAfterCompaction: 1 }, { instructions: '  keep paths ' }),
    {
      betas: [COMPACT_BETA],
      context_management: {
        edits: [
          {
            type: 'compact_20260112',
            trigger: { type: 'input_tokens', value: 60_000 },
            instructions: 'keep paths',
            pause_after_compaction: true,
          },
        ],
      },
    },
  );
  const cleared = serverContextReport('server-clear-tool-uses', {
    content: [],
    context_management: { applied_edits: [{ type: 'clear_tool_uses_20250919', cleared_tool_uses: 6, cleared_input_tokens: 12_400 }] },
  });
  assert.deepEqual(cleared, { strategy: 'server-clear-tool-uses', clearedToolUses: 6, clearedInputTokens: 12_400 });
  assert.equal(serverContextReport('server-compact', { content: [{ type: 'compaction', content: null }] })?.compaction, 'failed');
  assert.equal(serverContextReport('server-compact', { content: [{ type: 'compaction', content: 'S' }] })?.compaction, 'applied');
});

test('server-clear-tool-uses: with the session ReplacementCache, planning again returns the same copies; inputs cleared or not are different copies', () => {
  const msgs = history(8);
  const copies = new ReplacementCache();
  const c = ctx({ copies });
  const first = planWith('server-clear-tool-uses', msgs, { triggerTokens: 100, keepToolUses: 2 }, c);
  const again = planWith('server-clear-tool-uses', msgs, { triggerTokens: 100, keepToolUses: 2 }, c);
  const changed = first.output.filter((m, i) => m !== msgs[i]);
  assert.equal(changed.length, 6, 'the 6 oldest results cleared');
  assert.ok(
    first.output.every((m, i) => m === again.output[i]),
    'the same objects: the token memo knows them',
  );
  assert.deepEqual(
    first.output,
    planWith('server-clear-tool-uses', msgs, { triggerTokens: 100, keepToolUses: 2 }, ctx()).output,
    'same as without the cache',
  );
  const withInputs = planWith('server-clear-tool-uses', msgs, { triggerTokens: 100, keepToolUses: 2, clearToolInputs: 1 }, c);
  assert.notEqual(withInputs.output[1], first.output[1], 'a cleared input is another copy');
  assert.deepEqual((withInputs.output[1].content as ToolUseBlock[])[0].input, {});
  assert.equal(resultOf(again.output[2]), CLEARED_TOOL_RESULT_TEXT);
});
