// "Split here" through the hosts' seams: the inspector protocol (splitAtId validated, exact keys, cap),
// the inspector service's preview at a chosen message, and the pipeline applying split-at (with the
// real SDK summarizing over the loopback server, and without a summary), then undo.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LoopbackAnthropic, reply } from '../../loopback/anthropic-server';
import { AnthropicLlmClient } from '../../../src/agent/loop/anthropicClient';
import { planContextFor, strategyParamsFor } from '../../../src/settings/engineSettings';
import { DEFAULT_HOST_SETTINGS } from '../../../src/settings/hostSettings';
import { InspectorService } from '../../../src/agent/service/inspectorService';
import {
  CharEstimateTokenizer,
  CompactionPipeline,
  DEFAULT_PLAN_CONTEXT,
  MemoizedMessageCounter,
  SessionFileStore,
  summarize,
  TranscriptStore,
  type Message,
} from '../../../src/core';
import { budgetTrigger } from '../../../src/core/pipeline/triggers';
import { requestViolations } from '../../../src/core/conversation/invariants';
import { toApiMessages } from '../../../src/core/conversation/conversation';
import { parseInspectorToHost } from '../../../src/protocol/validation';

function conversation(turns: number): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < turns; i++) {
    out.push({ id: `u${i}`, role: 'user', content: `question ${i} `.repeat(60) });
    out.push({
      id: `c${i}`,
      role: 'assistant',
      content: [{ type: 'tool_use', id: `t${i}`, name: 'read_file', input: { path: `f${i}.ts` } }],
    });
    out.push({ id: `r${i}`, role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: `line ${i}\n`.repeat(200) }] });
    out.push({ id: `a${i}`, role: 'assistant', content: `answer ${i} `.repeat(80) });
  }
  return out;
}

test('the inspector protocol carries splitAtId on preview and apply: optional, a non-empty id within the cap, exact keys', () => {
  const preview = { type: 'preview', requestId: 3, strategy: 'split-at', params: { summarize: 0 } };
  assert.deepEqual(parseInspectorToHost(preview), preview, 'absent: no key added');
  assert.deepEqual(parseInspectorToHost({ ...preview, splitAtId: 'u2' }), { ...preview, splitAtId: 'u2' });
  const apply = { type: 'apply', strategy: 'split-at', params: { summarize: 1 }, focus: 'keep the API', splitAtId: 'u2' };
  assert.deepEqual(parseInspectorToHost(apply), apply);
  for (const bad of ['', 'x'.repeat(201), 7, null, ['u2']]) {
    assert.equal(parseInspectorToHost({ ...preview, splitAtId: bad }), null, `preview splitAtId ${JSON.stringify(bad)}`);
    assert.equal(parseInspectorToHost({ ...apply, splitAtId: bad }), null, `apply splitAtId ${JSON.stringify(bad)}`);
  }
  assert.equal(parseInspectorToHost({ ...preview, splitAtId: 'u2', splitAt: 'u2' }), null, 'unknown key');
  assert.equal(parseInspectorToHost({ ...preview, splitAtId: 'x'.repeat(200) })?.type, 'preview', 'at the cap');
});

test('the inspector service previews split-at at a chosen message of the current session; an unknown id names it', () => {
  const store = new SessionFileStore(join(mkdtempSync(join(tmpdir(), 'sp-split-')), 'sessions'));
  const session = store.create('s1', 'Split');
  session.append(...conversation(4));
  const counter = new MemoizedMessageCounter(new CharEstimateTokenizer());
  const settings = DEFAULT_HOST_SETTINGS;
  const ctx = planContextFor(settings, counter);
  const pipeline = { effectiveMessages: () => session.messages, liveContext: () => ({}) } as unknown as CompactionPipeline;
  const service = new InspectorService({
    current: () => ({ session, pipeline, ctx }),
    settings: () => settings,
    counter,
    strategyParams: (name) => strategyParamsFor(settings, name, () => {}),
    overheadParts: () => ({ system: 100, tools: 50 }),
  });
  const at = service.preview('split-at', { summarize: 0 }, 1, { at: null }, 'u2');
  assert.equal(at.tailStartId, 'u2');
  assert.deepEqual(at.archivedIds, ['u0', 'c0', 'r0', 'a0', 'u1', 'c1', 'r1', 'a1']);
  const moved = service.preview('split-at', { summarize: 0 }, 2, { at: null }, 'r1');
  assert.equal(moved.tailStartId, 'u2');
  assert.ok(
    moved.notes.some((n) => n.includes('moved from r1 to u2')),
    moved.notes.join('; '),
  );
  // Without a chosen message the card's own preview splits before the latest prompt.
  assert.equal(service.preview('split-at', { summarize: 0 }, 3).tailStartId, 'u3');
  assert.throws(() => service.preview('split-at', { summarize: 0 }, 4, { at: null }, 'gone-9'), /"gone-9"/);
});

test('the pipeline applies split-at at the chosen message with an LLM summary (real SDK, loopback) or without, and undo restores', async () => {
  const server = new LoopbackAnthropic({ contextWindows: { 'claude-loopback': 30_000 }, consecutiveRoles: 'reject' });
  const { baseURL } = await server.start();
  try {
    server.responder = () => reply.text('Summary: four read_file turns over f0..f1; questions answered.');
    const dir = mkdtempSync(join(tmpdir(), 'sp-split-pipe-'));
    const session = new SessionFileStore(join(dir, 'sessions')).create('s1', 'split pipeline');
    const original = conversation(4);
    session.append(...original);
    const tokenizer = new CharEstimateTokenizer();
    const llm = new AnthropicLlmClient({ apiKey: 'sk-test', baseURL, model: 'claude-loopback' });
    const pipeline = new CompactionPipeline(
      {
        session,
        transcripts: new TranscriptStore({ dir: join(dir, '.transcripts') }),
        ctx: {
          ...DEFAULT_PLAN_CONTEXT,
          contextWindow: 30_000,
          maxOutputTokens: 1024,
          summaryMaxTokens: 100,
          tokens: new MemoizedMessageCounter(tokenizer),
        },
        summarizer: (input, focus, signal) =>
          summarize(input, { client: llm, tokenizer, contextWindow: 30_000, maxSummaryTokens: 400, focus, signal, sleep: async () => {} }),
      },
      {
        microCompact: { enabled: false, keepRecent: 3, minChars: 100 },
        autoCompact: { enabled: false, strategy: 'recursive-summarization', params: {}, trigger: budgetTrigger({ fraction: 0.8 }) },
      },
    );
    const summarized = await pipeline.compact({ strategy: 'split-at', params: { summarize: 1 }, splitAtId: 'r2', trigger: 'inspector' });
    assert.equal(summarized.ok, true, summarized.ok ? '' : summarized.message);
    const after = session.messages;
    assert.equal(after[0].synthetic, 'summary');
    assert.match(JSON.stringify(after[0].content), /four read_file turns/);
    assert.equal(after[1].id, 'u3', 'the split moved from r2 to the next prompt');
    assert.equal(server.messageRequests.length, 1, 'one summary call');
    assert.deepEqual(requestViolations(toApiMessages(after)), []);
    assert.equal(pipeline.undo().ok, true);
    assert.deepEqual(
      session.messages.map((m) => m.id),
      original.map((m) => m.id),
    );

    const plain = await pipeline.compact({ strategy: 'split-at', params: { summarize: 0 }, splitAtId: 'u1', trigger: 'inspector' });
    assert.equal(plain.ok, true, plain.ok ? '' : plain.message);
    assert.equal(server.messageRequests.length, 1, 'no model call without a summary');
    // Everything before u1 left (an opener carrying the ledger may precede the tail); the rest is verbatim.
    assert.deepEqual(
      session.messages.filter((m) => !m.synthetic).map((m) => m.id),
      original.slice(4).map((m) => m.id),
    );
    assert.deepEqual(requestViolations(toApiMessages(session.messages)), []);
    const unknown = await pipeline.compact({ strategy: 'split-at', params: { summarize: 0 }, splitAtId: 'nope', trigger: 'inspector' });
    assert.equal(unknown.ok, false);
    if (!unknown.ok) assert.match(unknown.message, /"nope"/);
  } finally {
    await server.close();
  }
});
