// How the agent loop handles the kinds of reply besides text and tool use (see agentRig.ts): thinking
// is streamed and kept with its signature; pause_turn continues the same turn; max_tokens stops with a
// notice and answers the tool calls it cut off, leaving a valid session.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_TOKENS_NOT_EXECUTED } from '../../src/agent/loop/agent';
import { assertValid, last, rig, toolResultsOf } from './agentRig';

describe('thinking, pause_turn and max_tokens replies', () => {
  test('thinking streams as thinking deltas and is kept with its signature', async () => {
    const r = await rig();
    try {
      r.server.queue.thinking('The sign is wrong.', 'Fix the sign.', { signature: 'sig-123' });
      await r.agent.run('Think first.');
      assert.equal(
        r
          .of('thinking-delta')
          .map((e) => e.thinking)
          .join(''),
        'The sign is wrong.',
      );
      assert.deepEqual(r.session.messages[1].content, [
        { type: 'thinking', thinking: 'The sign is wrong.', signature: 'sig-123' },
        { type: 'text', text: 'Fix the sign.' },
      ]);
    } finally {
      await r.close();
    }
  });

  test('pause_turn continues the same turn; max_tokens stops with a notice and answers cut tool calls', async () => {
    const r = await rig();
    try {
      r.server.queue.text('Part one.', { stopReason: 'pause_turn' }).text('Part two.');
      const paused = await r.agent.run('Long job.');
      assert.equal(paused.status, 'completed');
      assert.equal(paused.steps, 2);
      assert.equal(last(r.sent(1)).role, 'assistant', 'the paused reply is sent back for continuation');

      r.server.queue.toolUse('read_file', { path: 'src/math.ts' }, { stopReason: 'max_tokens', text: 'Reading' });
      const cut = await r.agent.run('Next.');
      assert.equal(cut.status, 'max_tokens');
      const notice = last(r.of('notice'));
      assert.match(notice.message, /cut off at the max_tokens limit \(2048 tokens\)/);
      const results = toolResultsOf(last(r.session.messages));
      assert.equal(results.length, 1);
      assert.equal(results[0].content, MAX_TOKENS_NOT_EXECUTED);
      assert.equal(results[0].is_error, true);
      assertValid(r.session);
      r.server.queue.text('Continuing.');
      assert.equal((await r.agent.run('Continue.')).status, 'completed');
    } finally {
      await r.close();
    }
  });
});

describe('usage reported by a hostile endpoint', () => {
  const isCount = (n: unknown) => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
  const cases: Array<[string, Record<string, unknown> | null, boolean]> = [
    ['negative', { input_tokens: -5, output_tokens: 3 }, false],
    ['strings', { input_tokens: 'lots', output_tokens: 'lots', cache_read_input_tokens: 'lots' }, false],
    ['a numeric string', { input_tokens: '12', output_tokens: 3 }, false],
    ['fractional', { input_tokens: 2.5, output_tokens: 3 }, false],
    ['past any real count', { input_tokens: 1e300, output_tokens: 3, cache_read_input_tokens: 1e300 }, false],
    ['an object', { input_tokens: { n: 1 }, output_tokens: [3] }, false],
    ['no usage at all', null, false],
    ['valid, cache fields absent', { input_tokens: 40, output_tokens: 7 }, true],
  ];
  for (const [name, wireUsage, known] of cases) {
    test(`${name}: every request completes; usage is ${known ? 'recorded as sent' : 'unknown, never garbage'}`, async () => {
      const r = await rig();
      try {
        for (const prompt of ['First?', 'Second?']) {
          r.server.queue.text('Answer.', { wireUsage });
          const result = await r.agent.run(prompt);
          assert.equal(result.status, 'completed', JSON.stringify(result.error));
          assert.ok(isCount(result.usage.inputTokens) && isCount(result.usage.outputTokens), JSON.stringify(result.usage));
        }
        const replies = r.session.messages.filter((m) => m.role === 'assistant');
        assert.equal(replies.length, 2);
        for (const m of replies) {
          if (!known) assert.equal(m.usage, undefined, 'unknown usage is not recorded');
          else
            assert.deepEqual(m.usage, {
              inputTokens: 40,
              cacheReadTokens: 0,
              cacheCreationTokens: 0,
              outputTokens: 7,
              model: 'claude-loopback',
            });
        }
        for (const e of r.of('usage')) {
          for (const k of ['inputTokens', 'outputTokens', 'cacheReadInputTokens', 'cacheCreationInputTokens', 'contextTokens'] as const) {
            assert.ok(isCount(e[k]), `${k}: ${String(e[k])}`);
          }
        }
        assert.equal(r.of('usage').length, known ? 2 : 0, 'a usage event only for a known usage');
        assertValid(r.session);
      } finally {
        await r.close();
      }
    });
  }
});
