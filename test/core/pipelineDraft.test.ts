// The pipeline's two-phase path (issue 13 §5) with the real SDK summarizing through the loopback
// server: summarize -> the reviewer holds the draft -> commit the final text. Messages appended while
// the draft waits are carried over by the compare-and-swap commit and are in the transcript; a failing
// reviewer changes nothing; the record's draft / finalText are validated when the meta is read back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LoopbackAnthropic, reply } from '../loopback/anthropic-server';
import { AnthropicLlmClient } from '../../src/agent/loop/anthropicClient';
import type { Message } from '../../src/core/conversation/conversation';
import { CompactionPipeline, type Summarizer } from '../../src/core/pipeline/pipeline';
import { DEFAULT_PLAN_CONTEXT } from '../../src/core/pipeline/plan';
import { SessionFileStore } from '../../src/core/session/session';
import { compactionRecordProblem } from '../../src/core/session/sessionMeta';
import { summarize, SUMMARY_SYSTEM_PROMPT } from '../../src/core/pipeline/summarize';
import type { SummaryDecision, SummaryDraft } from '../../src/core/pipeline/summaryDraft';
import { createTokenizer } from '../../src/core/counting/tokenizers';
import { MemoizedMessageCounter } from '../../src/core/counting/tokens';
import { restoreTranscript, TranscriptStore } from '../../src/core/transcripts/transcripts';
import { budgetTrigger } from '../../src/core/pipeline/triggers';

const MODEL = 'claude-loopback';
const tokenizer = createTokenizer('gpt-tokenizer');

async function rig(reviewer: (d: SummaryDraft) => Promise<SummaryDecision>) {
  const server = new LoopbackAnthropic({ consecutiveRoles: 'reject' });
  const { baseURL } = await server.start();
  server.responder = (req) => (req.body.system === SUMMARY_SYSTEM_PROMPT ? reply.text('DRAFT: six questions answered.') : undefined);
  const dir = mkdtempSync(join(tmpdir(), 'sp-pdraft-'));
  const session = new SessionFileStore(join(dir, 'sessions')).create('s1', 'draft test');
  for (let i = 0; i < 6; i++) {
    session.append({ id: `u${i}`, role: 'user', content: `Question ${i}`, createdAt: i });
    session.append({ id: `a${i}`, role: 'assistant', content: [{ type: 'text', text: `Answer ${i}. ${'detail '.repeat(200)}` }] });
  }
  const llm = new AnthropicLlmClient({ apiKey: 'sk-test', baseURL, model: MODEL });
  const summarizer: Summarizer = (input, focus, signal) =>
    summarize(input, { client: llm, tokenizer, contextWindow: 30_000, maxSummaryTokens: 800, focus, signal, sleep: async () => {} });
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
      summarizer,
      reviewer,
    },
    {
      microCompact: { enabled: false, keepRecent: 3, minChars: 100 },
      autoCompact: { enabled: false, strategy: 'recursive-summarization', params: {}, trigger: budgetTrigger({ fraction: 0.8 }) },
    },
  );
  return { server, session, pipeline };
}

const RS = { strategy: 'recursive-summarization', params: { maxEventsToKeep: 2, overlapSize: 1 }, trigger: 'manual' as const };

test('messages appended while the draft waits are carried over; the final text is committed; the transcript holds all', async () => {
  const late: { session?: Awaited<ReturnType<typeof rig>>['session'] } = {};
  const appended: Message[] = [
    { id: 'u_late', role: 'user', content: 'A question asked during the review', createdAt: 99 },
    { id: 'a_late', role: 'assistant', content: [{ type: 'text', text: 'Its answer.' }] },
  ];
  const r = await rig(async (d) => {
    assert.equal(d.text, 'DRAFT: six questions answered.');
    for (const m of appended) late.session!.append(m);
    return { apply: true, text: 'FINAL: edited by the user.' };
  });
  late.session = r.session;
  try {
    const before = [...r.session.messages];
    const outcome = await r.pipeline.compact({ ...RS, review: true, focus: 'the answers' });
    assert.ok(outcome.ok, JSON.stringify(outcome));
    assert.equal(outcome.carriedOver, 2);
    assert.deepEqual(r.session.messages.slice(-2), appended);
    const summary = JSON.stringify(r.session.messages[0].content);
    assert.ok(summary.includes('FINAL: edited by the user.') && !summary.includes('DRAFT:'), summary);
    assert.equal(outcome.record.draft, 'DRAFT: six questions answered.');
    assert.equal(outcome.record.finalText, 'FINAL: edited by the user.');
    assert.equal(outcome.record.focus, 'the answers');
    assert.equal(compactionRecordProblem(JSON.parse(JSON.stringify(outcome.record))), null);
    assert.deepEqual(restoreTranscript(outcome.record.transcriptPath, outcome.record.transcriptSha256), [...before, ...appended]);
  } finally {
    await r.server.close();
  }
});

test('a reviewer that throws, or a compaction without review, behave as specified', async () => {
  const r = await rig(async () => {
    throw new Error('the editor went away');
  });
  try {
    const before = [...r.session.messages];
    const failed = await r.pipeline.compact({ ...RS, review: true });
    assert.ok(!failed.ok && failed.reason === 'summary-failed' && /editor went away/.test(failed.message), JSON.stringify(failed));
    assert.deepEqual(r.session.messages, before);
    const direct = await r.pipeline.compact(RS); // no review: the reviewer is not asked
    assert.ok(direct.ok, JSON.stringify(direct));
    assert.equal(direct.record.draft, undefined);
  } finally {
    await r.server.close();
  }
});

test('a compaction record with a non-string draft or finalText is named by field', () => {
  const base = {
    id: 'c',
    at: 1,
    strategy: 's',
    params: {},
    trigger: 'manual',
    tokensBefore: 1,
    tokensAfter: 1,
    archivedCount: 0,
    truncatedCount: 0,
    transcriptPath: 't',
    syntheticId: null,
    tailStartId: null,
    resultLength: 1,
  };
  assert.equal(compactionRecordProblem({ ...base, draft: 'd', finalText: 'f' }), null);
  assert.equal(compactionRecordProblem({ ...base, draft: 3 })?.field, '.draft');
  assert.equal(compactionRecordProblem({ ...base, finalText: { x: 1 } })?.field, '.finalText');
});
