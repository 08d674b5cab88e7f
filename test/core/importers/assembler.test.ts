// The assembler tells a result for a call answered already ("a second result") from one for a call it never
// had open: a call closed without a result (the conversation moved on), or none at all. It keeps no set of
// every answered call for that (a long import holds every call id once, not twice).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Assembler } from '../../../src/core/importers/assembler';
import type { ContentBlock, ToolResultBlock } from '../../../src/core';

const call = (id: string): ContentBlock => ({ type: 'tool_use', id, name: 'read_file', input: {} }) as ContentBlock;
const result = (id: string): ToolResultBlock => ({ type: 'tool_result', tool_use_id: id, content: 'ok' }) as ToolResultBlock;

test('a second result, a result for a call closed without one, and one for no call each get their own warning', () => {
  const warnings: string[] = [];
  const a = new Assembler('f.jsonl', warnings);
  a.prompt('read both', 1, 'p1');
  a.assistant([call('c1'), call('c2')], 2, 'a1');
  a.results([result('c1')], [], 3, 'r1');
  // The conversation moves on: c2 is closed without a result.
  a.prompt('never mind', 4, 'p2');
  a.assistant([call('c3')], 5, 'a2');
  a.results([result('c1'), result('c2'), result('c9'), result('c3')], [], 6, 'r2');
  const messages = a.finish();
  assert.deepEqual(warnings, [
    'f.jsonl:2: tool call c2 (read_file) has no result; dropped',
    'f.jsonl:6: a second result for tool call c1; dropped',
    'f.jsonl:6: tool result for c2 has no matching tool call before it; dropped',
    'f.jsonl:6: tool result for c9 has no matching tool call before it; dropped',
  ]);
  assert.deepEqual(
    messages.map((m) => [m.id, Array.isArray(m.content) ? m.content.map((b) => b.type) : m.content]),
    [
      ['p1', 'read both'],
      ['a1', ['tool_use']],
      ['r1', ['tool_result']],
      ['p2', 'never mind'],
      ['a2', ['tool_use']],
      ['r2', ['tool_result']],
    ],
  );
  // A copy tells them apart the same way.
  const copyWarnings: string[] = [];
  const copy = a.clone(copyWarnings);
  copy.results([result('c3'), result('c2')], [], 7, 'r3');
  assert.deepEqual(copyWarnings, [
    'f.jsonl:7: a second result for tool call c3; dropped',
    'f.jsonl:7: tool result for c2 has no matching tool call before it; dropped',
  ]);
});

// Drafts before the last two settle into messages as the log is read (one object per message in a long
// import). What finish, snapshot and clone give must not show it: the same messages, and copies that
// share no array with the assembler or with each other.
test('settled messages: finish, snapshot and clone give what they gave, and copies share no array', () => {
  const warnings: string[] = [];
  const a = new Assembler('f.jsonl', warnings);
  a.prompt('go', 1, 'p1');
  for (let i = 0; i < 50; i++) {
    // One response over two lines with the result of its first call between them (merges into the draft before the last).
    a.assistant([call(`x${i}`)], 2 + 4 * i, `a${i}`, undefined, `m${i}`);
    a.results([result(`x${i}`)], [], 3 + 4 * i, `r${i}`);
    a.assistant([{ type: 'text', text: `and ${i}` } as ContentBlock, call(`y${i}`)], 4 + 4 * i, `a${i}b`, undefined, `m${i}`);
    a.results([result(`y${i}`)], [], 5 + 4 * i, `r${i}b`);
  }
  const snap = a.snapshot([]);
  const copy = a.clone([]);
  a.assistant([call('last')], 900, 'a-last');
  copy.prompt('elsewhere', 900, 'p-else');
  const own = a.finish();
  const other = copy.finish();
  // Each response is one message holding its call, its text and its second call, then one results message.
  assert.equal(snap.length, 1 + 50 * 2);
  assert.deepEqual(
    snap[1].content,
    [call('x0'), { type: 'text', text: 'and 0' }, call('y0')],
    'the second line of a response merged into its message',
  );
  assert.deepEqual(
    (snap[2].content as ContentBlock[]).map((b) => (b as ToolResultBlock).tool_use_id),
    ['x0', 'y0'],
  );
  assert.deepEqual(own.slice(0, snap.length), snap);
  assert.deepEqual(other.slice(0, snap.length), snap);
  assert.deepEqual(
    own.slice(snap.length).map((m) => m.id),
    [],
  );
  assert.deepEqual(warnings, ['f.jsonl:900: tool call last (read_file) has no result; dropped']);
  assert.deepEqual(
    other.slice(snap.length).map((m) => m.id),
    ['p-else'],
  );
  for (let i = 0; i < snap.length; i++) {
    assert.notEqual(own[i], snap[i]);
    assert.notEqual(own[i], other[i]);
    if (Array.isArray(own[i].content)) {
      assert.notEqual(own[i].content, snap[i].content);
      assert.notEqual(own[i].content, other[i].content);
    }
  }
});
