// The Codex rollout importer (current and legacy rollouts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { blocksOf } from '../../src/core/conversation/conversation';
import { importSession } from '../../src/core/importers';
import { load, shape, assertValid, toolUseBlock } from './importersSupport';

// ---------------------------------------------------------------------------------------------------
// Codex CLI

test('codex rollout: injections are artefacts; reasoning skipped with a warning; parallel calls grouped; outputs mapped', () => {
  const loaded = load('codex-rollout.jsonl');
  assert.equal(loaded.format, 'codex-rollout-jsonl');
  // The developer message, <user_instructions> and <environment_context> are shown as artefacts, never prompts.
  assert.deepEqual(
    loaded.messages.filter((m) => m.artefact).map((m) => `${m.id} ${m.artefact}`),
    ['codex_2 meta', 'codex_3 instructions', 'codex_4 notification'],
  );
  const r = { ...loaded, messages: loaded.messages.filter((m) => !m.artefact) };
  assert.deepEqual(r.messages.map(shape), [
    'user string',
    'assistant tool_use:call_Q3x1Rg0f',
    'user tool_result:call_Q3x1Rg0f',
    'assistant text,tool_use:call_B1cart,tool_use:call_B2coupon',
    'user tool_result:call_B1cart,tool_result:call_B2coupon',
    'assistant tool_use:call_C1patch',
    'user tool_result:call_C1patch',
    'assistant text',
  ]);
  assert.deepEqual(
    r.messages.map((m) => m.id),
    ['codex_5', 'codex_10', 'codex_12', 'codex_13', 'codex_16', 'codex_18', 'codex_19', 'codex_21'],
  );
  assert.equal(r.messages[0].content, 'The checkout total is wrong when a coupon is applied. Please fix it.');
  assert.equal(r.messages[0].createdAt, Date.parse('2025-10-29T10:15:09.840Z'));
  // function_call arguments parsed; custom tool input kept as a string field.
  assert.deepEqual(toolUseBlock(r.messages[1], 'call_Q3x1Rg0f').input, {
    command: ['bash', '-lc', 'rg -n "coupon" src'],
    workdir: '/home/dev/shop',
  });
  assert.match(String((toolUseBlock(r.messages[5], 'call_C1patch').input as { input: string }).input), /^\*\*\* Begin Patch/);
  // String output kept verbatim; content-item output becomes text blocks.
  const results = blocksOf(r.messages[4]) as Array<{ content?: unknown }>;
  assert.equal(typeof results[0].content, 'string');
  assert.deepEqual(results[1].content, [
    { type: 'text', text: 'export function applyCoupon(total: number, c: Coupon) {\n  return total - total * c.percent / 100;\n}\n' },
  ]);
  const allText = loaded.messages.map((m) => JSON.stringify(m.content)).join('\n');
  assert.ok(!allText.includes('Searching for coupon handling'), 'reasoning must not be imported');
  // An older token_count with only total_token_usage: the call's usage, cached input split off.
  assert.deepEqual(r.messages[1].usage, {
    inputTokens: 3048,
    cacheReadTokens: 3072,
    cacheCreationTokens: 0,
    outputTokens: 188,
    model: 'gpt-5-codex',
  });
  assert.deepEqual(r.warnings, [
    'codex-rollout.jsonl:9: skipped 1 reasoning item(s) (encrypted model reasoning: the Messages API rejects unsigned thinking)',
  ]);
  assertValid(loaded.messages);
});

test('codex rollout: bad arguments, stray output, interrupted call, compaction', () => {
  const r = load('codex-interrupted.jsonl');
  assert.equal(r.format, 'codex-rollout-jsonl');
  // An older `compacted` line (summary text, no replacement_history): the context before it is archived,
  // and the current context is what Codex rebuilt: the user prompts, the summary, then what followed.
  assert.equal(r.compactions.length, 1);
  const before = r.compactions[0].before;
  assert.deepEqual(before.map(shape), [
    'user string',
    'assistant tool_use:call_M1migrate',
    'user tool_result:call_M1migrate',
    'assistant text',
  ]);
  assert.deepEqual(r.messages.map(shape), ['user string', 'user string', 'user string']);
  assert.equal(r.messages[0].content, 'Run the migrations and tell me whether they pass.');
  assert.deepEqual(r.compactions[0].summary, r.messages.slice(0, 2));
  assert.deepEqual(toolUseBlock(before[1], 'call_M1migrate').input, { raw: '{"command": ["bash", "-lc", "npm run migrate"' });
  assert.deepEqual(blocksOf(before[2])[0], {
    type: 'tool_result',
    tool_use_id: 'call_M1migrate',
    content: 'error: relation "users" already exists',
    is_error: true,
  });
  assert.equal(r.messages[1].synthetic, 'summary');
  assert.deepEqual(r.warnings, [
    'codex-interrupted.jsonl:3: arguments of tool call call_M1migrate (shell) are not valid JSON; kept as {"raw": …}',
    'codex-interrupted.jsonl:5: tool result for call_ZZstray has no matching tool call before it; dropped',
    'codex-interrupted.jsonl:7: tool call call_M2status (shell) has no result; dropped',
  ]);
  assertValid(before);
  assertValid(r.messages);
});

test('codex legacy rollout (bare items, state markers, {content, success} output)', () => {
  const r = load('codex-legacy.jsonl');
  assert.equal(r.format, 'codex-rollout-jsonl');
  assert.equal(r.messages[0].artefact, 'notification', 'the <environment_context> line');
  assert.deepEqual(r.messages.map(shape), [
    'user string',
    'user string',
    'assistant tool_use:call_L1make',
    'user tool_result:call_L1make',
    'assistant text',
  ]);
  assert.deepEqual(blocksOf(r.messages[3])[0], {
    type: 'tool_result',
    tool_use_id: 'call_L1make',
    content: 'release:\n\t./scripts/bump.sh && git push --tags\n',
  });
  assert.deepEqual(r.warnings, [
    'codex-legacy.jsonl:6: skipped 1 reasoning item(s) (encrypted model reasoning: the Messages API rejects unsigned thinking)',
  ]);
  assertValid(r.messages);
});

test('codex: injected context parts are split off as artefacts from a message that also holds the prompt; images mapped', () => {
  const item = (payload: unknown) => JSON.stringify({ timestamp: '2025-10-29T10:00:00.000Z', type: 'response_item', payload });
  const text = [
    item({
      type: 'message',
      role: 'user',
      content: [
        { type: 'input_text', text: '# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>use pnpm</INSTRUCTIONS>' },
        { type: 'input_text', text: '<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>' },
        { type: 'input_text', text: 'What is in this screenshot?' },
        { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=' },
      ],
    }),
    item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'A login form.' }] }),
    item({ type: 'function_call', name: 'shell', arguments: '{"command":["ls"]}', call_id: 'c1' }),
    item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'stop, never mind' }] }),
  ].join('\n');
  const r = importSession(text, 'rollout-x.jsonl');
  assert.deepEqual(r.messages.map(shape), ['user string', 'user string', 'user text,image', 'assistant text', 'user string']);
  assert.deepEqual(
    r.messages.map((m) => m.artefact),
    ['instructions', 'notification', undefined, undefined, undefined],
  );
  assert.deepEqual(blocksOf(r.messages[2])[1], {
    type: 'image',
    source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' },
  });
  assert.deepEqual(r.warnings, ['rollout-x.jsonl:3: tool call c1 (shell) has no result; dropped']);
  assertValid(r.messages);
});
