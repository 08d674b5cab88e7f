// The chat projector alone: agent events in, chat items and deltas out, on an in-memory ChatLog.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChatLog, type ChatLogChange } from '../../src/agent/projections/chatLog';
import { ChatProjector } from '../../src/agent/projections/chatProjector';
import type { AgentEvent } from '../../src/agent/loop/agent';
import type { CompactionRecord, Message } from '../../src/core';
import type { ChatItem } from '../../src/protocol';

function rig(effective: Message[] = []) {
  const log = new ChatLog(undefined);
  const changes: ChatLogChange[] = [];
  log.onDidChange((c) => changes.push(c));
  const projector = new ChatProjector(log, () => effective);
  const play = (events: AgentEvent[]) => events.forEach((e) => projector.project(e));
  return { log, changes, projector, play };
}

const runId = 'run_1';
const message: Message = { id: 'm1', role: 'assistant', content: 'Hello world' };
const result = { runId, status: 'completed' as const, stopReason: 'end_turn', steps: 1, usage: { inputTokens: 1, outputTokens: 1 } };
const withoutIds = (items: ChatItem[]) => items.map((i) => ({ ...i, id: i.kind === 'tool' ? i.id : '*' }));

test('streamed text and a tool call become one assistant item (via deltas) and one finished tool card', () => {
  const { log, changes, play } = rig();
  const input = { command: 'npm test' };
  play([
    { type: 'turn-started', runId, kind: 'prompt' },
    { type: 'text-delta', runId, step: 1, index: 0, text: 'Hello' },
    { type: 'text-delta', runId, step: 1, index: 0, text: ' world' },
    { type: 'tool-call-started', runId, step: 1, index: 1, toolUseId: 'tu_1', name: 'run_command' },
    { type: 'tool-call-input', runId, step: 1, index: 1, toolUseId: 'tu_1', name: 'run_command', input },
    { type: 'assistant-message', runId, step: 1, message, stopReason: 'tool_use' },
    { type: 'tool-running', runId, toolUseId: 'tu_1', name: 'run_command', input },
    { type: 'tool-output', runId, toolUseId: 'tu_1', chunk: 'ok ' },
    { type: 'tool-output', runId, toolUseId: 'tu_1', chunk: '1 test' },
    { type: 'tool-result', runId, toolUseId: 'tu_1', name: 'run_command', output: 'exit 0\nok 1 test', isError: false, cancelled: false },
    { type: 'turn-ended', runId, result },
  ]);
  assert.deepEqual(withoutIds(log.all()), [
    { kind: 'assistant', id: '*', text: 'Hello world', streaming: false, messageId: 'm1' },
    {
      kind: 'tool',
      id: 'tu_1',
      name: 'run_command',
      input: JSON.stringify(input, null, 2),
      command: 'npm test',
      status: 'done',
      output: 'exit 0\nok 1 test',
      isError: false,
    },
  ]);
  // The second piece of text travels as a delta, not as a whole item.
  const assistantId = log.all()[0].id;
  assert.deepEqual(changes[1], { kind: 'delta', id: assistantId, text: ' world' });
  assert.equal(changes.filter((c) => c.kind === 'delta').length, 1);
});

test('thinking and text blocks of one step get their own items; the next step starts new ones', () => {
  const { log, play } = rig();
  play([
    { type: 'turn-started', runId, kind: 'prompt' },
    { type: 'thinking-delta', runId, step: 1, index: 0, thinking: 'hmm' },
    { type: 'text-delta', runId, step: 1, index: 1, text: 'A' },
    { type: 'assistant-message', runId, step: 1, message, stopReason: 'tool_use' },
    { type: 'text-delta', runId, step: 2, index: 0, text: 'B' },
    { type: 'assistant-message', runId, step: 2, message, stopReason: 'end_turn' },
  ]);
  assert.deepEqual(withoutIds(log.all()), [
    { kind: 'thinking', id: '*', text: 'hmm', streaming: false },
    { kind: 'assistant', id: '*', text: 'A', streaming: false, messageId: 'm1' },
    { kind: 'assistant', id: '*', text: 'B', streaming: false, messageId: 'm1' },
  ]);
});

test('an interrupted reply is marked: stopped by the user, or not kept after an error', () => {
  const { log, play } = rig();
  play([
    { type: 'turn-started', runId, kind: 'prompt' },
    { type: 'text-delta', runId, step: 1, index: 0, text: 'part' },
    { type: 'assistant-interrupted', runId, step: 1, reason: 'cancelled', kept: null },
    { type: 'text-delta', runId, step: 2, index: 0, text: 'lost' },
    { type: 'assistant-interrupted', runId, step: 2, reason: 'error', kept: null },
    { type: 'error', runId, message: 'Overloaded', retryable: true, kind: 'overloaded' },
  ]);
  const items = log.all();
  assert.deepEqual(
    items.map((i) => (i.kind === 'assistant' ? [i.text, i.streaming] : [i.kind])),
    [['part\n\n*(stopped)*', false], ['lost\n\n*(interrupted by an error; not kept)*', false], ['error']],
  );
  const err = items[2];
  assert.ok(err.kind === 'error' && err.retryable && err.message === 'Overloaded');
});

test('approval states, a rejection that outlives the result, and truncated badges from what the model sees', () => {
  const effective: Message[] = [];
  const { log, play } = rig(effective);
  const request = { toolUseId: 'tu_e', tool: 'edit_file', title: 'Edit a.ts', diff: { path: 'a.ts', unified: '-a\n+b', isNewFile: false } };
  play([
    { type: 'tool-call-started', runId, step: 1, index: 0, toolUseId: 'tu_e', name: 'edit_file' },
    { type: 'tool-awaiting-approval', runId, request },
  ]);
  const waiting = log.get('tu_e');
  assert.ok(waiting?.kind === 'tool' && waiting.status === 'awaiting-approval' && waiting.diff?.path === 'a.ts');
  effective.push({
    id: 'u1',
    role: 'user',
    content: [],
    truncated: { results: [{ toolUseId: 'tu_e', toolName: 'edit_file', originalChars: 5000 }] },
  });
  play([
    { type: 'tool-approval-resolved', runId, toolUseId: 'tu_e', approved: false, reason: 'no' },
    { type: 'tool-result', runId, toolUseId: 'tu_e', name: 'edit_file', output: 'Rejected: no', isError: true, cancelled: false },
  ]);
  const done = log.get('tu_e');
  assert.ok(done?.kind === 'tool');
  assert.equal(done.status, 'rejected');
  assert.deepEqual(done.truncated, { originalChars: 5000 });
});

test('compactions become dividers; an undo marks its divider; failures and cancellations are told', () => {
  const { log, projector } = rig();
  const transcriptPath = '/t/1.jsonl';
  const record = {
    id: 'cmp_1',
    strategy: 'recent-turns',
    trigger: 'manual',
    tokensBefore: 900,
    tokensAfter: 300,
    transcriptPath,
    archivedCount: 4,
  };
  projector.compacted(record as CompactionRecord);
  projector.compactionUndone(record as CompactionRecord);
  projector.compactionFailed({ strategy: 'recursive-summarization', trigger: 'auto', reason: 'summary-failed', message: 'boom' });
  projector.compactionFailed({ strategy: 'recursive-summarization', trigger: 'manual', reason: 'cancelled', message: '' });
  const [divider, undoNote, failure, cancelled] = log.all();
  assert.ok(divider.kind === 'compaction' && divider.undone === true);
  assert.equal(divider.tokensBefore, 900);
  assert.equal(divider.transcriptPath, '/t/1.jsonl');
  assert.ok(undoNote.kind === 'notice' && undoNote.message.includes('/t/1.jsonl'));
  assert.ok(failure.kind === 'error' && !failure.retryable);
  assert.equal(failure.message, 'Compaction (recursive-summarization, auto) failed: boom');
  assert.ok(cancelled.kind === 'notice' && /cancelled; the history is unchanged/.test(cancelled.message));
});

test('chat messages name the session message they show (what a pin names): the prompt once its run starts, the answer once it is kept', () => {
  const { log, projector, play } = rig();
  projector.userPrompt('Keep the lockfile');
  assert.equal((log.all()[0] as { messageId?: string }).messageId, undefined, 'not pinnable before the prompt is in the session');
  play([
    { type: 'turn-started', runId, kind: 'prompt', promptMessageId: 'u_7' },
    { type: 'text-delta', runId, step: 1, index: 0, text: 'Sure' },
  ]);
  assert.equal((log.all()[1] as { messageId?: string }).messageId, undefined, 'not pinnable while streaming');
  play([{ type: 'assistant-interrupted', runId, step: 1, reason: 'cancelled', kept: { id: 'a_7', role: 'assistant', content: 'Sure' } }]);
  assert.deepEqual(
    log.all().map((i) => [i.kind, (i as { messageId?: string }).messageId]),
    [
      ['user', 'u_7'],
      ['assistant', 'a_7'],
    ],
  );
  // A retry names no prompt: the earlier prompt keeps its id and nothing else is tied to it.
  play([{ type: 'turn-started', runId: 'run_2', kind: 'retry' }]);
  assert.equal((log.all()[0] as { messageId?: string }).messageId, 'u_7');
});
