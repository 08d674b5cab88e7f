// The importers: Splitpoint sessions, Anthropic request bodies and Claude Code transcripts. Codex rollouts are in
// importers.codex.test.ts; format detection and malformed files in importers.malformed.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { blocksOf, kindOf } from '../../src/core/conversation/conversation';
import { importSession, serializeSplitpointJsonl, SPLITPOINT_HEADER_TYPE } from '../../src/core/importers';
import { claudeLine, load, shape, assertValid } from './importersSupport';

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
