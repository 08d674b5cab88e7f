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
