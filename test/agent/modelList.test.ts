// The model picker's list: the loopback server's GET /v1/models in the real wire format, read by the
// real SDK page by page; the built-in list (with the reason) when the server is down or there is no
// key; windows from the table overridable by the settings; and a model switch mid-session that
// keeps the session and measures the meter and the auto-compact threshold against the new window.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { LoopbackAnthropic } from '../loopback/anthropic-server';
import type { LoopbackModel } from '../loopback/models';
import { BUILTIN_MODELS, listModels } from '../../src/agent/loop/modelList';
import { AgentController } from '../../src/agent/service/controller';
import { DEFAULT_HOST_SETTINGS } from '../../src/settings/hostSettings';
import { contextWindowOf, type SettingsSource } from '../../src/settings/settingsModel';
import { autoCompactThreshold, contextWindowFor } from '../../src/core/index';

const models = Array.from({ length: 7 }, (_, i) => ({
  id: `claude-test-${7 - i}`,
  display_name: `Test ${7 - i}`,
  created_at: `2025-0${7 - i}-01T00:00:00Z`,
}));

test('models endpoint: the wire format (data, has_more, first_id, last_id), limits and ids', async () => {
  const server = new LoopbackAnthropic({ models });
  const { baseURL } = await server.start();
  try {
    const get = async (q: string) => {
      const r = await fetch(`${baseURL}/v1/models${q}`, { headers: { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' } });
      return { status: r.status, body: (await r.json()) as Record<string, unknown> };
    };
    const first = await get('?limit=3');
    assert.equal(first.status, 200);
    assert.deepEqual(
      (first.body.data as Array<{ id: string }>).map((m) => m.id),
      ['claude-test-7', 'claude-test-6', 'claude-test-5'],
    );
    assert.equal(first.body.has_more, true);
    assert.equal(first.body.first_id, 'claude-test-7');
    assert.equal(first.body.last_id, 'claude-test-5');
    assert.equal((first.body.data as Array<{ type: string }>)[0]!.type, 'model');
    const last = await get('?limit=3&after_id=claude-test-2');
    assert.deepEqual(last.body, {
      data: [
        {
          type: 'model',
          id: 'claude-test-1',
          display_name: 'Test 1',
          created_at: '2025-01-01T00:00:00Z',
          max_input_tokens: 200000,
          max_tokens: 64000,
        },
      ],
      has_more: false,
      first_id: 'claude-test-1',
      last_id: 'claude-test-1',
    });
    const before = await get('?limit=2&before_id=claude-test-4');
    assert.deepEqual(
      (before.body.data as Array<{ id: string }>).map((m) => m.id),
      ['claude-test-6', 'claude-test-5'],
    );
    assert.equal(before.body.has_more, true);
    assert.equal((await get('?limit=0')).status, 400);
    assert.equal((await get('/claude-test-3')).body.display_name, 'Test 3');
    assert.equal((await get('/claude-nope')).status, 404);
    const noKey = await fetch(`${baseURL}/v1/models`, { headers: { 'anthropic-version': '2023-06-01' } });
    assert.equal(noKey.status, 401);
  } finally {
    await server.close();
  }
});

test('models endpoint through the real SDK: every page, with each window from windowFor', async () => {
  const server = new LoopbackAnthropic({ models });
  const { baseURL } = await server.start();
  try {
    // The SDK's auto-pagination follows has_more / last_id (limit 100 here: one page, then a second list at limit 3).
    const sdkIds: string[] = [];
    for await (const m of new Anthropic({ apiKey: 'k', baseURL }).models.list({ limit: 3 })) sdkIds.push(m.id);
    assert.equal(sdkIds.length, 7);
    assert.equal(server.requests.filter((r) => r.path === '/v1/models').length, 3, 'three pages of 3');
    const list = await listModels({ apiKey: 'k', baseURL, windowFor: (id) => (id === 'claude-test-3' ? 1_000_000 : 200_000) });
    assert.equal(list.source, 'api');
    assert.equal(list.error, undefined);
    assert.deepEqual(
      list.models.map((m) => m.id),
      models.map((m) => m.id),
    );
    assert.equal(list.models.find((m) => m.id === 'claude-test-3')!.contextWindow, 1_000_000);
    assert.equal(list.models[0]!.displayName, 'Test 7');
  } finally {
    await server.close();
  }
});

test('models endpoint: entries with a non-string, empty, over-long or control-character id are dropped; a bad display name falls back to the id', async () => {
  const entry = (id: unknown, display_name: unknown = 'Fine') =>
    ({ id, display_name, created_at: '2025-01-01T00:00:00Z' }) as unknown as LoopbackModel;
  const hostile = [
    entry('claude-good-1', 'Good 1'),
    entry(12),
    entry(null),
    entry({ toString: 'x' }),
    entry(['claude-array']),
    entry(''),
    entry('x'.repeat(1_000_000)),
    entry('claude-' + 'y'.repeat(300)),
    entry('claude-evil\nsecond line'),
    entry('claude-\u001b]0;PWNED\u0007'),
    entry('claude-\u202eevil'),
    entry('claude-good-1', 'Duplicate'),
    entry('claude-good-2', 'Name\u001b[2J'),
    entry('claude-good-3', 'z'.repeat(1_000_000)),
    entry('claude-good-4', 42),
  ];
  const server = new LoopbackAnthropic({ models: hostile });
  const { baseURL } = await server.start();
  try {
    const list = await listModels({ apiKey: 'k', baseURL, windowFor: () => 200_000 });
    assert.equal(list.source, 'api');
    assert.deepEqual(
      list.models.map((m) => [m.id, m.displayName]),
      [
        ['claude-good-1', 'Good 1'],
        ['claude-good-2', 'claude-good-2'],
        ['claude-good-3', 'claude-good-3'],
        ['claude-good-4', 'claude-good-4'],
      ],
    );
    const onlyBad = new LoopbackAnthropic({ models: [entry(7), entry('a\u0000b')] });
    const bad = await listModels({ apiKey: 'k', baseURL: (await onlyBad.start()).baseURL, windowFor: () => 200_000 });
    await onlyBad.close();
    assert.equal(bad.source, 'builtin');
    assert.match(bad.error ?? '', /listed no usable models/);
  } finally {
    await server.close();
  }
});

test('models endpoint: the built-in list, saying why, when the server is down or there is no key', async () => {
  const server = new LoopbackAnthropic();
  const { baseURL } = await server.start();
  await server.close();
  const down = await listModels({ apiKey: 'k', baseURL, windowFor: () => 200_000, timeoutMs: 5_000 });
  assert.equal(down.source, 'builtin');
  assert.match(down.error ?? '', /Could not reach the API.*ECONNREFUSED/);
  assert.deepEqual(
    down.models.map((m) => m.id),
    BUILTIN_MODELS.map((m) => m.id),
  );
  const noKey = await listModels({ apiKey: undefined, baseURL, windowFor: () => 1 });
  assert.equal(noKey.source, 'builtin');
  assert.match(noKey.error ?? '', /no API key/);
  for (const m of BUILTIN_MODELS) assert.equal(contextWindowFor(m.id), 200_000, `${m.id} is in the window table`);
});

function source(values: Record<string, unknown>, user: Record<string, unknown> = values): SettingsSource {
  return {
    get: <T>(k: string, d?: T) => (k in values ? (values[k] as T) : d) as T,
    inspect: <T>(k: string) => ({ key: `splitpoint.${k}`, defaultValue: undefined, globalValue: user[k] as T | undefined }),
  };
}

test('context windows: splitpoint.contextWindows, then a user-set default, then the table, then 200,000', () => {
  assert.equal(contextWindowOf(source({ defaultContextWindow: 200_000 }, {}), 'claude-opus-4-5'), 200_000);
  assert.equal(contextWindowOf(source({ defaultContextWindow: 200_000 }, {}), 'gpt-5-codex'), 400_000, 'from the table');
  assert.equal(contextWindowOf(source({ defaultContextWindow: 200_000 }, {}), 'mystery'), 200_000);
  assert.equal(contextWindowOf(source({ defaultContextWindow: 50_000 }), 'gpt-5-codex'), 50_000, 'the user set a default');
  assert.equal(
    contextWindowOf(source({ defaultContextWindow: 50_000, contextWindows: { 'gpt-5-codex': 123_456 } }), 'gpt-5-codex'),
    123_456,
  );
});

test('switching the model mid-session keeps the session; meter and auto-compact threshold follow the new window', () => {
  const at80 = { ...DEFAULT_HOST_SETTINGS, autoCompact: { ...DEFAULT_HOST_SETTINGS.autoCompact, threshold: 0.8 } };
  const c = new AgentController({
    workspaceRoot: mkdtempSync(join(tmpdir(), 'sp-model-ws-')),
    storageDir: mkdtempSync(join(tmpdir(), 'sp-model-store-')),
    settings: { ...at80, model: 'claude-a', contextWindow: 200_000 },
    getApiKey: async () => 'k',
    trusted: true,
    log: { info: () => {}, warn: () => {}, error: () => {} },
  });
  try {
    c.session.append({ id: 'u1', role: 'user', content: 'x '.repeat(4_000) });
    c.session.append({ id: 'a1', role: 'assistant', content: [{ type: 'text', text: 'ok' }] });
    const id = c.session.id;
    const meters: number[] = [];
    c.onDidChangeContext((m) => meters.push(m.window));
    assert.equal(c.contextMeter().threshold, 160_000);
    const tokens = c.pipeline.currentTokens();
    assert.ok(tokens > 1_000, `${tokens} tokens`);
    assert.equal(c.pipeline.checkTrigger().fire, false, 'far below 80% of 200K');
    const window = Math.ceil(tokens * 1.1);
    c.updateSettings({ ...at80, model: 'claude-b', contextWindow: window });
    assert.equal(c.pipeline.checkTrigger().fire, true, 'over 80% of the new window: the next model call compacts first');
    assert.equal(c.session.id, id, 'the same session');
    assert.equal(c.session.messages.length, 2, 'its history kept');
    assert.equal(c.chatState(true).model, 'claude-b');
    assert.equal(c.contextMeter().window, window);
    assert.equal(c.contextMeter().threshold, autoCompactThreshold(at80.autoCompact, window));
    assert.deepEqual(meters, [window], 'the meter was told at once');
  } finally {
    c.dispose();
  }
});
