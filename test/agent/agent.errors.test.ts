// API errors in the agent loop (see agentRig.ts): overload, server errors, rate limits and a
// mid-stream error event are retryable and retry() resends the same history; invalid requests and a
// prompt that is too long are not; nothing half-done is appended, so the session stays valid.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { reply, type LoopbackAnthropic } from '../loopback/anthropic-server';
import { AgentStateError } from '../../src/agent/loop/agent';
import { assertValid, last, rig, toolResultsOf } from './agentRig';

describe('API errors', () => {
  const retryable: Array<[string, (s: LoopbackAnthropic) => void, RegExp, number | undefined]> = [
    ['529 overloaded', (s) => s.queue.overloaded(), /overloaded/i, 529],
    ['500 api_error', (s) => s.queue.apiError('boom'), /API error 500: boom/, 500],
    ['429 rate limit', (s) => s.queue.rateLimited(3), /Rate limited/, 429],
    [
      'an error event mid-stream',
      (s) =>
        s.queue.push(
          reply.text('partial words here', { streamError: { afterEvents: 3, type: 'overloaded_error', message: 'Overloaded' } }),
        ),
      /Overloaded/,
      undefined,
    ],
  ];
  for (const [name, inject, message, status] of retryable) {
    test(`${name}: an error event with retryable true, the session stays valid, and retry() succeeds`, async () => {
      const r = await rig();
      try {
        inject(r.server);
        const result = await r.agent.run('Hello?');
        assert.equal(result.status, 'error');
        assert.equal(result.error?.retryable, true);
        assert.match(result.error!.message, message);
        assert.equal(result.error?.status, status);
        const errors = r.of('error');
        assert.equal(errors.length, 1);
        assert.equal(errors[0].retryable, true);
        assert.deepEqual(
          r.session.messages.map((m) => m.role),
          ['user'],
          'nothing half-done was appended',
        );
        assertValid(r.session);
        if (name === '429 rate limit') assert.equal(result.error?.retryAfterMs, 3000);
        assert.equal(r.agent.canRetry, true);
        r.server.queue.text('Hello!');
        const again = await r.agent.retry();
        assert.equal(again.status, 'completed');
        assert.deepEqual(r.sent(1), r.sent(0), 'retry sends the same history');
        assert.deepEqual(
          r.session.messages.map((m) => m.role),
          ['user', 'assistant'],
        );
        assert.equal(r.agent.canRetry, false);
        await assert.rejects(r.agent.retry(), (e: unknown) => e instanceof AgentStateError && /nothing to retry/.test(e.message));
      } finally {
        await r.close();
      }
    });
  }

  test('400 invalid request: retryable false', async () => {
    const r = await rig();
    try {
      r.server.queue.error(400, 'invalid_request_error', 'max_tokens: 999999 > 64000, which is the maximum allowed');
      const result = await r.agent.run('Hi');
      assert.equal(result.status, 'error');
      assert.equal(result.error?.retryable, false);
      assert.equal(result.error?.status, 400);
      assert.match(r.of('error')[0].message, /API error 400: max_tokens: 999999/);
    } finally {
      await r.close();
    }
  });

  test('prompt too long: not retryable, and the message suggests compacting', async () => {
    const r = await rig({ contextWindow: 600 });
    try {
      const result = await r.agent.run('x '.repeat(800));
      assert.equal(result.status, 'error');
      assert.equal(result.error?.kind, 'prompt_too_long');
      assert.equal(result.error?.retryable, false);
      assert.match(result.error!.message, /prompt is too long: \d+ tokens > 600 maximum\. Compact the conversation, then retry\./);
    } finally {
      await r.close();
    }
  });

  test('an error after tool results: retry() continues from the tool results', async () => {
    const r = await rig();
    try {
      r.server.queue.toolUse('read_file', { path: 'src/main.ts' }).overloaded().text('main.ts calls add(2, 2).');
      const failed = await r.agent.run('What does main do?');
      assert.equal(failed.status, 'error');
      assert.equal(last(r.session.messages).role, 'user');
      assert.equal(toolResultsOf(last(r.session.messages)).length, 1);
      const ok = await r.agent.retry();
      assert.equal(ok.status, 'completed');
      assert.deepEqual(r.sent(2), r.sent(1));
      assert.equal(r.of('turn-started')[1].kind, 'retry');
      assertValid(r.session);
    } finally {
      await r.close();
    }
  });
});
