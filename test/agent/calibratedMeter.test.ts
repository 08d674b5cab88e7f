// The live agent's token count is the calibrated one: count_tokens once before the first reply of a
// session, then the API's reported usage, fitted as prefix + factor × o200k; the context meter and
// the auto-compact trigger both read it. The loopback server counts like a model whose tokenizer is
// 1.6 × o200k and whose requests carry 12,000 unseen tokens, so raw o200k is far off.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { LoopbackAnthropic } from '../loopback/anthropic-server';
import { AgentFactory } from '../../src/agent/loop/agentFactory';
import { countRequestTokens } from '../../src/agent/loop/anthropicClient';
import { DEFAULT_HOST_SETTINGS, type HostSettings } from '../../src/settings/hostSettings';
import { LlmError } from '../../src/core/pipeline/summarize';
import { CachingTextTokenizer, createTokenizer, DEFAULT_TOKENIZER, MemoizedMessageCounter } from '../../src/core';
import { asBlocks, systemText, withoutCacheControl } from '../helpers/cacheControl';
import { loopbackController } from '../helpers/loopbackController';

const SCALE = 1.6;
const UNSEEN = 12_000;

async function rig(o: { scale?: number; unseen?: number } = {}) {
  const server = new LoopbackAnthropic({ tokenScale: o.scale ?? SCALE, tokenOverhead: { perRequest: o.unseen ?? UNSEEN } });
  const { baseURL } = await server.start();
  const storage = mkdtempSync(join(tmpdir(), 'sp-meter-store-'));
  const workspace = mkdtempSync(join(tmpdir(), 'sp-meter-ws-'));
  writeFileSync(join(workspace, 'notes.md'), 'word '.repeat(3000));
  const warnings: string[] = [];
  const settings: HostSettings = { ...DEFAULT_HOST_SETTINGS, model: 'claude-test', baseUrl: baseURL };
  const c = loopbackController({
    workspace,
    storage,
    baseURL,
    settings,
    deps: { log: { info: () => {}, warn: (m) => warnings.push(m), error: () => {} } },
  });
  const tokenizer = new CachingTextTokenizer(createTokenizer(DEFAULT_TOKENIZER));
  const overhead = new AgentFactory({ workspaceRoot: workspace, storageDir: storage, trusted: true, tokenizer }).overheadParts(settings);
  const counter = new MemoizedMessageCounter(tokenizer);
  /** The raw (o200k) count of what the next request carries: the history, the system prompt, the tools. */
  const raw = () => counter.countMessages(c.pipeline.effectiveMessages()) + overhead.system + overhead.tools;
  return {
    server,
    c,
    raw,
    warnings,
    async close() {
      c.dispose();
      await server.close();
    },
  };
}

test('before the first reply the API counts the request once; the fit learns from it and from each reply', async () => {
  const r = await rig();
  try {
    r.server.queue.text('Hello.');
    await r.c.send('Hi there');
    assert.deepEqual(
      r.server.requests.map((q) => q.path),
      ['/v1/messages/count_tokens', '/v1/messages'],
    );
    const counted = r.server.requests[0]!;
    assert.equal(counted.body.max_tokens, undefined);
    // The same request (the one sent carries cache breakpoints, which change no token count).
    const sent = r.server.requests[1]!.body;
    assert.deepEqual(asBlocks(counted.body.messages), asBlocks(sent.messages), 'count_tokens measured the request then sent');
    assert.deepEqual(counted.body.tools, withoutCacheControl(sent.tools));
    assert.equal(counted.body.system, systemText(sent.system));
    assert.equal(r.c.calibrationState().observations, 2);
    r.server.queue.text('Again.');
    await r.c.send('And again');
    assert.equal(r.server.requests.filter((q) => q.path === '/v1/messages/count_tokens').length, 1, 'once per session');
    r.c.newChat();
    r.server.queue.text('New chat.');
    await r.c.send('A new chat');
    assert.equal(r.server.requests.filter((q) => q.path === '/v1/messages/count_tokens').length, 2, 'a new session asks again');
  } finally {
    await r.close();
  }
});

test('after calibration the context meter is the calibrated estimate and predicts what the API counts next', async () => {
  const r = await rig();
  try {
    for (let i = 0; i < 4; i++) {
      r.server.queue.toolUse('read_file', { path: 'notes.md' }, { text: `Reading (${i}).` }).text(`Done ${i}.`);
      await r.c.send(`Read the notes, round ${i}`);
    }
    const { prefix, factor, observations } = r.c.calibrationState();
    assert.ok(observations >= 8, `observations ${observations}`);
    const raw = r.raw();
    const meter = r.c.contextMeter().used;
    assert.ok(Math.abs(meter - Math.round(prefix + factor * raw)) <= 1, `meter ${meter} vs ${prefix} + ${factor} × ${raw}`);
    // The trigger reads the same count.
    assert.equal(r.c.pipeline.checkTrigger().state.tokens, meter);

    r.server.queue.text('Last.');
    await r.c.send('One more');
    const next = r.server.messageRequests.at(-1)!;
    const actual = r.server.countTokens(next.body);
    const promptTokens = actual - r.server.countTokens({ ...next.body, messages: next.body.messages!.slice(0, -1) });
    const predicted = meter + promptTokens;
    assert.ok(Math.abs(predicted - actual) / actual < 0.02, `predicted ${predicted}, the API counted ${actual}`);
    assert.ok(Math.abs(raw - actual) / actual > 0.3, `raw o200k ${raw} is far from ${actual}: the test measures calibration`);
  } finally {
    await r.close();
  }
});

test('a failing count_tokens is logged and the first reply still comes; the reply calibrates instead', async () => {
  const r = await rig();
  try {
    r.server.countQueue.error(400, 'invalid_request_error', 'count_tokens is not available for this model');
    r.server.queue.text('Hello anyway.');
    await r.c.send('Hi');
    assert.equal(r.server.messageRequests.length, 1);
    assert.equal(r.warnings.length, 1);
    assert.match(r.warnings[0]!, /count_tokens failed.*not available for this model/);
    assert.equal(r.c.calibrationState().observations, 1, 'only the reply calibrated');
    assert.equal(r.c.chatState(true).items.at(-1)?.kind, 'assistant');
  } finally {
    await r.close();
  }
});

test('countRequestTokens returns the API count through the real SDK and turns failures into LlmErrors', async () => {
  const server = new LoopbackAnthropic({ apiKey: 'sk-right' });
  const { baseURL } = await server.start();
  try {
    const request = {
      model: 'claude-test',
      system: 'You are terse.',
      tools: [{ name: 'ping', description: 'Ping a host', input_schema: { type: 'object' as const, properties: {} } }],
      messages: [{ role: 'user' as const, content: 'ping example.org' }],
    };
    const client = new Anthropic({ apiKey: 'sk-right', baseURL, maxRetries: 3 });
    assert.equal(await countRequestTokens(client, request), server.countTokens({ ...request, tools: [...request.tools] }));
    server.countQueue.overloaded();
    await assert.rejects(countRequestTokens(client, request), (e: unknown) => e instanceof LlmError && e.kind === 'overloaded');
    assert.equal(server.requests.length, 2, 'no retries: the first reply must not wait');
    const wrongKey = new Anthropic({ apiKey: 'sk-wrong', baseURL, maxRetries: 0 });
    await assert.rejects(countRequestTokens(wrongKey, request), (e: unknown) => e instanceof LlmError && e.status === 401);
    server.countQueue.hang();
    await assert.rejects(
      countRequestTokens(client, request, { timeoutMs: 200 }),
      (e: unknown) => e instanceof LlmError && e.kind === 'timeout',
    );
  } finally {
    await server.close();
  }
});
