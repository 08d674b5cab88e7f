// Codex rollout importer on synthetic rollouts: compactions (encrypted, redacted, two in a row), recorded
// usage, thread rollback, artefacts, search calls.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { blocksOf, isTurnStart, kindOf, textOf, toApiMessages, type Message } from '../../../src/core/conversation/conversation';
import { requestViolations } from '../../../src/core/conversation/invariants';
import { importSession, type ImportResult } from '../../../src/core/importers';

const SESSIONS = join(import.meta.dirname ?? __dirname, '..', '..', 'fixtures', 'sessions');

function load(name: string): ImportResult {
  return importSession(readFileSync(join(SESSIONS, name), 'utf8'), name);
}

/** id, then kind (artefact kind for artefacts), per message. */
function kinds(messages: readonly Message[]): string[] {
  return messages.map((m) => `${m.id} ${m.artefact ?? kindOf(m)}`);
}

function assertValid(messages: readonly Message[]): void {
  assert.deepEqual(requestViolations(toApiMessages(messages)), []);
}

/** A rollout line (envelope form) for inline cases. */
function line(type: string, payload: unknown, second = 0): string {
  return JSON.stringify({ timestamp: new Date(Date.UTC(2026, 2, 2, 9, 0, second)).toISOString(), type, payload });
}
const userItem = (text: string) => line('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
const assistantItem = (text: string) =>
  line('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] });

test('codex: two compactions: each archives the context it replaced; the current context is the last replacement plus what followed', () => {
  const r = load('codex-compactions.jsonl');
  assert.equal(r.compactions.length, 2);
  const [first, second] = r.compactions;
  assert.deepEqual(
    [first.line, first.trigger, first.preTokens, first.source],
    [15, 'auto', 12700, 'codex-rollout-jsonl'],
    'preTokens: the last call before it (12,500 input + 200 output); the repeated event at line 14 is not a call',
  );
  assert.equal(first.at, Date.parse('2026-03-02T09:00:15.000Z'));
  assert.deepEqual(kinds(first.before), [
    'codex_2 meta',
    'codex_3 instructions',
    'codex_3_1 notification',
    'codex_5 user-prompt',
    'codex_8 tool-call',
    'codex_11 tool-result',
    'codex_12 assistant-text',
  ]);
  // The encrypted summary item is a placeholder summary in its place.
  assert.deepEqual(kinds(first.summary), ['codex_15_h0 user-prompt', 'codex_15_h1 meta', 'codex_15_h2 summary']);
  assert.match(textOf(first.summary[2]), /encrypted/);
  // The second compaction's `before` is exactly the context after the first: its replacement plus what followed.
  assert.deepEqual(second.before.slice(0, 3), first.summary);
  assert.deepEqual(kinds(second.before.slice(3)), [
    'codex_19 user-prompt',
    'codex_20 tool-call',
    'codex_22 tool-result',
    'codex_23 assistant-text',
  ]);
  assert.deepEqual([second.line, second.trigger, second.preTokens], [25, 'manual', 7090]);
  // A summary message whose text the recorder redacted: a placeholder summary, never the word REDACTED as a prompt.
  assert.deepEqual(kinds(second.summary), ['codex_25_h0 user-prompt', 'codex_25_h1 user-prompt', 'codex_25_h2 summary']);
  assert.match(textOf(second.summary[2]), /redacted in the recording/);
  assert.ok(!textOf(second.summary[2]).includes('REDACTED'));
  assert.deepEqual(r.messages.slice(0, 3), second.summary);
  assert.deepEqual(kinds(r.messages.slice(3)), ['codex_26 user-prompt', 'codex_27 assistant-text']);
  assert.deepEqual(r.warnings, [
    'codex-compactions.jsonl:15: payload.replacement_history[2]: the compaction summary is encrypted; kept as a placeholder',
    'codex-compactions.jsonl:25: the compaction summary is redacted in the recording; kept as a placeholder',
    'codex-compactions.jsonl:7: skipped 1 reasoning item(s) (encrypted model reasoning: the Messages API rejects unsigned thinking)',
  ]);
  for (const context of [first.before, second.before, r.messages]) assertValid(context);
});

test('codex: token_count events become the recorded usage of their call; window and model come from the recording', () => {
  const r = load('codex-compactions.jsonl');
  assert.equal(r.contextWindow, 272000);
  assert.equal(r.model, 'gpt-5.1-codex-max', 'the model of the last turn_context');
  const [first, second] = r.compactions;
  const usage = (messages: readonly Message[], id: string) => messages.find((m) => m.id === id)?.usage;
  // input_tokens includes the cached part in Codex; output already includes reasoning.
  assert.deepEqual(usage(first.before, 'codex_8'), {
    inputTokens: 4000,
    cacheReadTokens: 8000,
    cacheCreationTokens: 0,
    outputTokens: 300,
    model: 'gpt-5-codex',
    contextWindow: 272000,
  });
  assert.deepEqual(usage(first.before, 'codex_12'), {
    inputTokens: 1500,
    cacheReadTokens: 11000,
    cacheCreationTokens: 0,
    outputTokens: 200,
    model: 'gpt-5-codex',
    contextWindow: 272000,
  });
  assert.equal(usage(second.before, 'codex_20')?.model, 'gpt-5.1-codex-max');
  assert.equal(usage(second.before, 'codex_20')?.inputTokens, 1000);
  assert.deepEqual(usage(r.messages, 'codex_27'), {
    inputTokens: 3000,
    cacheReadTokens: 0,
    cacheCreationTokens: 0,
    outputTokens: 20,
    model: 'gpt-5.1-codex-max',
    contextWindow: 272000,
  });
  const all = [...first.before, ...second.before, ...r.messages];
  assert.ok(
    all.every((m) => m.usage === undefined || m.role === 'assistant'),
    'usage sits on assistant messages only',
  );
  // Calls: lines 10, 13, 21, 24, 28 (14 repeats 13; 17 is the recount after the compaction).
  assert.equal(new Set(all.filter((m) => m.usage).map((m) => m.id)).size, 5);
});

test('codex: thread_rolled_back drops the last num_turns user turns; the prompt after it continues the context', () => {
  const r = load('codex-rollback.jsonl');
  assert.deepEqual(kinds(r.messages), [
    'codex_2 notification',
    'codex_3 user-prompt',
    'codex_4 assistant-text',
    'codex_14 user-prompt',
    'codex_15 assistant-text',
  ]);
  assert.ok(!r.messages.some((m) => /baz to qux|old tests/.test(textOf(m))), 'the rolled-back turns left the context');
  assert.equal(r.messages[2].usage?.inputTokens, 1000);
  assert.deepEqual(r.warnings, ['codex-rollback.jsonl:13: thread rolled back 2 turn(s): 6 item(s) (lines 6-12) left the context']);
  assertValid(r.messages);
});

test('codex: a rollback of more turns than the window holds reaches into the compacted context', () => {
  const text = [
    userItem('First prompt.'),
    assistantItem('First answer.'),
    line('compacted', {
      message: '',
      replacement_history: [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'First prompt.' }] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Second prompt.' }] },
      ],
    }),
    assistantItem('Second answer.'),
    userItem('Third prompt.'),
    assistantItem('Third answer.'),
    line('event_msg', { type: 'thread_rolled_back', num_turns: 2 }),
    line('event_msg', { type: 'thread_rolled_back', num_turns: 5 }),
  ].join('\n');
  const r = importSession(text, 'rollout-deep.jsonl');
  assert.deepEqual(r.messages, [], 'every user turn was rolled back; nothing preceded the first prompt');
  assert.deepEqual(r.warnings, [
    'rollout-deep.jsonl:3: replacement_history holds no summary item (2 message(s): earlier prompts and instructions); imported as recorded',
    'rollout-deep.jsonl:7: thread rolled back 2 turn(s): 3 item(s) (lines 4-6) and 1 message(s) of the compacted context left the context',
    'rollout-deep.jsonl:8: thread rolled back 5 turn(s), but the context held only 1: all of them removed',
    'rollout-deep.jsonl:8: thread rolled back 5 turn(s): 0 item(s) and 1 message(s) of the compacted context left the context',
  ]);
  assert.equal(r.compactions[0].summary.length, 2, 'the recorded compaction itself is unchanged');
});

test('codex: artefacts are shown with their kind and never count as prompts; search calls are kept', () => {
  const r = load('codex-artefacts.jsonl');
  assert.deepEqual(kinds(r.messages), [
    'codex_2 meta',
    'codex_3 instructions',
    'codex_3_1 notification',
    'codex_4 user-prompt',
    'codex_6 assistant-text',
    'codex_9 user-prompt',
    'codex_10 tool-call',
    'codex_11 tool-result',
    'codex_14 interruption',
    'codex_15 shell-input',
    'codex_16 user-prompt',
    'codex_17 assistant-text',
  ]);
  assert.deepEqual(
    r.messages.filter(isTurnStart).map((m) => m.content),
    [
      'Find the docs for the Phoenix OTLP endpoint.',
      'Use the deepwiki tool to look at the repo.',
      'Skip deepwiki; summarise what you found.',
    ],
  );
  // web_search_call: the query and the opened page, as the model's text (the rollout has no results).
  assert.deepEqual(
    blocksOf(r.messages[4]).map((b) => (b.type === 'text' ? b.text : b.type)),
    [
      '[web search: "phoenix otlp endpoint"; "arize phoenix /v1/traces"]',
      '[web search: open_page https://arize.com/docs/phoenix/tracing]',
      'The endpoint is /v1/traces on port 6006.',
    ],
  );
  // tool_search_call + tool_search_output: a tool pair, the tools found as the result.
  assert.deepEqual(blocksOf(r.messages[6]), [
    { type: 'tool_use', id: 'call_T1', name: 'tool_search', input: { query: 'deepwiki ask_question', limit: 2 } },
  ]);
  assert.deepEqual(blocksOf(r.messages[7]), [
    { type: 'tool_result', tool_use_id: 'call_T1', content: '[{"type":"namespace","name":"mcp__deepwiki","description":"DeepWiki MCP"}]' },
  ]);
  assert.deepEqual(r.warnings, [
    'codex-artefacts.jsonl:12: tool call call_D1 (mcp__deepwiki__ask_question) has no result; dropped',
    'codex-artefacts.jsonl:5: skipped 1 reasoning item(s) (encrypted model reasoning: the Messages API rejects unsigned thinking)',
  ]);
  assertValid(r.messages);
});

test('codex: a replacement history without a summary item is imported as recorded, with a warning', () => {
  const text = [
    userItem('Plan the migration.'),
    assistantItem('Plan: three steps.'),
    line('compacted', {
      message: '',
      replacement_history: [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Plan the migration.' }] },
        {
          type: 'message',
          role: 'developer',
          content: [{ type: 'input_text', text: '<permissions instructions>x</permissions instructions>' }],
        },
      ],
    }),
    assistantItem('Step one done.'),
  ].join('\n');
  const r = importSession(text, 'rollout-nosummary.jsonl');
  assert.deepEqual(kinds(r.messages), ['codex_3_h0 user-prompt', 'codex_3_h1 meta', 'codex_4 assistant-text']);
  assert.ok(!r.messages.some((m) => m.synthetic), 'no summary is invented');
  assert.deepEqual(r.compactions[0].preTokens, null, 'no token_count before it');
  assert.deepEqual(r.warnings, [
    'rollout-nosummary.jsonl:3: replacement_history holds no summary item (2 message(s): earlier prompts and instructions); imported as recorded',
  ]);
  assertValid(r.messages);
});

test('codex: a malformed compaction or rollback names its line and field', () => {
  assert.throws(
    () => importSession([userItem('Hi.'), line('compacted', { replacement_history: 'gone' })].join('\n'), 'bad-compaction.jsonl'),
    /bad-compaction\.jsonl:2: payload\.replacement_history: expected an array of items, got "gone"/,
  );
  assert.throws(
    () => importSession([userItem('Hi.'), line('compacted', { message: '', replacement_history: [42] })].join('\n'), 'bad-item.jsonl'),
    /bad-item\.jsonl:2: payload\.replacement_history\[0\]: expected an item object, got number 42/,
  );
  assert.throws(
    () =>
      importSession([userItem('Hi.'), line('event_msg', { type: 'thread_rolled_back', num_turns: -1 })].join('\n'), 'bad-rollback.jsonl'),
    /bad-rollback\.jsonl:2: payload\.num_turns: expected a non-negative integer, got number -1/,
  );
});

test('codex: a malformed token_count is a warning, not a call; repeated and info-less events are not calls', () => {
  const tokenCount = (info: unknown) => line('event_msg', { type: 'token_count', info, rate_limits: null });
  const usage = { input_tokens: 900, cached_input_tokens: 400, output_tokens: 30, total_tokens: 930 };
  const text = [
    userItem('Hi.'),
    assistantItem('Hello.'),
    tokenCount({ total_token_usage: usage, last_token_usage: usage, model_context_window: 128000 }),
    tokenCount({ total_token_usage: usage, last_token_usage: usage, model_context_window: 128000 }),
    tokenCount(null),
    userItem('Again.'),
    assistantItem('Hello again.'),
    tokenCount({ last_token_usage: { input_tokens: 'many', output_tokens: 3 } }),
  ].join('\n');
  const r = importSession(text, 'rollout-usage.jsonl');
  assert.equal(r.messages[1].usage?.cacheReadTokens, 400);
  assert.equal(r.messages[3].usage, undefined);
  assert.equal(r.contextWindow, 128000);
  assert.deepEqual(r.warnings, [
    'rollout-usage.jsonl:8: token_count payload.info.last_token_usage.input_tokens: expected a non-negative number, got "many"; usage not recorded',
  ]);
});
