// Prompt caching end to end: the host controller's agent (real @anthropic-ai/sdk) against the loopback
// server, whose prompt cache enforces the API's rules (exact prefix, lookback, minimum length, at most
// 4 breakpoints). Each call reads what the previous one wrote; a compaction leaves only the tools and
// the system prompt cached; nothing of cache_control reaches the stored session or its transcripts;
// 'off' sends no breakpoint at all; live calls record their usage on the assistant message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LoopbackAnthropic, type ValidRequest } from '../loopback/anthropic-server';
import type { AgentController } from '../../src/agent/service/controller';
import { DEFAULT_HOST_SETTINGS, type HostSettings } from '../../src/settings/hostSettings';
import { countCacheBreakpoints } from '../../src/agent/loop/promptCache';
import { loopbackController } from '../helpers/loopbackController';

interface Rig {
  server: LoopbackAnthropic;
  storage: string;
  workspace: string;
  make(settings?: Partial<HostSettings>): AgentController;
  /** The n-th /v1/messages request, with what the cache served. */
  call(n: number): ValidRequest & { cache: NonNullable<ValidRequest['cache']> };
  close(): Promise<void>;
}

async function rig(): Promise<Rig> {
  const server = new LoopbackAnthropic({ consecutiveRoles: 'reject' });
  const { baseURL } = await server.start();
  const storage = mkdtempSync(join(tmpdir(), 'sp-cache-store-'));
  const workspace = mkdtempSync(join(tmpdir(), 'sp-cache-ws-'));
  writeFileSync(join(workspace, 'app.ts'), 'export const answer = 41;\n'.repeat(40));
  const controllers: AgentController[] = [];
  return {
    server,
    storage,
    workspace,
    make(settings = {}) {
      // claude-sonnet-4-5: the real minimum cacheable prefix (1,024 tokens) applies.
      const c = loopbackController({ workspace, storage, baseURL, settings: { model: 'claude-sonnet-4-5', ...settings } });
      controllers.push(c);
      return c;
    },
    call(n) {
      const r = server.messageRequests[n] as ValidRequest;
      assert.ok(r?.cache, `request ${n} was answered from the prompt cache model`);
      return r as ReturnType<Rig['call']>;
    },
    async close() {
      for (const c of controllers) c.dispose();
      await server.close();
    },
  };
}

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/** Tokens of the tools + system prefix as the server counts them (the first segments, before any message). */
function prefixTokens(server: LoopbackAnthropic, r: ValidRequest): number {
  const layout = server.cacheLayout(r.body);
  assert.ok(!('error' in layout));
  return layout.segments.filter((_, i) => layout.messageOf[i] === -1).reduce((n, s) => n + s.tokens, 0);
}

test('each call reads the prefix the previous call wrote; the next prompt reads the whole previous turn', async () => {
  const r = await rig();
  try {
    const c = r.make();
    r.server.queue.toolUse('read_file', { path: 'app.ts' }, { text: 'Let me look.' }).text('It is 41.');
    await c.send('What is the answer?');
    r.server.queue.text('Still 41.');
    await c.send('And now?');

    const [first, second, third] = [r.call(0), r.call(1), r.call(2)];
    const system = prefixTokens(r.server, first);
    assert.ok(system >= 1024, `tools + system prompt (${system} tokens) reach the minimum cacheable length`);
    assert.equal(first.cache.cacheReadTokens, 0);
    assert.equal(first.cache.cacheWriteTokens, first.inputTokens, 'the whole first request is written (breakpoint at its end)');
    assert.equal(second.cache.cacheReadTokens, first.inputTokens, 'call 2 reads all of call 1');
    assert.equal(second.cache.cacheWriteTokens, second.inputTokens - first.inputTokens);
    assert.equal(third.cache.cacheReadTokens, second.inputTokens, 'the next prompt reads the whole previous turn');
    assert.equal(third.cache.inputTokens, 0);
    for (const q of [first, second, third]) {
      // With the micro-compaction frontier before the end (the read_file result may be cleared later), a
      // breakpoint on the block before it too (the tool_use), from the call that carries the result on.
      const frontier = q === first ? [] : ['messages.1.content.1'];
      assert.deepEqual(
        q.cache.breakpoints.map((b) => (b.path.startsWith('messages') ? b.path : b.path.split('.')[0])),
        ['tools', 'system', ...frontier, `messages.${q.body.messages.length - 1}.content.0`],
      );
      assert.ok(countCacheBreakpoints(q.body) <= 4);
    }
    assert.deepEqual(third.cache.breakpoints.at(-1)?.path, `messages.${third.body.messages.length - 1}.content.0`);

    // Live calls record what the API reported on their assistant messages.
    const recorded = c.session.messages.filter((m) => m.role === 'assistant').map((m) => m.usage);
    assert.deepEqual(
      recorded.map((u) => [u?.inputTokens, u?.cacheReadTokens, u?.cacheCreationTokens, u?.model]),
      [first, second, third].map((q) => [q.cache.inputTokens, q.cache.cacheReadTokens, q.cache.cacheWriteTokens, 'claude-sonnet-4-5']),
    );
    assert.ok(recorded.every((u) => (u?.outputTokens ?? 0) > 0));
  } finally {
    await r.close();
  }
});

test('a compaction invalidates everything after the tools and the system prompt: the next call reads only those', async () => {
  const r = await rig();
  try {
    const c = r.make();
    for (let i = 0; i < 3; i++) {
      r.server.queue.toolUse('read_file', { path: 'app.ts' }, { text: `Look ${i}.` }).text(`Answer ${i}.`);
      await c.send(`Question ${i}?`);
    }
    const before = r.server.messageRequests.length;
    const outcome = await c.compactNow({ strategy: 'sliding-window', params: { maxEvents: 2 } });
    assert.equal(outcome.ok, true);
    r.server.queue.text('After.');
    await c.send('After the compaction?');
    const next = r.call(before);
    const system = prefixTokens(r.server, next);
    assert.equal(next.cache.cacheReadTokens, system, 'read: tools + system only');
    assert.equal(next.cache.cacheWriteTokens, next.inputTokens - system, 'the new history is written again');
    r.server.queue.text('Again.');
    await c.send('And once more?');
    assert.equal(r.call(before + 1).cache.cacheReadTokens, next.inputTokens, 'and read back by the call after');
  } finally {
    await r.close();
  }
});

test('a long parallel tool exchange (more blocks than the lookback) still reads the previous call: a second history breakpoint', async () => {
  const r = await rig();
  try {
    const c = r.make();
    const calls = Array.from({ length: 12 }, (_, i) => ({ name: 'list_files', input: { path: '.' }, id: `toolu_par${i}` }));
    r.server.queue.toolUse(calls, { text: 'Listing a lot.' }).text('Done.');
    await c.send('List everything, many times.');
    const second = r.call(1);
    const paths = second.cache.breakpoints.map((b) => b.path);
    assert.equal(paths.length, 4, `tools, system, previous end, last block: ${paths.join(', ')}`);
    assert.equal(paths[2], 'messages.0.content.0', 'the previous request ended with the prompt');
    assert.equal(second.cache.cacheReadTokens, r.call(0).inputTokens, 'read through the breakpoint on the previous end');
  } finally {
    await r.close();
  }
});

test('the stored session and its transcripts never contain cache_control', async () => {
  const r = await rig();
  try {
    const c = r.make();
    r.server.queue.toolUse('read_file', { path: 'app.ts' }).text('Read.');
    await c.send('Read app.ts');
    r.server.queue.text('Ok.');
    await c.send('Thanks');
    await c.compactNow({ strategy: 'sliding-window', params: { maxEvents: 2 } });
    assert.ok(
      r.server.messageRequests.some((q) => q.rawBody.includes('"cache_control"')),
      'the requests did carry breakpoints',
    );
    assert.ok(!JSON.stringify(c.session.messages).includes('cache_control'), 'in memory');
    const files = filesUnder(r.storage).concat(filesUnder(r.workspace));
    assert.ok(
      files.some((f) => f.endsWith('.jsonl')),
      `session files written: ${files.join(', ')}`,
    );
    for (const f of files) assert.ok(!readFileSync(f, 'utf8').includes('cache_control'), `${f} holds no cache_control`);
  } finally {
    await r.close();
  }
});

test("promptCaching 'off' sends no cache_control; '1h' sends ttl 1h; a settings change takes effect on the next call", async () => {
  const r = await rig();
  try {
    const c = r.make({ promptCaching: 'off' });
    r.server.queue.text('One.').text('Two.').text('Three.');
    await c.send('First');
    const off = r.server.messageRequests[0];
    assert.ok(!off.rawBody.includes('cache_control'));
    assert.equal(typeof off.body.system, 'string');
    assert.equal(r.call(0).cache.cacheReadTokens + r.call(0).cache.cacheWriteTokens, 0);

    c.updateSettings({ ...DEFAULT_HOST_SETTINGS, model: 'claude-sonnet-4-5', baseUrl: r.server.baseURL, promptCaching: '1h' });
    await c.send('Second');
    const hour = r.server.messageRequests[1];
    assert.equal(countCacheBreakpoints(hour.body), 3);
    assert.deepEqual(
      r.call(1).cache.breakpoints.map((b) => b.ttl),
      ['1h', '1h', '1h'],
    );
    c.updateSettings({ ...DEFAULT_HOST_SETTINGS, model: 'claude-sonnet-4-5', baseUrl: r.server.baseURL });
    await c.send('Third');
    assert.ok(JSON.stringify(r.server.messageRequests[2].body).includes('{"type":"ephemeral"}'), '5m: no ttl field');
  } finally {
    await r.close();
  }
});

test('the context meter and the inspector show the cache: last call, session totals, cost, per-call cost and the cache boundary', async () => {
  const r = await rig();
  try {
    const c = r.make();
    assert.equal(c.contextMeter().cache, undefined, 'nothing before the first call');
    r.server.queue.toolUse('read_file', { path: 'app.ts' }, { text: 'Let me look.' }).text('It is 41.');
    await c.send('What is the answer?');
    r.server.queue.text('Still 41.');
    await c.send('And now?');
    const calls = [r.call(0), r.call(1), r.call(2)].map((q) => q.cache);
    const out = c.session.messages.filter((m) => m.role === 'assistant').map((m) => m.usage!.outputTokens);
    const cache = c.contextMeter().cache!;
    assert.equal(cache.caching, '5m');
    assert.deepEqual(
      [cache.last.read, cache.last.write, cache.last.uncached, cache.last.output],
      [calls[2].cacheReadTokens, calls[2].cacheWriteTokens, calls[2].inputTokens, out[2]],
    );
    const sum = (f: (k: number) => number) => f(0) + f(1) + f(2);
    assert.equal(cache.session.calls, 3);
    assert.equal(
      cache.session.read,
      sum((k) => calls[k].cacheReadTokens),
    );
    assert.equal(
      cache.session.write,
      sum((k) => calls[k].cacheWriteTokens),
    );
    // Sonnet 4.5: $3/M input, $0.30/M cache read, $3.75/M 5-minute write, $15/M output.
    const cost = (k: number) =>
      (calls[k].inputTokens * 3 + calls[k].cacheReadTokens * 0.3 + calls[k].cacheWriteTokens * 3.75 + out[k] * 15) / 1e6;
    assert.ok(Math.abs(cache.last.costUSD - cost(2)) < 1e-12);
    assert.ok(Math.abs(cache.session.costUSD - sum(cost)) < 1e-12);

    // The inspector: each assistant row's call with its cost; the boundary where call 2's request ended.
    const inspector = c.inspectorSession();
    const costs = inspector.rows.filter((row) => row.usage).map((row) => row.usage!.costUSD!);
    assert.deepEqual(
      costs.map((x) => x.toFixed(9)),
      [0, 1, 2].map((k) => cost(k).toFixed(9)),
    );
    const boundary = inspector.usage.cacheBoundary!;
    assert.equal(boundary.source, 'breakpoint');
    assert.equal(boundary.readTokens, calls[2].cacheReadTokens);
    assert.equal(boundary.afterId, c.session.messages[2].id, 'after the tool result call 2 ended with');

    // After a compaction the next call reads only tools + system: the boundary is at the top (estimated).
    await c.compactNow({ strategy: 'sliding-window', params: { maxEvents: 2 } });
    r.server.queue.text('After.');
    await c.send('After the compaction?');
    const after = c.inspectorSession().usage.cacheBoundary!;
    assert.deepEqual([after.afterId, after.source], [null, 'estimate']);
    assert.equal(c.contextMeter().cache!.session.calls, 4, 'the archived calls still count');
  } finally {
    await r.close();
  }
});

test('a micro-compaction batch reads the prefix up to the frontier breakpoint: it re-writes what follows, not all from the system prompt', async () => {
  const r = await rig();
  try {
    const micro = {
      ...DEFAULT_HOST_SETTINGS.microCompact,
      keepRecent: 1,
      minChars: 100,
      triggerTokens: 2_500,
      clearAtLeast: 0,
      cacheAware: false,
    };
    const c = r.make({ microCompact: micro });
    for (let i = 0; i < 14; i++) r.server.queue.toolUse('read_file', { path: 'app.ts' }, { text: `Read ${i}.` });
    r.server.queue.text('Done.');
    await c.send('Read app.ts fourteen times.');
    const placeholders = (q: ValidRequest) =>
      (q.body.messages ?? [])
        .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
        .filter((b) => JSON.stringify(b).includes('[Previous: used')).length;
    const first = r.server.messageRequests.findIndex((q) => placeholders(q as ValidRequest) > 0);
    assert.ok(first > 0, 'a batch cleared old results');
    const batch = r.call(first);
    // The batch changed the first result (message 2), more blocks back than the lookback from the end sees.
    const blocksAfter = batch.body.messages.slice(2).reduce((n, m) => n + (Array.isArray(m.content) ? m.content.length : 1), 0);
    assert.ok(blocksAfter > 20, `${blocksAfter} blocks from the first result to the end`);
    const paths = batch.cache.breakpoints.map((b) => b.path);
    assert.ok(countCacheBreakpoints(batch.body) <= 4);
    assert.equal(paths[0], 'system.0', `the system prompt's breakpoint; the tools yield theirs: ${paths.join(', ')}`);
    assert.equal(paths[1], 'messages.1.content.1', 'the frontier before the batch: the first tool_use, before the first result');
    const system = prefixTokens(r.server, batch);
    assert.ok(
      batch.cache.cacheReadTokens > system,
      `the batch read ${batch.cache.cacheReadTokens} tokens: past the tools + system prompt (${system}), up to the frontier`,
    );
    // The batch wrote the new frontier's entry: the next request reads everything the batch sent.
    const next = r.call(first + 1);
    assert.equal(next.cache.cacheReadTokens, batch.inputTokens, 'the call after the batch reads the whole batch request');
  } finally {
    await r.close();
  }
});
