// Issue 23: the task list lives outside the history (the session's meta, sent with every request), so a
// compaction's loss report never lists it: archiving the todo tool's calls (a rejected one the model
// then fixed included) loses no file, command, error or prompt, and no item of the list.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CharEstimateTokenizer, MemoizedMessageCounter, type Message } from '../../src/core/index';
import { lossReport } from '../../src/core/ledger/lossReport';
import { extractLedger } from '../../src/core/ledger/ledgerExtract';

const ITEMS = [
  { id: 'a', text: 'Migrate the parser to tabs', status: 'in_progress' },
  { id: 'b', text: 'Write the changelog entry', status: 'pending' },
];

function history(): Message[] {
  const use = (id: string, items: unknown) => ({ type: 'tool_use' as const, id, name: 'todo', input: { items } });
  const result = (id: string, content: string, isError = false) => ({
    type: 'tool_result' as const,
    tool_use_id: id,
    content,
    ...(isError ? { is_error: true } : {}),
  });
  return [
    { id: 'u1', role: 'user', content: 'Plan the migration.' },
    { id: 'a1', role: 'assistant', content: [use('t1', [{ text: 'Migrate the parser to tabs', status: 'started' }])] },
    {
      id: 'r1',
      role: 'user',
      content: [result('t1', 'todo: items[0].status: expected one of pending, in_progress, done, got "started"', true)],
    },
    { id: 'a2', role: 'assistant', content: [use('t2', ITEMS)] },
    { id: 'r2', role: 'user', content: [result('t2', 'Task list saved (2 items, 0 done).')] },
    { id: 'a3', role: 'assistant', content: [{ type: 'text', text: 'Planned.' }] },
  ];
}

test('archiving the todo calls loses nothing of the task list', () => {
  const archived = history();
  const ledger = extractLedger(archived, { budgetTokens: 2_000, counter: new MemoizedMessageCounter(new CharEstimateTokenizer()) });
  for (const carried of [ledger, null]) {
    const loss = lossReport(archived, carried, new Set());
    const listed = JSON.stringify({ files: loss.files, commands: loss.commands, errors: loss.errors });
    assert.deepEqual(loss.files, []);
    assert.deepEqual(loss.commands, []);
    assert.deepEqual(loss.errors, [], 'the rejected call was fixed by the next one');
    for (const item of ITEMS) assert.equal(listed.includes(item.text), false);
    // The prompt that asked for the plan is a prompt like any other (lost unless the ledger keeps it).
    assert.deepEqual(loss.instructions, carried ? [] : ['Plan the migration.']);
  }
});
