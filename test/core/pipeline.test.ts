// The three-layer pipeline end to end over loopback: the real SDK talks to a server that validates
// every request like the Messages API; faults are injected and the history must stay intact.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { LoopbackAnthropic, reply } from '../loopback/anthropic-server';
import { AnthropicLlmClient } from '../../src/agent/loop/anthropicClient';
import { isToolResult, type ContentBlock, type Message } from '../../src/core/conversation/conversation';
import { CompactionPipeline, type PipelineSettings } from '../../src/core/pipeline/pipeline';
import { DEFAULT_PLAN_CONTEXT } from '../../src/core/pipeline/plan';
import { SessionFileStore } from '../../src/core/session/session';
import { summarize, SUMMARY_SYSTEM_PROMPT } from '../../src/core/pipeline/summarize';
import { createTokenizer } from '../../src/core/counting/tokenizers';
import { MemoizedMessageCounter } from '../../src/core/counting/tokens';
import { restoreTranscript, TranscriptStore } from '../../src/core/transcripts/transcripts';
import { budgetTrigger } from '../../src/core/pipeline/triggers';

const MODEL = 'claude-loopback';
const WINDOW = 30_000;
const tokenizer = createTokenizer('gpt-tokenizer');

interface Rig {
  server: LoopbackAnthropic;
  client: Anthropic;
  pipeline: CompactionPipeline;
  store: SessionFileStore;
  dir: string;
  transcripts: TranscriptStore;
  close(): Promise<void>;
}

function settings(over: Partial<PipelineSettings['autoCompact']> = {}): PipelineSettings {
  return {
    microCompact: { enabled: true, keepRecent: 3, minChars: 100 },
    autoCompact: {
      enabled: true,
      strategy: 'recursive-summarization',
      params: { maxEventsToKeep: 6, overlapSize: 2 },
      trigger: budgetTrigger({ fraction: 0.8 }),
      ...over,
    },
  };
}

async function rig(
  opts: {
    write?: (p: string, t: string) => void;
    sleep?: (ms: number) => Promise<void>;
    maxRetries?: number;
    autoCompact?: Partial<PipelineSettings['autoCompact']>;
  } = {},
): Promise<Rig> {
  const server = new LoopbackAnthropic({ contextWindows: { [MODEL]: WINDOW }, consecutiveRoles: 'reject' });
  const { baseURL } = await server.start();
  const client = new Anthropic({ apiKey: 'sk-test', baseURL, maxRetries: 0 });
  const dir = mkdtempSync(join(tmpdir(), 'sp-pipe-'));
  const store = new SessionFileStore(join(dir, 'sessions'));
  const transcripts = new TranscriptStore({ dir: join(dir, '.transcripts'), write: opts.write });
  const session = store.create('s1', 'pipeline test');
  const llm = new AnthropicLlmClient({ apiKey: 'sk-test', baseURL, model: MODEL });
  const pipeline = new CompactionPipeline(
    {
      session,
      transcripts,
      // The scripted summaries are ~20 tokens; a 2,000-token estimate would make compacting these small
      // histories a no-op ("would not save tokens"), which is not what these tests are about.
      ctx: {
        ...DEFAULT_PLAN_CONTEXT,
        contextWindow: WINDOW,
        maxOutputTokens: 1024,
        summaryMaxTokens: 100,
        tokens: new MemoizedMessageCounter(tokenizer),
      },
      summarizer: (input, focus, signal) =>
        summarize(input, {
          client: llm,
          tokenizer,
          contextWindow: WINDOW,
          maxSummaryTokens: 800,
          focus,
          signal,
          maxRetries: opts.maxRetries ?? 3,
          sleep: opts.sleep ?? (async () => {}),
        }),
    },
    settings(opts.autoCompact),
  );
  return { server, client, pipeline, store, dir, transcripts, close: () => server.close() };
}

const isSummaryRequest = (body: { system?: unknown }) => typeof body.system === 'string' && body.system === SUMMARY_SYSTEM_PROMPT;

/** Drive one agent turn: prompt, then model calls until a text answer, executing scripted reads. */
async function agentTurn(r: Rig, prompt: string, reads: number, fileBytes: number): Promise<void> {
  r.pipeline.session.append({ id: `u_${r.pipeline.session.messages.length}`, role: 'user', content: prompt, createdAt: Date.now() });
  for (let i = 0; i <= reads; i++) {
    const prepared = await r.pipeline.beforeModelCall();
    const msg = await r.client.messages.create({ model: MODEL, max_tokens: 4096, messages: prepared.messages as Anthropic.MessageParam[] });
    const content = msg.content as unknown as ContentBlock[];
    r.pipeline.session.append({ id: `a_${r.pipeline.session.messages.length}`, role: 'assistant', content });
    const uses = msg.content.filter((b) => b.type === 'tool_use');
    if (uses.length === 0) return;
    const results: ContentBlock[] = uses.map((u) => ({
      type: 'tool_result',
      tool_use_id: u.id,
      content: `// ${JSON.stringify(u.input)}\n` + 'const value = compute(42);\n'.repeat(Math.ceil(fileBytes / 27)),
    }));
    r.pipeline.session.append({ id: `r_${r.pipeline.session.messages.length}`, role: 'user', content: results });
    await r.pipeline.runPendingCompaction();
  }
}

/**
 * Script the server: within a turn the agent reads `reads` files, then answers with `answerTokens`
 * worth of text (explanations accumulate; tool results are micro-compacted); summary requests get a summary.
 */
function scriptAgent(
  r: Rig,
  reads: number,
  answerTokens = 50,
  summaryReply: () => ReturnType<typeof reply.text> = () => reply.text('SUMMARY: read files, fixed the parser; next: run tests.'),
) {
  let call = 0;
  r.server.responder = (req) => {
    if (isSummaryRequest(req.body)) return summaryReply();
    const msgs = req.body.messages ?? [];
    // Tool results since the turn's prompt (the last user message with text and no tool_result).
    let done = 0;
    for (let i = msgs.length - 1; i >= 0; i--) {
      const c = msgs[i].content;
      if (msgs[i].role !== 'user') continue;
      const results = Array.isArray(c) ? c.filter((b) => b.type === 'tool_result').length : 0;
      if (results === 0 || (Array.isArray(c) && c.some((b) => b.type === 'text'))) break;
      done += results;
    }
    call++;
    if (done >= reads)
      return reply.text(`Done with this step. ${'The parser now handles this case correctly. '.repeat(Math.ceil(answerTokens / 8))}`);
    return reply.toolUse('read_file', { path: `src/file${call}.ts` });
  };
}

test('a long scripted session crosses 80% of the window, auto-compacts with a summary, and every request stays valid', async () => {
  const r = await rig();
  try {
    scriptAgent(r, 3, 2_000);
    let compactions = 0;
    r.pipeline.onDidCompact(() => compactions++);
    for (let t = 0; t < 12; t++) await agentTurn(r, `Task ${t}: fix the parser bug number ${t}.`, 3, 2_500);
    assert.ok(compactions >= 1, 'expected at least one auto-compaction');
    // The server validates every request like the API (tool pairs, roles, window): none failed.
    const failures = r.server.requests.filter((q) => q.status !== 200);
    assert.deepEqual(
      failures.map((q) => q.status),
      [],
    );
    // Summaries were requested and the prior summary was fed back on the second one.
    const summaryRequests = r.server.messageRequests.filter((q) => isSummaryRequest(q.body));
    assert.equal(summaryRequests.length, compactions);
    if (compactions >= 2) assert.match(JSON.stringify(summaryRequests[1].body.messages), /=== PRIOR SUMMARY ===/);
    // The history now opens with the synthetic summary; a transcript holds what was replaced.
    const session = r.pipeline.session;
    assert.equal(session.messages[0].synthetic, 'summary');
    assert.match(String(session.messages[0].content), /SUMMARY: read files/);
    const record = session.meta.compactions[0];
    assert.equal(record.trigger, 'auto');
    assert.ok(record.tokensAfter < record.tokensBefore);
    // The record's figures are request sizes: the trigger fired at 80%, the result is well below.
    assert.ok(record.tokensBefore >= 0.8 * WINDOW, `tokensBefore ${record.tokensBefore}`);
    const saved = restoreTranscript(record.transcriptPath);
    assert.ok(saved.length > record.archivedCount);
    assert.ok(r.pipeline.currentTokens() < 0.8 * WINDOW);
    // And the session on disk is the same as in memory.
    assert.deepEqual(r.store.load('s1').log.messages, session.messages);
  } finally {
    await r.close();
  }
});

test('micro-compaction runs before every call: old tool results reach the API as placeholders', async () => {
  const r = await rig({ autoCompact: { enabled: false } });
  try {
    scriptAgent(r, 5);
    await agentTurn(r, 'Read five files.', 5, 1_000);
    const last = r.server.messageRequests[r.server.messageRequests.length - 1].body.messages ?? [];
    const results = last.flatMap((m) => (Array.isArray(m.content) ? m.content.filter((b) => b.type === 'tool_result') : []));
    const placeholders = results.filter((b) => b.content === '[Previous: used read_file]');
    assert.ok(results.length >= 4);
    assert.equal(placeholders.length, results.length - 3, 'all but the 3 most recent results are placeholders');
    // The session itself keeps the originals.
    const stored = r.pipeline.session.messages.flatMap((m) => (Array.isArray(m.content) ? m.content.filter(isToolResult) : []));
    assert.ok(stored.every((b) => b.content !== '[Previous: used read_file]'));
  } finally {
    await r.close();
  }
});

test('the compact tool (layer 3) is applied after the current tool batch, with its focus', async () => {
  const r = await rig({ autoCompact: { enabled: false } });
  try {
    scriptAgent(r, 3);
    await agentTurn(r, 'Read files.', 3, 500);
    await agentTurn(r, 'Read more files.', 3, 500);
    const before = r.pipeline.session.messages.length;
    r.pipeline.requestCompaction('tool', 'preserve the test results');
    assert.equal(r.pipeline.session.messages.length, before, 'nothing happens until the batch completes');
    const outcome = await r.pipeline.runPendingCompaction();
    assert.ok(outcome?.ok, JSON.stringify(outcome));
    const sent = r.server.messageRequests.filter((q) => isSummaryRequest(q.body));
    assert.match(JSON.stringify(sent[0].body.messages), /Focus: preserve the test results/);
    assert.equal(r.pipeline.session.meta.compactions[0].trigger, 'tool');
    assert.equal(r.pipeline.session.meta.compactions[0].focus, 'preserve the test results');
  } finally {
    await r.close();
  }
});

/** A history worth compacting, built without the model. */
function seed(r: Rig, turns = 6): Message[] {
  for (let t = 0; t < turns; t++) {
    r.pipeline.session.append(
      { id: `u${t}`, role: 'user', content: `prompt ${t}` },
      { id: `c${t}`, role: 'assistant', content: [{ type: 'tool_use', id: `t${t}`, name: 'read_file', input: { path: `f${t}` } }] },
      { id: `r${t}`, role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${t}`, content: 'x'.repeat(400) }] },
      { id: `a${t}`, role: 'assistant', content: [{ type: 'text', text: `answer ${t}` }] },
    );
  }
  return [...r.pipeline.session.messages];
}

const faults: Array<[string, (r: Rig) => void, RegExp]> = [
  ['an empty summary', (r) => r.server.queue.empty(), /empty summary/],
  [
    'a 500 on every attempt',
    (r) => {
      for (let i = 0; i < 4; i++) r.server.queue.apiError('boom');
    },
    /Summarization failed: API error 500/,
  ],
  [
    '529 overloaded on every attempt',
    (r) => {
      for (let i = 0; i < 4; i++) r.server.queue.overloaded();
    },
    /overloaded/,
  ],
  [
    '429 rate limits on every attempt',
    (r) => {
      for (let i = 0; i < 4; i++) r.server.queue.rateLimited(1);
    },
    /Rate limited/,
  ],
  ['a non-retryable 400', (r) => r.server.queue.error(400, 'invalid_request_error', 'max_tokens: too large'), /max_tokens: too large/],
  ['a stream error body', (r) => r.server.queue.error(401, 'authentication_error', 'invalid x-api-key'), /invalid x-api-key/],
];
for (const [name, inject, message] of faults) {
  test(`fault: ${name} leaves the history unchanged, writes no transcript and reports the failure`, async () => {
    const r = await rig();
    try {
      const before = seed(r);
      inject(r);
      const failures: string[] = [];
      r.pipeline.onDidFail((f) => failures.push(f.message));
      const outcome = await r.pipeline.compact({
        strategy: 'recursive-summarization',
        params: { maxEventsToKeep: 4, overlapSize: 1 },
        trigger: 'manual',
      });
      assert.equal(outcome.ok, false);
      assert.equal(outcome.ok === false && outcome.reason, 'summary-failed');
      assert.match(failures[0], message);
      assert.deepEqual(r.pipeline.session.messages, before);
      assert.deepEqual(r.store.load('s1').log.messages, before);
      assert.equal(existsSync(r.transcripts.dir) ? readdirSync(r.transcripts.dir).length : 0, 0);
    } finally {
      await r.close();
    }
  });
}

test('fault: a 429 then success is retried after retry-after and compacts', async () => {
  const delays: number[] = [];
  const r = await rig({ sleep: async (ms) => void delays.push(ms) });
  try {
    seed(r);
    r.server.queue.rateLimited(2).text('SUMMARY after retry');
    const outcome = await r.pipeline.compact({
      strategy: 'recursive-summarization',
      params: { maxEventsToKeep: 4, overlapSize: 1 },
      trigger: 'manual',
    });
    assert.ok(outcome.ok);
    assert.deepEqual(delays, [2000]);
    assert.match(String(r.pipeline.session.messages[0].content), /SUMMARY after retry/);
  } finally {
    await r.close();
  }
});

test('fault: a summary cancelled mid-request leaves the history unchanged', async () => {
  const r = await rig();
  try {
    const before = seed(r);
    r.server.queue.hang();
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const outcome = await r.pipeline.compact({
      strategy: 'recursive-summarization',
      params: { maxEventsToKeep: 4, overlapSize: 1 },
      trigger: 'manual',
      signal: ac.signal,
    });
    assert.equal(outcome.ok === false && outcome.reason, 'cancelled');
    assert.match(outcome.ok === false ? outcome.message : '', /cancelled/);
    assert.deepEqual(r.pipeline.session.messages, before);
  } finally {
    await r.close();
  }
});

test('fault: a failed transcript write means no compaction happens', async () => {
  const r = await rig({
    write: () => {
      throw new Error('EACCES: permission denied');
    },
  });
  try {
    const before = seed(r);
    r.server.queue.text('a summary that must not be applied');
    const outcome = await r.pipeline.compact({
      strategy: 'recursive-summarization',
      params: { maxEventsToKeep: 4, overlapSize: 1 },
      trigger: 'manual',
    });
    assert.equal(outcome.ok === false && outcome.reason, 'transcript-failed');
    assert.match(outcome.ok === false ? outcome.message : '', /EACCES: permission denied.*history is unchanged/s);
    assert.deepEqual(r.pipeline.session.messages, before);
    assert.deepEqual(r.store.load('s1').log.messages, before);
  } finally {
    await r.close();
  }
});

test('fault: the user keeps typing during a slow summary; their messages are kept after the compacted history, once', async () => {
  const r = await rig();
  try {
    const before = seed(r);
    r.server.queue.text('SLOW SUMMARY', { delayMs: 300 });
    const pending = r.pipeline.compact({
      strategy: 'recursive-summarization',
      params: { maxEventsToKeep: 4, overlapSize: 1 },
      trigger: 'manual',
    });
    await new Promise((res) => setTimeout(res, 50));
    r.pipeline.session.append(
      { id: 'late1', role: 'user', content: 'also check the docs' },
      { id: 'late2', role: 'assistant', content: [{ type: 'text', text: 'will do' }] },
    );
    const outcome = await pending;
    assert.ok(outcome.ok && outcome.carriedOver === 2);
    const ids = r.pipeline.session.messages.map((m) => m.id);
    assert.deepEqual(ids.slice(-2), ['late1', 'late2']);
    assert.equal(ids.filter((i) => i === 'late1').length, 1);
    // The transcript holds the full history including the late messages.
    const saved = restoreTranscript(outcome.ok ? outcome.record.transcriptPath : '');
    assert.deepEqual(
      saved.map((m) => m.id),
      [...before.map((m) => m.id), 'late1', 'late2'],
    );
  } finally {
    await r.close();
  }
});

test('fault: two compactions at once — the second is refused while the first runs', async () => {
  const r = await rig();
  try {
    seed(r);
    r.server.queue.text('S1', { delayMs: 150 });
    const first = r.pipeline.compact({
      strategy: 'recursive-summarization',
      params: { maxEventsToKeep: 4, overlapSize: 1 },
      trigger: 'manual',
    });
    const second = await r.pipeline.compact({ strategy: 'sliding-window', params: { maxEvents: 2 }, trigger: 'manual' });
    assert.equal(second.ok === false && second.reason, 'busy');
    assert.ok((await first).ok);
  } finally {
    await r.close();
  }
});

test('undo restores the exact history from the transcript and keeps messages added since', async () => {
  const r = await rig();
  try {
    const before = seed(r);
    r.server.queue.text('SUMMARY');
    const outcome = await r.pipeline.compact({
      strategy: 'recursive-summarization',
      params: { maxEventsToKeep: 4, overlapSize: 1 },
      trigger: 'inspector',
    });
    assert.ok(outcome.ok);
    r.pipeline.session.append({ id: 'after', role: 'user', content: 'next question' });
    const undone = r.pipeline.undo();
    assert.ok(undone.ok, JSON.stringify(undone));
    assert.deepEqual(r.pipeline.session.messages, [...before, { id: 'after', role: 'user', content: 'next question' }]);
    assert.equal(r.pipeline.undo().ok, false, 'an undo is not undone by a second undo');
  } finally {
    await r.close();
  }
});

test('a non-LLM strategy applied through the pipeline writes its transcript first', async () => {
  const r = await rig();
  try {
    const before = seed(r);
    const outcome = await r.pipeline.compact({ strategy: 'turn-window', params: { maxTurns: 2 }, trigger: 'manual' });
    assert.ok(outcome.ok);
    assert.deepEqual(restoreTranscript(outcome.record.transcriptPath), before);
    assert.deepEqual(
      r.pipeline.session.messages.map((m) => m.id),
      before.slice(-8).map((m) => m.id),
    );
    assert.equal(r.server.requests.length, 0, 'no model call for a non-LLM strategy');
  } finally {
    await r.close();
  }
});
