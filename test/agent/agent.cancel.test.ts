// Stopping the agent loop (see agentRig.ts): stop() mid-stream, on a stalled stream, during a pending
// approval or a running command resolves the run as cancelled, answers every finished tool call and
// leaves a valid session that the next run continues; one run at a time.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { reply } from '../loopback/anthropic-server';
import { AgentBusyError, AgentStateError } from '../../src/agent/loop/agent';
import { CANCELLED_BY_USER, type ApprovalDecision } from '../../src/agent/tools';
import { assertValid, last, rig, toolResultsOf, waitFor } from './agentRig';

describe('stop() while the reply streams', () => {
  test('stop() mid-stream keeps the partial text, resolves as cancelled, and the next run works', async () => {
    const r = await rig();
    try {
      r.server.queue.text('The problem is in the add function, which subtracts its arguments instead of adding them.', {
        chunkDelayMs: 15,
        textChunkChars: 6,
      });
      let deltas = 0;
      r.on('text-delta', () => {
        if (++deltas === 3) void r.agent.stop();
      });
      const result = await r.agent.run('Explain.');
      assert.equal(result.status, 'cancelled');
      assert.equal(r.agent.busy, false);
      assert.equal(r.session.messages.length, 2);
      const kept = r.session.messages[1];
      assert.equal(kept.role, 'assistant');
      const text = (kept.content as Array<{ text: string }>)[0].text;
      assert.ok(text.length >= 18 && text.length < 60, JSON.stringify(text));
      assert.ok('The problem is in the add function'.startsWith(text.slice(0, 18)));
      const interrupted = r.of('assistant-interrupted');
      assert.equal(interrupted.length, 1);
      assert.equal(interrupted[0].reason, 'cancelled');
      assert.equal(interrupted[0].kept, kept);
      assertValid(r.session);
      await waitFor(() => r.server.messageRequests[0].aborted, 'the HTTP request was aborted');

      r.server.queue.text('Second answer.');
      const next = await r.agent.run('Go on.');
      assert.equal(next.status, 'completed');
      assert.equal(r.sent(1).length, 3);
      assertValid(r.session);
    } finally {
      await r.close();
    }
  });

  test('stop() on a stalled stream: finished tool calls get "Cancelled by the user.", the unfinished one is dropped', async () => {
    const r = await rig();
    try {
      // Events: message_start, [text: start, ping, delta, stop], [tool A: start, 3 deltas, stop], [tool B: start, …]
      r.server.queue.push(
        reply.message(
          [
            { type: 'text', text: 'Two reads.' },
            { type: 'tool_use', name: 'read_file', input: { path: 'a' }, id: 'toolu_A' },
            { type: 'tool_use', name: 'read_file', input: { path: 'src/main.ts' }, id: 'toolu_B' },
          ],
          { stallAfterEvents: 13, jsonChunkChars: 6 },
        ),
      );
      r.on('tool-call-started', (e) => {
        if (e.type === 'tool-call-started' && e.toolUseId === 'toolu_B') setTimeout(() => void r.agent.stop(), 30);
      });
      const result = await r.agent.run('Read two files.');
      assert.equal(result.status, 'cancelled');
      assert.deepEqual(
        r.of('tool-call-input').map((e) => e.toolUseId),
        ['toolu_A'],
      );
      const [, assistant, results] = r.session.messages;
      assert.deepEqual(assistant.content, [
        { type: 'text', text: 'Two reads.' },
        { type: 'tool_use', id: 'toolu_A', name: 'read_file', input: { path: 'a' } },
      ]);
      assert.deepEqual(results.content, [{ type: 'tool_result', tool_use_id: 'toolu_A', content: CANCELLED_BY_USER, is_error: true }]);
      assertValid(r.session);
      r.server.queue.text('Fine.');
      assert.equal((await r.agent.run('Never mind.')).status, 'completed');
      assert.ok(r.server.requests.every((q, i) => i === 0 || q.status === 200));
    } finally {
      await r.close();
    }
  });
});

describe('stop() while a tool waits for approval or runs', () => {
  test('stop() during a pending approval: the approval resolves as rejected, remaining calls are cancelled', async () => {
    let sawSignal: AbortSignal | undefined;
    // A gate that never answers on its own: the agent must not wait for it.
    const r = await rig({
      decide: (_req, signal) => {
        sawSignal = signal;
        return new Promise<ApprovalDecision>(() => {});
      },
    });
    try {
      r.server.queue.toolUse([
        { name: 'edit_file', input: { path: 'src/math.ts', old_string: 'a - b', new_string: 'a + b' }, id: 'toolu_e' },
        { name: 'read_file', input: { path: 'src/main.ts' }, id: 'toolu_r' },
      ]);
      r.on('tool-awaiting-approval', () => setTimeout(() => void r.agent.stop(), 20));
      const result = await r.agent.run('Fix.');
      assert.equal(result.status, 'cancelled');
      assert.equal(sawSignal?.aborted, true, 'the gate was told through its signal');
      assert.match(readFileSync(join(r.ws, 'src', 'math.ts'), 'utf8'), /a - b/);
      assert.deepEqual(
        r.of('tool-approval-resolved').map((e) => [e.approved, e.reason]),
        [[false, CANCELLED_BY_USER]],
      );
      assert.deepEqual(
        r.of('tool-result').map((e) => e.cancelled),
        [true, true],
      );
      const results = toolResultsOf(last(r.session.messages));
      assert.deepEqual(
        results.map((b) => [b.tool_use_id, b.content, b.is_error]),
        [
          ['toolu_e', CANCELLED_BY_USER, true],
          ['toolu_r', CANCELLED_BY_USER, true],
        ],
      );
      assertValid(r.session);
      r.server.queue.text('OK.');
      assert.equal((await r.agent.run('Stop that.')).status, 'completed');
    } finally {
      await r.close();
    }
  });

  test('stop() during a running command kills it promptly', async () => {
    const r = await rig();
    try {
      r.server.queue.toolUse('run_command', { command: 'echo begin; sleep 30' });
      r.on('tool-output', () => void r.agent.stop());
      const started = Date.now();
      const result = await r.agent.run('Run the slow thing.');
      assert.ok(Date.now() - started < 3000, `took ${Date.now() - started} ms`);
      assert.equal(result.status, 'cancelled');
      const [res] = toolResultsOf(last(r.session.messages));
      assert.equal(res.is_error, true);
      assert.match(String(res.content), /^begin\n\[Cancelled by the user\. The command was stopped\.\]$/);
      assert.deepEqual(
        r.of('tool-result').map((e) => [e.isError, e.cancelled]),
        [[true, true]],
      );
      assertValid(r.session);
    } finally {
      await r.close();
    }
  });
});

describe('one run at a time', () => {
  test('one run at a time: a second run or retry while busy is rejected with a clear error', async () => {
    const r = await rig();
    try {
      r.server.queue.text('slow', { delayMs: 200 });
      const first = r.agent.run('One.');
      await assert.rejects(r.agent.run('Two.'), (e: unknown) => e instanceof AgentBusyError && /already working/.test(e.message));
      await assert.rejects(r.agent.retry(), AgentBusyError);
      assert.equal((await first).status, 'completed');
      assert.equal(r.session.messages.filter((m) => m.role === 'user').length, 1, 'the rejected prompt was not appended');
      await assert.rejects(r.agent.run('   '), AgentStateError);
      assert.equal(await r.agent.stop(), undefined, 'stop() when idle is a no-op');
    } finally {
      await r.close();
    }
  });
});
