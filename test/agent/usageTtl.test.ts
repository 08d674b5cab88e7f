// The TTL split of our own calls' cache writes: the loopback server reports `usage.cache_creation` as
// the API does (ephemeral_1h / ephemeral_5m); the agent records the 1-hour part on the assistant message,
// the pipeline's cache state takes its TTL, the meter prices the writes as billed. A split that is not
// valid counts adding up to the writes makes the usage unknown, like any other invalid count.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validUsage } from '../../src/agent/loop/replyUsage';
import { UsageTally } from '../../src/agent/loop/usageTally';
import { priceFor } from '../../src/core/cost/prices';
import { rig } from './agentRig';

const usage = (split: unknown) => ({
  input_tokens: 10,
  output_tokens: 5,
  cache_read_input_tokens: 100,
  cache_creation_input_tokens: 300,
  ...(split === undefined ? {} : { cache_creation: split }),
});

test('validUsage: the split may be absent; its counts must be whole numbers; it is recorded when they add up to the writes', () => {
  assert.equal(validUsage(usage(undefined))?.cache_creation_1h_input_tokens, undefined);
  assert.equal(validUsage(usage(null))?.cache_creation_1h_input_tokens, undefined);
  assert.equal(validUsage(usage({ ephemeral_1h_input_tokens: 200, ephemeral_5m_input_tokens: 100 }))?.cache_creation_1h_input_tokens, 200);
  assert.equal(validUsage(usage({ ephemeral_5m_input_tokens: 300 }))?.cache_creation_1h_input_tokens, 0);
  // Valid counts that do not add up to the writes: the usage is kept, the split is not recorded.
  const partial = validUsage(usage({ ephemeral_1h_input_tokens: 200, ephemeral_5m_input_tokens: 50 }));
  assert.equal(partial?.cache_creation_input_tokens, 300);
  assert.equal(partial?.cache_creation_1h_input_tokens, undefined);
  for (const bad of [
    { ephemeral_1h_input_tokens: -1, ephemeral_5m_input_tokens: 301 },
    { ephemeral_1h_input_tokens: '300' },
    { ephemeral_1h_input_tokens: 2e9, ephemeral_5m_input_tokens: 0 },
    'lots',
    [300],
  ]) {
    assert.equal(validUsage(usage(bad)), undefined, JSON.stringify(bad));
  }
});

test('the agent records the 1-hour writes of its own calls; the cache state and the meter use them', async () => {
  const r = await rig();
  try {
    r.server.queue.text('First.', { wireUsage: usage({ ephemeral_1h_input_tokens: 200, ephemeral_5m_input_tokens: 100 }) });
    await r.agent.run('Hello?');
    const reply = r.session.messages.find((m) => m.role === 'assistant')!;
    assert.deepEqual(reply.usage, {
      inputTokens: 10,
      cacheReadTokens: 100,
      cacheCreationTokens: 300,
      cacheWrite1hTokens: 200,
      outputTokens: 5,
      model: 'claude-loopback',
    });
    assert.deepEqual(r.pipeline.liveContext().cache, { cachedPrefixTokens: 400, model: 'claude-loopback', ttl: '1h' });
    // The meter prices 200 writes at 1h and 100 at 5m, whatever the caching setting says.
    const p = priceFor('claude-loopback');
    const expected = (10 * p.input + 100 * p.cacheRead + 200 * p.cacheWrite1h + 100 * p.cacheWrite5m + 5 * p.output) / 1e6;
    for (const caching of ['5m', '1h'] as const) {
      const meter = new UsageTally(r.session.messages).meter(caching, 'claude-loopback')!;
      assert.ok(Math.abs(meter.last.costUSD - expected) < 1e-12, `${caching}: ${meter.last.costUSD} vs ${expected}`);
    }
    // A reply whose split is not counts: its usage is unknown (not recorded), the reply kept.
    r.server.queue.text('Second.', { wireUsage: usage({ ephemeral_1h_input_tokens: 'most', ephemeral_5m_input_tokens: 100 }) });
    const second = await r.agent.run('Again?');
    assert.equal(second.status, 'completed');
    const last = r.session.messages.filter((m) => m.role === 'assistant').at(-1)!;
    assert.equal(last.usage, undefined);
  } finally {
    await r.close();
  }
});

test('the loopback server’s own cache (no scripted usage): 5-minute writes are recorded as no 1-hour writes', async () => {
  const r = await rig();
  try {
    r.server.queue.text('Done.');
    await r.agent.run('Write it.');
    const u = r.session.messages.find((m) => m.role === 'assistant')!.usage!;
    assert.ok(u.cacheCreationTokens > 0, `the first request is written to the cache: ${JSON.stringify(u)}`);
    assert.equal(u.cacheWrite1hTokens, 0, JSON.stringify(u));
  } finally {
    await r.close();
  }
});
