// The replay on small generated sessions whose numbers are checked by hand. Counts use the chars/4
// tokenizer: a string message costs 4 + ceil(chars / 4) tokens. The recorded usage is exactly
// 2,000 + 1 × (the call's visible input), so the calibration finds a 2,000-token system + tools
// prefix and a factor of 1. Model claude-sonnet-4-5: $3 input, $15 output, $0.30 cache read,
// $3.75 5-minute cache write per million tokens; minimum cacheable prefix 1,024 tokens.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  budgetTrigger,
  CharEstimateTokenizer,
  replaySession,
  type ImportResult,
  type Message,
  type ReplayConfig,
} from '../../src/core/index';
import type { ReplayConfigResult } from '../../src/core/replay';
import { PrefixCache } from '../../src/core/cost/cost';
import { commonFolder, sessionRecall } from '../../src/core/replay/recall';

const MODEL = 'claude-sonnet-4-5';
const PREFIX = 2_000;
const tokenizer = new CharEstimateTokenizer();
const tokensOf = (m: Message) => 4 + Math.ceil((m.content as string).length / 4);

const prompt = (id: string, chars = 400): Message => ({ id, role: 'user', content: `${id} `.padEnd(chars, 'x') });

/** A recording: prompt, answer, prompt, answer… with recorded usage = PREFIX + visible input, and the given outputs. */
function recording(outputs: number[], at?: number[], promptChars = 400): ImportResult {
  const messages: Message[] = [];
  outputs.forEach((out, k) => {
    messages.push(prompt(`u${k + 1}`, promptChars));
    const input = messages.reduce((n, m) => n + tokensOf(m), 0);
    messages.push({
      id: `a${k + 1}`,
      role: 'assistant',
      content: `answer ${k + 1} `.padEnd(40, 'y'),
      usage: { inputTokens: PREFIX + input, cacheReadTokens: 0, cacheCreationTokens: 0, outputTokens: out, model: MODEL },
      ...(at ? { createdAt: at[k] } : {}),
    });
  });
  return { format: 'anthropic-json', messages, compactions: [], warnings: [], model: MODEL };
}

function config(name: string, over: Partial<ReplayConfig> = {}, auto?: Partial<ReplayConfig['pipeline']['autoCompact']>): ReplayConfig {
  return {
    name,
    maxOutputTokens: 1_000,
    ledger: true,
    promptCaching: '5m',
    pipeline: {
      microCompact: { enabled: false, keepRecent: 3, minChars: 100 },
      autoCompact: {
        enabled: false,
        strategy: 'recursive-summarization',
        params: { maxEventsToKeep: 2, overlapSize: 0 },
        trigger: budgetTrigger({ fraction: 0.9 }),
        review: 'never',
        ...auto,
      },
    },
    ...over,
  };
}

const perCall = (r: ReplayConfigResult) => r.points.map((p) => [p.inputTokens, p.cacheReadTokens, p.cacheWriteTokens, p.outputTokens]);
const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-9, `${a} != ${b}`);

test('with caching, the first call writes system + history, each later call reads the previous prefix and writes only what is new', async () => {
  // u = 4 + 100 = 104 tokens, answer = 4 + 10 = 14: the requests are 2,104, 2,222 and 2,340 tokens.
  const report = await replaySession(recording([10, 20, 30]), [config('cached')], { tokenizer });
  assert.equal(report.overheadTokens, PREFIX);
  assert.ok(Math.abs(report.factor - 1) < 1e-9);
  const r = report.configs[0];
  assert.deepEqual(
    r.points.map((p) => p.contextTokens),
    [2_104, 2_222, 2_340],
  );
  assert.deepEqual(perCall(r), [
    [0, 0, 2_104, 10],
    [0, 2_104, 118, 20],
    [0, 2_222, 118, 30],
  ]);
  assert.equal(r.calls, 3);
  assert.equal(r.peakContextTokens, 2_340);
  // 2,104 × 3.75 + 10 × 15; 2,104 × 0.3 + 118 × 3.75 + 20 × 15; 2,222 × 0.3 + 118 × 3.75 + 30 × 15 (per million).
  close(r.costUSD, (7_890 + 150 + 631.2 + 442.5 + 300 + 666.6 + 442.5 + 450) / 1e6);
  close(r.points[2].cumulativeCostUSD, r.costUSD);
  assert.deepEqual(report.recorded && [report.recorded.calls, report.recorded.inputTokens, report.recorded.outputTokens], [3, 6_666, 60]);
});

test('without caching every input token is billed at the input price', async () => {
  const r = (await replaySession(recording([10, 20, 30]), [config('off', { promptCaching: 'off' })], { tokenizer })).configs[0];
  assert.deepEqual(perCall(r), [
    [2_104, 0, 0, 10],
    [2_222, 0, 0, 20],
    [2_340, 0, 0, 30],
  ]);
  close(r.costUSD, (6_666 * 3 + 60 * 15) / 1e6);
});

test('the recorded timestamps drive the TTL: a call more than 5 minutes after the last use writes everything again', async () => {
  const r = (await replaySession(recording([10, 20, 30], [1_000, 400_000, 410_000]), [config('ttl')], { tokenizer })).configs[0];
  assert.deepEqual(perCall(r), [
    [0, 0, 2_104, 10],
    [0, 0, 2_222, 20],
    [0, 2_222, 118, 30],
  ]);
  // With a 1-hour TTL the gap is covered; the writes cost 2x the input price.
  const h = (
    await replaySession(recording([10, 20, 30], [1_000, 400_000, 410_000]), [config('1h', { promptCaching: '1h' })], { tokenizer })
  ).configs[0];
  assert.deepEqual(perCall(h)[1], [0, 2_104, 118, 20]);
  close(h.points[0].costUSD, (2_104 * 6 + 10 * 15) / 1e6);
});

test('a prefix below the minimum cacheable length is not cached (input price, nothing written)', async () => {
  // Recorded usage of 100 + the visible input: the requests are 100 + 6 and 100 + 6 + 14 + 6 tokens, under 1,024.
  const small = recording([5, 5], undefined, 8);
  for (const m of small.messages) if (m.usage) m.usage = { ...m.usage, inputTokens: m.usage.inputTokens - PREFIX + 100 };
  const r = (await replaySession(small, [config('small')], { tokenizer })).configs[0];
  assert.equal(r.cacheWriteTokens, 0);
  assert.equal(r.cacheReadTokens, 0);
  assert.equal(
    r.inputTokens,
    r.points.reduce((n, p) => n + p.contextTokens, 0),
  );
});

test('no-compaction stops where the request and the answer reserve overflow the window, and says so', async () => {
  // Windows of 3,300: call 3 (2,340 + 1,000 reserve) overflows.
  const r = (await replaySession(recording([10, 20, 30]), [config('none')], { tokenizer, contextWindow: 3_300 })).configs[0];
  assert.equal(r.calls, 2);
  assert.equal(r.stoppedAt, 3);
  assert.match(
    r.notes.join('\n'),
    /stopped at call 3 of 3: the request \(2,340 tokens\) and the answer reserve \(1,000\) overflow the 3,300-token window/,
  );
});

test('an auto-compaction: the summary is a call on the cached prefix, the history after it is written again, recall counts the ledger', async () => {
  // Eight turns of 1,018 tokens; compact when the window minus the request is at most 4,000 tokens of 12,000.
  const rec = recording([10, 10, 10, 10, 10, 10, 10, 10], undefined, 4_000);
  const cfg = config('compact', {}, { enabled: true, trigger: budgetTrigger({ headroomTokens: 4_000 }) });
  const r = (await replaySession(rec, [cfg], { tokenizer, contextWindow: 12_000 })).configs[0];
  assert.ok(r.compactions >= 1, `compactions: ${r.compactions}`);
  assert.equal(r.summaryCalls, r.compactions);
  assert.equal(r.stoppedAt, null);
  const first = r.points.findIndex((p) => p.compaction);
  const at = r.points[first];
  assert.ok(at.compaction!.summarized);
  // The rewritten history is not in the cache: only the system prompt + tools prefix is read.
  assert.equal(at.cacheReadTokens, PREFIX);
  assert.equal(at.cacheWriteTokens, at.contextTokens - PREFIX);
  // The summary call, sent as the agents send it: the conversation as last sent (read from the cache)
  // with the instruction appended (written), and the stand-in's output beside the call's own output.
  assert.ok(at.outputTokens === 10);
  assert.ok(r.outputTokens > 8 * 10, 'the summary output is billed');
  // Only the messages since the last call and the instruction are uncached input; the rest is read.
  const previous = r.points[first - 1].contextTokens;
  assert.ok(r.inputTokens > 0 && r.inputTokens < previous / 2, `uncached summary input ${r.inputTokens}`);
  assert.ok(r.cacheReadTokens > r.points.reduce((n, p) => n + p.cacheReadTokens, 0), 'the summary call read the cached conversation');
  assert.ok(
    r.summaryCostUSD > 0 && r.summaryCostUSD < (previous * 3) / 1e6,
    `summary call $${r.summaryCostUSD} < the conversation at full input price`,
  );
  // Every archived prompt is still in the request (the ledger quotes short prompts verbatim).
  assert.ok(r.archivedArtifacts > 0);
  assert.equal(r.ledgerRecall, 1);
  // The estimate (2,000) cut to the call's max_tokens: sized by the probes, at most the max output (1,000).
  assert.match(
    r.notes.join('\n'),
    /2,000-token stand-ins \(an estimate.*max_tokens of 1,000 \(sized by the probes/,
    'the estimate, capped',
  );
  assert.deepEqual(r.summaryBound, { min: 1_000, max: 1_000, source: 'probes' });
  assert.ok(r.outputTokens - 8 * 10 <= 1_000 * r.summaryCalls, `summary output ${r.outputTokens - 80} within max_tokens`);
});

test('micro-compaction rewrites an older tool result: the next call reads the cache only up to the rewritten message', async () => {
  const big = 'z'.repeat(2_000);
  const use = (id: string, tid: string): Message => ({
    id,
    role: 'assistant',
    content: [{ type: 'tool_use', id: tid, name: 'Read', input: { path: `${id}.ts` } }],
  });
  const res = (id: string, tid: string): Message => ({
    id,
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: tid, content: big }],
  });
  const messages: Message[] = [prompt('u1')];
  const usage = (n: number) => ({ inputTokens: n, cacheReadTokens: 0, cacheCreationTokens: 0, outputTokens: 5, model: MODEL });
  for (let k = 1; k <= 3; k++) {
    const m = use(`c${k}`, `t${k}`);
    messages.push({ ...m, usage: usage(PREFIX + 1_000 * k) }, res(`r${k}`, `t${k}`));
  }
  messages.push({ id: 'a4', role: 'assistant', content: 'done', usage: usage(PREFIX + 5_000) });
  const rec: ImportResult = { format: 'anthropic-json', messages, compactions: [], warnings: [], model: MODEL };
  const cfg = config('micro');
  cfg.pipeline.microCompact = { enabled: true, keepRecent: 2, minChars: 100 };
  const r = (await replaySession(rec, [cfg], { tokenizer })).configs[0];
  // Call 4 sees three results: the oldest (r1) is replaced, so the cached prefix ends after c1.
  const p = r.points[3];
  const before = r.points[2];
  assert.ok(p.cacheReadTokens < before.contextTokens, 'the rewritten result breaks the cached prefix');
  assert.ok(p.contextTokens < PREFIX + 5_000, 'the view is smaller than the full history (its recorded size)');
  assert.ok(p.cacheReadTokens >= PREFIX);
  assert.equal(p.cacheReadTokens + p.cacheWriteTokens + p.inputTokens, p.contextTokens);
});

test('the prompt cache: reading a longer prefix past the system breakpoint keeps the system entry warm', () => {
  const cache = new PrefixCache(1_024);
  const system = { key: 'system', tokens: 2_000 };
  const minute = 60_000;
  cache.call([system], [0], 0, '5m');
  // Every 4 minutes a request reads a longer prefix that ends past the system breakpoint.
  for (let k = 1; k <= 3; k++) {
    const history = Array.from({ length: k }, (_, i) => ({ key: `m${i}`, tokens: 500 }));
    cache.call([system, ...history], [0, k], k * 4 * minute, '5m');
  }
  // 16 minutes after the system entry was written, 4 after its last use: still served.
  const out = cache.call([system, { key: 'other', tokens: 500 }], [0, 1], 16 * minute, '5m');
  assert.equal(out.cacheReadTokens, 2_000);
});

test('as-recorded on a recording that used no prompt cache bills every token as input, as recorded', async () => {
  const rec = recording([10, 20, 30]);
  const r = await replaySession(rec, [{ ...config('as'), mode: 'as-recorded' }], { tokenizer });
  const c = r.configs[0];
  assert.equal(c.cacheReadTokens + c.cacheWriteTokens, 0);
  assert.ok(c.costErrorVsRecorded !== null && Math.abs(c.costErrorVsRecorded) < 1e-9, `off by ${c.costErrorVsRecorded}`);
  assert.equal(r.cacheServedRatio, 1);
});

test('path recall: a path counts as named in full or relative to the session folder, never by a bare prefix', () => {
  const paths = new Set(['/home/me/project/src/app.ts', '/home/me/project/README.md', '/home/me/project/src/util/x.ts']);
  assert.equal(commonFolder(paths), '/home/me/project/');
  const said = (text: string) => sessionRecall({ paths, prompts: new Set() }, [{ id: 's', role: 'user', content: text }]).pathRecall;
  assert.equal(said('We changed src/app.ts and /home/me/project/README.md.'), 2 / 3);
  assert.equal(said('Nothing about files.'), 0);
  assert.equal(commonFolder(['/a.ts', '/b/c.ts']), '', 'no folder deeper than the root');
});
