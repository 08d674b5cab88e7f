import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { blocksOf, kindOf, toApiMessages, type ContentBlock, type Message } from '../../src/core/conversation/conversation';
import { requestViolations } from '../../src/core/conversation/invariants';
import {
  detectFormat,
  importSession,
  ImportError,
  serializeSplitpointJsonl,
  SPLITPOINT_HEADER_TYPE,
  type ImportResult,
} from '../../src/core/importers';

const FIXTURES = join(import.meta.dirname ?? __dirname, '..', 'fixtures');

function fixture(kind: 'sessions' | 'malformed', name: string): string {
  return readFileSync(join(FIXTURES, kind, name), 'utf8');
}

function load(name: string): ImportResult {
  return importSession(fixture('sessions', name), name);
}

/** A compact picture of a message: role, then its block types (tool ids after a colon). */
function shape(m: Message): string {
  const blocks =
    typeof m.content === 'string'
      ? ['string']
      : m.content.map((b) =>
          b.type === 'tool_use' ? `tool_use:${b.id}` : b.type === 'tool_result' ? `tool_result:${b.tool_use_id}` : b.type,
        );
  return `${m.role} ${blocks.join(',')}`;
}

function assertValid(messages: Message[]): void {
  assert.deepEqual(requestViolations(toApiMessages(messages)), []);
}

function importError(text: string, name: string): ImportError {
  try {
    importSession(text, name);
  } catch (e) {
    assert.ok(e instanceof ImportError, `expected an ImportError, got ${String(e)}`);
    return e;
  }
  assert.fail(`${name}: expected importSession to throw`);
}

function malformed(name: string): ImportError {
  return importError(fixture('malformed', name), name);
}

function toolUseBlock(m: Message, id: string): ContentBlock & { input?: unknown } {
  const block = blocksOf(m).find((b) => b.type === 'tool_use' && b.id === id);
  assert.ok(block, `no tool_use ${id} in ${m.id}`);
  return block;
}

// ---------------------------------------------------------------------------------------------------
// Splitpoint JSONL

test('splitpoint session: header, blank line, parallel tool calls', () => {
  const r = load('splitpoint-session.jsonl');
  assert.equal(r.format, 'splitpoint-jsonl');
  assert.deepEqual(r.header, { type: SPLITPOINT_HEADER_TYPE, version: 1, sessionId: 'sess_2b7f01', createdAt: 1761732900000 });
  assert.deepEqual(r.messages.map(shape), [
    'user string',
    'assistant text,tool_use:toolu_01Exp',
    'user tool_result:toolu_01Exp',
    'assistant text,tool_use:toolu_02Fix,tool_use:toolu_03Tst',
    'user tool_result:toolu_02Fix,tool_result:toolu_03Tst',
    'assistant string',
  ]);
  assert.deepEqual(
    r.messages.map((m) => m.id),
    ['m_01', 'm_02', 'm_03', 'm_04', 'm_05', 'm_06'],
  );
  assert.equal(r.messages[0].createdAt, 1761732901000);
  assert.deepEqual(r.warnings, []);
  assertValid(r.messages);
});

test('splitpoint transcript without header keeps synthetic and truncation metadata', () => {
  const r = load('splitpoint-transcript.jsonl');
  assert.equal(r.format, 'splitpoint-jsonl');
  assert.equal(r.header, undefined);
  assert.equal(r.messages.length, 6);
  assert.deepEqual(r.messages.map(kindOf), ['user-prompt', 'tool-call', 'tool-result', 'tool-result', 'summary', 'placeholder']);
  assert.deepEqual(r.messages[3].truncated, {
    results: [{ toolUseId: 'toolu_01Exp', toolName: 'read_file', originalChars: 52 }],
    originalId: 'm_03',
  });
});

test('serializeSplitpointJsonl round-trips exactly', () => {
  for (const name of [
    'splitpoint-session.jsonl',
    'splitpoint-transcript.jsonl',
    'claude-code-session.jsonl',
    'codex-rollout.jsonl',
    'anthropic-request.json',
  ]) {
    const original = load(name).messages;
    const text = serializeSplitpointJsonl(original, { sessionId: `round-${name}`, createdAt: 1761732900000 });
    const back = importSession(text, 'round.jsonl');
    assert.equal(back.format, 'splitpoint-jsonl');
    assert.deepEqual(back.messages, original, name);
    assert.deepEqual(back.header, { type: SPLITPOINT_HEADER_TYPE, version: 1, sessionId: `round-${name}`, createdAt: 1761732900000 });
    assert.deepEqual(back.warnings, []);
    // Serializing what was read gives the same bytes.
    assert.equal(serializeSplitpointJsonl(back.messages, back.header), text);
  }
  const bare = serializeSplitpointJsonl(load('splitpoint-session.jsonl').messages);
  assert.ok(!bare.includes(SPLITPOINT_HEADER_TYPE));
  assert.equal(importSession(bare, 'bare.jsonl').header, undefined);
});

test('splitpoint: duplicate ids are reported, CRLF and a BOM are accepted', () => {
  const text = '\ufeff{"id":"a","role":"user","content":"one"}\r\n\r\n{"id":"a","role":"user","content":"two"}\r\n';
  const r = importSession(text, 'dup.jsonl');
  assert.equal(r.messages.length, 2);
  assert.deepEqual(r.warnings, ['dup.jsonl:3: duplicate message id a (also on line 1)']);
});

// ---------------------------------------------------------------------------------------------------
// Anthropic Messages JSON

test('anthropic request body: messages imported, system/tools ignored, ids imp_<index>', () => {
  const r = load('anthropic-request.json');
  assert.equal(r.format, 'anthropic-json');
  assert.deepEqual(
    r.messages.map((m) => m.id),
    ['imp_0', 'imp_1', 'imp_2', 'imp_3', 'imp_4', 'imp_5'],
  );
  assert.deepEqual(r.messages.map(shape), [
    'user string',
    'assistant thinking,text,tool_use:toolu_01Flag',
    'user tool_result:toolu_01Flag',
    'assistant tool_use:toolu_02Cli,tool_use:toolu_03Fmt',
    'user tool_result:toolu_02Cli,tool_result:toolu_03Fmt',
    'assistant text',
  ]);
  assert.deepEqual(r.warnings, []);
  assertValid(r.messages);
  // Same file, same ids.
  assert.deepEqual(load('anthropic-request.json').messages, r.messages);
});

test('anthropic bare array of messages', () => {
  const r = load('anthropic-messages.json');
  assert.equal(r.format, 'anthropic-json');
  assert.deepEqual(r.messages.map(shape), [
    'user text',
    'assistant tool_use:toolu_01Todo',
    'user tool_result:toolu_01Todo',
    'assistant string',
  ]);
  assertValid(r.messages);
});

test('anthropic: an invalid request is imported with warnings', () => {
  const text = JSON.stringify([
    { role: 'user', content: 'go' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_x', name: 'bash', input: {} }] },
  ]);
  const r = importSession(text, 'req.json');
  assert.equal(r.messages.length, 2);
  assert.deepEqual(r.warnings, [
    'req.json: not a valid Messages API request: messages[1]: tool_use toolu_x has no tool_result in the next message',
  ]);
});

// ---------------------------------------------------------------------------------------------------
// Claude Code

test('claude code: split assistant lines merged, sidechain/system lines skipped, meta caveat kept as an artefact, parallel results grouped', () => {
  const r = load('claude-code-session.jsonl');
  assert.equal(r.format, 'claude-code-jsonl');
  assert.deepEqual(r.messages.map(shape), [
    'user string', // the isMeta caveat: the model read it, so it is kept, as a 'meta' artefact
    'user string',
    'assistant thinking,text,tool_use:toolu_01ReadParser',
    'user tool_result:toolu_01ReadParser',
    'assistant tool_use:toolu_02GrepCalls,tool_use:toolu_03TaskTests',
    'user tool_result:toolu_02GrepCalls,tool_result:toolu_03TaskTests',
    'assistant text,tool_use:toolu_04EditTable',
    'user tool_result:toolu_04EditTable',
    'assistant text',
  ]);
  assert.equal(r.messages[0].artefact, 'meta');
  assert.equal(kindOf(r.messages[0]), 'artefact');
  assert.ok((r.messages[0].content as string).includes('Caveat'));
  assert.equal(r.messages[1].artefact, undefined);
  // Message id = uuid of the message's first line.
  assert.equal(r.messages[1].id, 'u1b2c3d4-0000-4000-8000-000000000002');
  assert.equal(r.messages[2].id, 'a1000000-0000-4000-8000-000000000003');
  assert.equal(r.messages[1].createdAt, Date.parse('2025-11-03T09:14:02.118Z'));
  // The thinking block keeps its signature; nothing from the sidechain leaks in; the caveat is the only meta line.
  assert.equal((blocksOf(r.messages[2])[0] as { signature?: string }).signature, 'EuYBCkYICBgCKkDkR2x0Zm9vYmFyLXNpZ25hdHVyZQ==');
  const allText = r.messages
    .slice(1)
    .map((m) => JSON.stringify(m.content))
    .join('\n');
  assert.ok(!allText.includes('Caveat'));
  assert.ok(!r.messages.some((m) => m.id.startsWith('sc')), 'sidechain lines must be skipped');
  assert.ok(!r.messages.some((m) => m.content === 'List every test that covers leap years in test/.'), 'sidechain prompt must be skipped');
  assert.ok(!allText.includes('Turn took'));
  // Line 19 queues a prompt that was never sent before the recording ends: reported, not silently dropped.
  assert.deepEqual(r.warnings, [
    'claude-code-session.jsonl:19: queued prompt still waiting when the recording ends (never sent to the model); skipped',
  ]);
  assertValid(r.messages);
});

test('claude code: rewound branch skipped, the recorded compaction archives the history before it, interrupted call dropped', () => {
  const r = load('claude-code-rewind-compact.jsonl');
  assert.equal(r.format, 'claude-code-jsonl');
  // The current context: the compaction's summary and what followed it.
  assert.deepEqual(r.messages.map(shape), [
    'user string', // compaction summary
    'user string',
    'assistant text', // its tool_use (line 13) never got a result
  ]);
  assert.equal(r.messages[0].synthetic, 'summary');
  assert.equal(kindOf(r.messages[0]), 'summary');
  assert.ok((r.messages[0].content as string).startsWith('This session is being continued'));
  assert.equal(r.messages.filter((m) => m.synthetic).length, 1);
  // The history before it is archived in the recorded compaction.
  assert.equal(r.compactions.length, 1);
  const [c] = r.compactions;
  assert.deepEqual(c.before.map(shape), [
    'user string',
    'assistant text,tool_use:toolu_11Patch',
    'user tool_result:toolu_11Patch',
    'assistant text',
    'user string', // the edited prompt (line 7), not the abandoned one (line 5)
    'assistant text',
  ]);
  assert.equal(c.before[4].content, 'Also print the list of files that would change.');
  assert.deepEqual(c.summary, [r.messages[0]]);
  assert.equal(c.line, 9);
  assert.equal(c.source, 'claude-code-jsonl');
  assert.equal(c.trigger, 'manual');
  assert.equal(c.preTokens, 48211);
  assert.deepEqual(r.warnings, [
    'claude-code-rewind-compact.jsonl: skipped 2 message line(s) on branches abandoned by a rewind or an edit (lines 5, 6)',
    'claude-code-rewind-compact.jsonl:13: tool call toolu_12WriteTest (Write) has no result; dropped',
  ]);
  assertValid(r.messages);
  assertValid(c.before);
});

function claudeLine(fields: Record<string, unknown>): string {
  return JSON.stringify({ isSidechain: false, sessionId: 's', timestamp: '2025-11-03T09:00:00.000Z', ...fields });
}

test('claude code: blocks of one response interleaved with their results stay one message', () => {
  const lines = [
    claudeLine({ type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content: 'check both files' } }),
    claudeLine({
      type: 'assistant',
      uuid: 'a1',
      parentUuid: 'u1',
      message: { id: 'msg_1', role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Read', input: { file_path: 'a' } }] },
    }),
    claudeLine({
      type: 'user',
      uuid: 'r1',
      parentUuid: 'a1',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'A' }] },
    }),
    claudeLine({
      type: 'assistant',
      uuid: 'a2',
      parentUuid: 'r1',
      message: { id: 'msg_1', role: 'assistant', content: [{ type: 'tool_use', id: 't2', name: 'Read', input: { file_path: 'b' } }] },
    }),
    claudeLine({
      type: 'user',
      uuid: 'r2',
      parentUuid: 'a2',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't2', content: 'B', is_error: null }] },
    }),
    claudeLine({
      type: 'assistant',
      uuid: 'a3',
      parentUuid: 'r2',
      message: { id: 'msg_2', role: 'assistant', content: [{ type: 'text', text: 'Both read.' }] },
    }),
  ];
  const r = importSession(lines.join('\n'), 'interleaved.jsonl');
  assert.deepEqual(r.messages.map(shape), [
    'user string',
    'assistant tool_use:t1,tool_use:t2',
    'user tool_result:t1,tool_result:t2',
    'assistant text',
  ]);
  assert.equal('is_error' in blocksOf(r.messages[2])[1], false, 'a null is_error is dropped');
  assert.deepEqual(r.warnings, []);
  assertValid(r.messages);
});

test('claude code: lines without parentUuid links are read linearly; orphan results dropped; API-error lines skipped', () => {
  const lines = [
    JSON.stringify({ type: 'user', uuid: 'u1', message: { role: 'user', content: 'hello' } }),
    JSON.stringify({
      type: 'user',
      uuid: 'r0',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'nope', content: 'x' }] },
    }),
    JSON.stringify({
      type: 'assistant',
      uuid: 'e1',
      isApiErrorMessage: true,
      message: { id: 'x', role: 'assistant', model: '<synthetic>', content: [{ type: 'text', text: 'API Error: 529 Overloaded' }] },
    }),
    JSON.stringify({
      type: 'assistant',
      uuid: 'a1',
      message: {
        id: 'msg_1',
        role: 'assistant',
        content: [
          { type: 'text', text: 'hi' },
          { type: 'text', text: '  \n' },
        ],
      },
    }),
  ];
  const r = importSession(lines.join('\n'), 'linear.jsonl');
  assert.equal(r.format, 'claude-code-jsonl');
  assert.deepEqual(r.messages.map(shape), ['user string', 'assistant text']);
  assert.deepEqual(r.warnings, ['linear.jsonl:2: tool result for nope has no matching tool call before it; dropped']);
  assertValid(r.messages);
});

test('claude code: a sub-agent transcript (all sidechain) imports its own chain', () => {
  const lines = [
    claudeLine({
      type: 'user',
      uuid: 's1',
      parentUuid: null,
      isSidechain: true,
      agentId: '6e067db7',
      message: { role: 'user', content: 'Find the leap-year tests' },
    }),
    claudeLine({
      type: 'assistant',
      uuid: 's2',
      parentUuid: 's1',
      isSidechain: true,
      agentId: '6e067db7',
      message: { id: 'msg_s', role: 'assistant', content: [{ type: 'text', text: 'Two, in test/date.test.ts.' }] },
    }),
  ];
  const r = importSession(lines.join('\n'), 'agent-6e067db7.jsonl');
  assert.deepEqual(r.messages.map(shape), ['user string', 'assistant text']);
  assert.deepEqual(r.warnings, []);
});

test('an agent log with no conversation in it imports as empty, with a warning', () => {
  const claude = importSession('{"type":"summary","summary":"Old title","leafUuid":"x"}\n', 'titles.jsonl');
  assert.equal(claude.format, 'claude-code-jsonl');
  assert.deepEqual(claude.messages, []);
  assert.deepEqual(claude.warnings, ['titles.jsonl: no conversation messages found']);
  const codex = importSession('{"timestamp":"2025-10-29T10:00:00Z","type":"session_meta","payload":{"id":"x"}}\n', 'rollout-empty.jsonl');
  assert.equal(codex.format, 'codex-rollout-jsonl');
  assert.deepEqual(codex.warnings, ['rollout-empty.jsonl: no conversation messages found']);
});

// ---------------------------------------------------------------------------------------------------
// Codex CLI

test('codex rollout: injections are artefacts; reasoning skipped with a warning; parallel calls grouped; outputs mapped', () => {
  const loaded = load('codex-rollout.jsonl');
  assert.equal(loaded.format, 'codex-rollout-jsonl');
  // The developer message, <user_instructions> and <environment_context> are shown as artefacts, never prompts.
  assert.deepEqual(
    loaded.messages.filter((m) => m.artefact).map((m) => `${m.id} ${m.artefact}`),
    ['codex_2 meta', 'codex_3 meta', 'codex_4 notification'],
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
    ['meta', 'notification', undefined, undefined, undefined],
  );
  assert.deepEqual(blocksOf(r.messages[2])[1], {
    type: 'image',
    source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' },
  });
  assert.deepEqual(r.warnings, ['rollout-x.jsonl:3: tool call c1 (shell) has no result; dropped']);
  assertValid(r.messages);
});

// ---------------------------------------------------------------------------------------------------
// Detection

test('detectFormat recognises every fixture', () => {
  const expected: Record<string, string> = {
    'splitpoint-session.jsonl': 'splitpoint-jsonl',
    'splitpoint-transcript.jsonl': 'splitpoint-jsonl',
    'anthropic-request.json': 'anthropic-json',
    'anthropic-messages.json': 'anthropic-json',
    'claude-code-session.jsonl': 'claude-code-jsonl',
    'claude-code-rewind-compact.jsonl': 'claude-code-jsonl',
    'codex-rollout.jsonl': 'codex-rollout-jsonl',
    'codex-interrupted.jsonl': 'codex-rollout-jsonl',
    'codex-legacy.jsonl': 'codex-rollout-jsonl',
  };
  for (const [name, format] of Object.entries(expected)) {
    assert.equal(detectFormat(fixture('sessions', name), name), format, name);
    // Content decides, not the file name.
    assert.equal(detectFormat(fixture('sessions', name), 'upload.txt'), format, `${name} as upload.txt`);
  }
  assert.equal(detectFormat('{"messages":[{"role":"user","content":"hi"}]}', 'one-line.jsonl'), 'anthropic-json');
  assert.equal(detectFormat('{"id":"m1","role":"user","content":"hi"}', 'single.jsonl'), 'splitpoint-jsonl');
});

// ---------------------------------------------------------------------------------------------------
// Malformed input

test('malformed: invalid JSON on a line names the file and line', () => {
  const e = malformed('truncated-line.jsonl');
  assert.equal(e.file, 'truncated-line.jsonl');
  assert.equal(e.line, 4);
  assert.equal(e.field, undefined);
  assert.match(e.message, /^truncated-line\.jsonl:4: invalid JSON: /);
});

test('malformed: whole-file JSON syntax error reports the line of the error', () => {
  const e = malformed('bad-syntax.json');
  assert.equal(e.file, 'bad-syntax.json');
  assert.equal(e.line, 5);
  assert.equal(e.field, undefined);
  assert.match(e.message, /^bad-syntax\.json:5: invalid JSON: /);
});

test('malformed: system role in Anthropic JSON', () => {
  const e = malformed('wrong-role.json');
  assert.equal(e.file, 'wrong-role.json');
  assert.equal(e.line, undefined);
  assert.equal(e.field, 'messages[2].role');
  assert.equal(e.message, 'wrong-role.json: messages[2].role: expected "user" or "assistant", got "system"');
});

test('malformed: tool_use without id (Anthropic JSON, Claude Code)', () => {
  const json = malformed('missing-tool-use-id.json');
  assert.equal(json.line, undefined);
  assert.equal(json.field, 'messages[1].content[1].id');
  assert.equal(json.message, 'missing-tool-use-id.json: messages[1].content[1].id: missing: a tool_use block needs a non-empty id');

  const claude = malformed('claude-tool-use-no-id.jsonl');
  assert.equal(claude.file, 'claude-tool-use-no-id.jsonl');
  assert.equal(claude.line, 2);
  assert.equal(claude.field, 'message.content[0].id');
});

test('malformed: tool_result without tool_use_id in Splitpoint JSONL', () => {
  const e = malformed('missing-tool-use-id.jsonl');
  assert.equal(e.line, 3);
  assert.equal(e.field, 'content[1].tool_use_id');
  assert.equal(e.message, 'missing-tool-use-id.jsonl:3: content[1].tool_use_id: missing: a tool_result block needs the id of its tool_use');
});

test('malformed: content of the wrong type', () => {
  const e = malformed('wrong-content-type.jsonl');
  assert.equal(e.line, 2);
  assert.equal(e.field, 'content');
  assert.equal(e.message, 'wrong-content-type.jsonl:2: content: expected a string or an array of content blocks, got number 42');
});

test('malformed: empty file', () => {
  const e = malformed('empty.jsonl');
  assert.equal(e.file, 'empty.jsonl');
  assert.equal(e.line, undefined);
  assert.equal(e.field, undefined);
  assert.equal(e.message, 'empty.jsonl: the file is empty');
  assert.throws(
    () => detectFormat('', 'blank.json'),
    (err: unknown) => err instanceof ImportError && err.message === 'blank.json: the file is empty',
  );
});

test('malformed: unknown format lists the supported ones', () => {
  const e = malformed('unknown-format.jsonl');
  assert.equal(e.line, undefined);
  assert.equal(e.field, undefined);
  assert.match(e.message, /^unknown-format\.jsonl: unrecognised session format; supported formats: /);
  for (const name of ['Splitpoint JSONL', 'Anthropic Messages JSON', 'Claude Code session JSONL', 'Codex CLI rollout JSONL']) {
    assert.ok(e.message.includes(name), name);
  }
  assert.throws(() => detectFormat('{\n  "foo": 1\n}\n', 'config.json'), /config\.json: unrecognised session format/);
});

test('malformed: Codex function_call without call_id', () => {
  const e = malformed('codex-missing-call-id.jsonl');
  assert.equal(e.line, 3);
  assert.equal(e.field, 'payload.call_id');
  assert.equal(e.message, 'codex-missing-call-id.jsonl:3: payload.call_id: missing: a function_call item needs its call_id');
});

test('malformed: Splitpoint header not on the first line, or of an unknown version', () => {
  const late = malformed('late-header.jsonl');
  assert.equal(late.line, 2);
  assert.equal(late.field, 'type');
  const version = importError('{"type":"splitpoint.header","version":3}\n{"id":"a","role":"user","content":"x"}\n', 'v3.jsonl');
  assert.equal(version.line, 1);
  assert.equal(version.field, 'version');
});

test('malformed: a JSONL line that is not an object, a bad line after good ones, a role mismatch', () => {
  const notObject = importError('{"id":"a","role":"user","content":"x"}\n[1,2]\n', 'arr.jsonl');
  assert.equal(notObject.line, 2);
  assert.equal(notObject.message, 'arr.jsonl:2: expected a JSON object, got an array');

  const splitRole = importError('{"id":"a","role":"user","content":"x"}\n\n{"id":"b","role":"system","content":"y"}\n', 'roles.jsonl');
  assert.equal(splitRole.line, 3);
  assert.equal(splitRole.field, 'role');

  const claudeRole = importError(
    claudeLine({ type: 'user', uuid: 'u', parentUuid: null, message: { role: 'assistant', content: 'x' } }),
    'cc.jsonl',
  );
  assert.equal(claudeRole.line, 1);
  assert.equal(claudeRole.field, 'message.role');
});
