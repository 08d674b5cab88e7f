// Cache-aware micro-compaction end to end: the real SDK streams from the loopback Messages API, the
// agent hands the pipeline each call's cache usage (cache read + cache write), and the next request's
// micro-compaction weighs it: with the whole prefix cached, old results are held until clearing a batch
// pays back; with nothing cached, every old result is cleared as soon as it leaves the keep window.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { LoopbackAnthropic, reply, type WireBlock } from '../loopback/anthropic-server';
import { AgentLoop } from '../../src/agent/loop/agent';
import { cacheStateFromUsage } from '../../src/agent/loop/cacheState';
import { WorkspaceTools } from '../../src/agent/tools';
import { CompactionPipeline } from '../../src/core/pipeline/pipeline';
import { DEFAULT_PLAN_CONTEXT } from '../../src/core/pipeline/plan';
import { newSessionMeta, SessionLog } from '../../src/core/session/session';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';
import { TranscriptStore } from '../../src/core/transcripts/transcripts';
import { neverTrigger } from '../../src/core/pipeline/triggers';

const MODEL = 'claude-loopback';
const PLACEHOLDER = '[Previous: used read_file]';

/** Runs 6 reads of the same file; every reply reports `cached` cache-read tokens. Per request: how many results were placeholders. */
async function placeholdersPerRequest(cached: number) {
  const server = new LoopbackAnthropic({ consecutiveRoles: 'reject', contextWindows: { [MODEL]: 200_000 } });
  const { baseURL } = await server.start();
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'sp-cacheaware-')));
  const ws = join(dir, 'ws');
  mkdirSync(ws, { recursive: true });
  writeFileSync(
    join(ws, 'big.ts'),
    Array.from({ length: 120 }, (_, i) => `export const v${i} = compute(${i}); // padding text`).join('\n'),
  );
  const session = new SessionLog(newSessionMeta('s1', 'cache-aware'));
  const tokens = new MemoizedMessageCounter(new CharEstimateTokenizer());
  const pipeline = new CompactionPipeline(
    {
      session,
      transcripts: new TranscriptStore({ dir: join(dir, '.transcripts') }),
      ctx: { ...DEFAULT_PLAN_CONTEXT, contextWindow: 200_000, maxOutputTokens: 1024, tokens },
    },
    {
      microCompact: { enabled: true, keepRecent: 1, minChars: 100, cacheAware: true, horizonTurns: 10 },
      autoCompact: { enabled: false, strategy: 'sliding-window', params: { maxEvents: 40 }, trigger: neverTrigger },
    },
  );
  const agent = new AgentLoop({
    client: new Anthropic({ apiKey: 'sk-test', baseURL, maxRetries: 0 }),
    model: MODEL,
    maxTokens: 1024,
    pipeline,
    tools: new WorkspaceTools({ root: ws }),
    approvals: { request: async () => ({ approved: true }) },
    onEvent: () => undefined,
  });
  let calls = 0;
  const usage = { cache_read_input_tokens: cached, cache_creation_input_tokens: 0 };
  server.responder = () => (++calls <= 6 ? reply.toolUse('read_file', { path: 'big.ts' }, { usage }) : reply.text('Done.', { usage }));
  try {
    const result = await agent.run('Read big.ts six times.');
    assert.equal(result.status, 'completed');
    assert.ok(server.requests.every((q) => q.status === 200));
    const perRequest = server.messageRequests.map(
      (q) =>
        (q.body.messages ?? [])
          .flatMap((m) => (Array.isArray(m.content) ? (m.content as WireBlock[]) : []))
          .filter((b) => b.type === 'tool_result' && b.content === PLACEHOLDER).length,
    );
    return { perRequest, decision: pipeline.microDecision() };
  } finally {
    agent.dispose();
    await server.close();
  }
}

test('the agent passes the last call’s cache usage to micro-compaction: a cached prefix is re-written in batches, an uncached one every turn', async () => {
  // Nothing cached: each result is cleared as soon as it is old (request k carries k-2 placeholders).
  const uncached = await placeholdersPerRequest(0);
  assert.deepEqual(uncached.perRequest, [0, 0, 1, 2, 3, 4, 5]);
  // Everything cached (the server reports more than the request: clamped to it): one old result does
  // not pay back re-writing the prefix within 10 turns; two do, and are cleared together.
  const cached = await placeholdersPerRequest(1_000_000);
  assert.deepEqual(cached.perRequest, [0, 0, 0, 2, 2, 4, 4]);
  const d = cached.decision!;
  assert.equal(d.action, 'held');
  assert.ok(d.cache && d.cache.invalidatedCachedTokens > 0 && d.cache.paybackTurns! > 10, JSON.stringify(d));
});

test('cache state from usage: cache read + cache creation tokens, with the model', () => {
  assert.deepEqual(cacheStateFromUsage({ cache_read_input_tokens: 1200, cache_creation_input_tokens: 300 }, 'claude-sonnet-4-5'), {
    cachedPrefixTokens: 1500,
    model: 'claude-sonnet-4-5',
  });
  assert.deepEqual(cacheStateFromUsage({ cache_read_input_tokens: null }, 'm'), { cachedPrefixTokens: 0, model: 'm' });
});
