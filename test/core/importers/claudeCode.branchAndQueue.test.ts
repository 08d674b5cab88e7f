// Claude Code import edge cases that the fixtures alone do not pin down: a compact boundary whose
// logicalParentUuid names a line that was never written (the history continues from the last message
// line above the boundary: branches abandoned earlier stay out), and a queued prompt that was both
// taken by a model call (`remove`) and then written as an ordinary user line (one prompt, not two).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isTurnStart, textOf, type Message } from '../../../src/core/conversation/conversation';
import { importSession } from '../../../src/core/importers';
import { assertValid, claudeLine, fixture, shape } from '../importersSupport';

const REWIND = 'claude-code-rewind-compact.jsonl';
const RECORDED_PARENT = '"logicalParentUuid":"c0000008-0000-4000-8000-000000000008"';

const prompts = (messages: readonly Message[]): string[] => messages.filter(isTurnStart).map((m) => textOf(m));

test('a compact boundary whose logical parent was not recorded continues from the line above it: the rewound branch stays out', () => {
  const text = fixture('sessions', REWIND);
  assert.equal(text.split(RECORDED_PARENT).length, 2, 'the boundary (line 9) names its logical parent once');
  const recorded = importSession(text, REWIND);
  const r = importSession(text.replace(RECORDED_PARENT, '"logicalParentUuid":"c00000ff-0000-4000-8000-0000000000ff"'), REWIND);
  assert.equal(r.compactions.length, 1);
  // The same history as when the logical parent is recorded: line 8 is the last message line above the boundary.
  assert.deepEqual(
    r.compactions[0].before.map((m) => m.id),
    recorded.compactions[0].before.map((m) => m.id),
  );
  assert.deepEqual(r.compactions[0].before.map(shape), recorded.compactions[0].before.map(shape));
  assert.equal(
    r.compactions[0].before[4].content,
    'Also print the list of files that would change.',
    'the edited prompt, not the abandoned one',
  );
  assert.deepEqual(r.messages, recorded.messages);
  assert.ok(
    r.warnings.includes(`${REWIND}: skipped 2 message line(s) on branches abandoned by a rewind or an edit (lines 5, 6)`),
    r.warnings.join('\n'),
  );
  assertValid(r.compactions[0].before);
});

test('a queued prompt taken by a model call and then written as a user line is one prompt, read where the user line is', () => {
  const lines = [
    claudeLine({ type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content: 'Run the tests.' } }),
    claudeLine({
      type: 'assistant',
      uuid: 'a1',
      parentUuid: 'u1',
      message: {
        id: 'msg_1',
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'npm test' } }],
      },
    }),
    JSON.stringify({ type: 'queue-operation', operation: 'enqueue', timestamp: '2025-11-03T09:00:01.000Z', sessionId: 's', content: 'X' }),
    claudeLine({
      type: 'user',
      uuid: 'r1',
      parentUuid: 'a1',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '3 passing' }] },
    }),
    JSON.stringify({ type: 'queue-operation', operation: 'remove', timestamp: '2025-11-03T09:00:02.000Z', sessionId: 's' }),
    claudeLine({ type: 'user', uuid: 'u2', parentUuid: 'r1', message: { role: 'user', content: 'X' } }),
    claudeLine({
      type: 'assistant',
      uuid: 'a2',
      parentUuid: 'u2',
      message: { id: 'msg_2', role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
    }),
  ];
  const r = importSession(lines.join('\n'), 'queued-then-typed.jsonl');
  assert.deepEqual(prompts(r.messages), ['Run the tests.', 'X']);
  assert.deepEqual(
    r.messages.filter((m) => textOf(m) === 'X').map((m) => m.id),
    ['u2'],
  );
  assert.deepEqual(r.warnings, []);
  assertValid(r.messages);
});
