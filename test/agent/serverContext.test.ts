// Server-side context management end to end: the agent loop with the real @anthropic-ai/sdk against the
// loopback server, which implements the documented rules (test/loopback/contextManagement.ts). With a
// server strategy as the auto strategy, every request carries `context_management` and the beta flag,
// nothing is compacted locally, what the server did is recorded on the assistant message and told to
// the user; a compaction block round-trips and what precedes it is archived (transcript first); a
// compaction block with null content is a failed no-op; pause_after_compaction continues.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { LoopbackAnthropic, reply, type ValidRequest, type WireMessage } from '../loopback/anthropic-server';
import { AgentLoop, type AgentEvent } from '../../src/agent/loop/agent';
import { ChatLog } from '../../src/agent/projections/chatLog';
import { ChatProjector } from '../../src/agent/projections/chatProjector';
import { WorkspaceTools } from '../../src/agent/tools';
import { CalibratedCounter } from '../../src/core/counting/calibration';
import { toApiMessages } from '../../src/core/conversation/conversation';
import { requestViolations } from '../../src/core/conversation/invariants';
import { CompactionPipeline, type PipelineSettings } from '../../src/core/pipeline/pipeline';
import { DEFAULT_PLAN_CONTEXT } from '../../src/core/pipeline/plan';
import { COMPACT_BETA, CONTEXT_MANAGEMENT_BETA, type ServerContextReport } from '../../src/core/pipeline/serverContext';
import { newSessionMeta, SessionFileStore, SessionLog } from '../../src/core/session/session';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';
import { TranscriptStore } from '../../src/core/transcripts/transcripts';
import { budgetTrigger } from '../../src/core/pipeline/triggers';

const MODEL = 'claude-loopback';
const BIG = Array.from({ length: 300 }, (_, i) => `export const value${i} = compute(${i}, "${'y'.repeat(i % 9)}");`).join('\n');

async function rig(settings: PipelineSettings, tokenScale = 1) {
  const server = new LoopbackAnthropic({ consecutiveRoles: 'reject', contextWindows: { [MODEL]: 10_000_000 }, tokenScale });
  const { baseURL } = await server.start();
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'sp-servercm-')));
  const ws = join(dir, 'ws');
  mkdirSync(ws, { recursive: true });
  for (let i = 0; i < 4; i++) writeFileSync(join(ws, `f${i}.ts`), `// file ${i}\n${BIG}\n`);
  const session = new SessionLog(newSessionMeta('s1', 'server context'));
  const calibration = new CalibratedCounter(new MemoizedMessageCounter(new CharEstimateTokenizer()));
  const pipeline = new CompactionPipeline(
    {
      session,
      transcripts: new TranscriptStore({ dir: join(dir, '.transcripts') }),
      ctx: { ...DEFAULT_PLAN_CONTEXT, contextWindow: 10_000_000, maxOutputTokens: 1024, tokens: calibration },
      summarizer: async () => {
        throw new Error('a server strategy must not summarize locally');
      },
    },
    settings,
  );
  const events: AgentEvent[] = [];
  const agent = new AgentLoop({
    client: new Anthropic({ apiKey: 'sk-test', baseURL, maxRetries: 0 }),
    model: MODEL,
    maxTokens: 100_000,
    pipeline,
    tools: new WorkspaceTools({ root: ws }),
    approvals: { request: async () => ({ approved: true }) },
    calibration,
    contextWindow: 10_000_000,
    onEvent: (e) => events.push(e),
  });
  const of = <T extends AgentEvent['type']>(type: T) => events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);
  return { server, agent, pipeline, session, calibration, events, of, close: async () => (agent.dispose(), await server.close()) };
}

function settingsFor(
  strategy: string,
  params: Record<string, number>,
  serverContext?: PipelineSettings['autoCompact']['serverContext'],
): PipelineSettings {
  return {
    microCompact: { enabled: false, keepRecent: 3, minChars: 100 },
    // A trigger that always fires: a local strategy would compact before every call; a server one must not.
    autoCompact: {
      enabled: true,
      strategy: strategy as PipelineSettings['autoCompact']['strategy'],
      params,
      trigger: budgetTrigger({ maxTokens: 1 }),
      serverContext,
    },
  };
}

const reads = (n: number) => Array.from({ length: n }, (_, i) => reply.toolUse('read_file', { path: `f${i}.ts` }));

test('server-clear-tool-uses: each request carries the edit and beta flag; what the server cleared is recorded and told; nothing is lost', async () => {
  const params = { triggerTokens: 3_000, keepToolUses: 1, clearAtLeast: 500, clearToolInputs: 0 };
  const r = await rig(settingsFor('server-clear-tool-uses', params, { excludeTools: ['search'] }));
  try {
    r.server.queue.push(...reads(4), reply.text('All four files read.'));
    const result = await r.agent.run('Read f0..f3.');
    assert.equal(result.status, 'completed');
    const requests = r.server.messageRequests;
    assert.equal(requests.length, 5);
    for (const req of requests) {
      assert.match(String(req.headers['anthropic-beta']), new RegExp(CONTEXT_MANAGEMENT_BETA));
      assert.deepEqual(req.body.context_management, {
        edits: [
          {
            type: 'clear_tool_uses_20250919',
            trigger: { type: 'input_tokens', value: 3_000 },
            keep: { type: 'tool_uses', value: 1 },
            clear_at_least: { type: 'input_tokens', value: 500 },
            exclude_tools: ['search'],
          },
        ],
      });
    }
    // Nothing compacted locally (the trigger fires on every call), no summarizer called.
    assert.equal(r.of('compaction-started').length, 0);
    assert.equal(r.session.meta.compactions.length, 0);
    // What the server reported is on each assistant message; later calls cleared the older results.
    const reports = r.session.messages.filter((m) => m.role === 'assistant').map((m) => m.serverContext as ServerContextReport);
    assert.equal(reports.length, 5);
    assert.ok(reports.every((x) => x.strategy === 'server-clear-tool-uses'));
    const last = reports[4];
    assert.equal(last.clearedToolUses, 3, 'four reads, keep one: three cleared on the last call');
    const lastReq = requests[4] as ValidRequest;
    const cm = lastReq.managed!.response!.applied_edits[0];
    assert.equal(last.clearedInputTokens, cm.cleared_input_tokens);
    // The server's emulation in the inspector agrees on what would be cleared right before that call.
    const preview = r.pipeline.preview('server-clear-tool-uses', params);
    assert.ok(preview.notes[0].includes('emulation of the server'));
    assert.equal(preview.truncated.length, 3, 'four reads, keep one: the emulation clears the same three');
    // The notice says it, once per change.
    const notices = r
      .of('notice')
      .map((n) => n.message)
      .filter((m) => m.startsWith('The server cleared'));
    assert.ok(notices.length >= 2 && notices.length <= 3, notices.join(' | '));
    assert.match(notices[notices.length - 1], /^The server cleared 3 old tool results \([\d,]+ tokens\)/);
    // The session keeps every original result, and is a valid request.
    assert.equal((JSON.stringify(r.session.messages).match(/value299/g) ?? []).length, 4);
    assert.deepEqual(requestViolations(toApiMessages(r.session.messages)), []);
  } finally {
    await r.close();
  }
});

test('server-compact: the compaction block round-trips, what precedes it is archived behind a transcript, and the chat hears of it', async () => {
  // tokenScale 20: the system prompt and tools stay under the 50,000-token trigger; two file reads go over it.
  const r = await rig(
    settingsFor(
      'server-compact',
      { triggerTokens: 50_000, pauseAfterCompaction: 0 },
      { excludeTools: [], instructions: 'Keep file names.' },
    ),
    20,
  );
  try {
    r.server.compactionSummaries.push('Summary: the user asked to read f0; it defines value0..value299.');
    r.server.queue.push(...reads(1), reply.text('Read.'), reply.text('Nothing else to do.'));
    const first = await r.agent.run('Read f0.');
    assert.equal(first.status, 'completed');
    const reqs = r.server.messageRequests as ValidRequest[];
    for (const req of reqs) {
      assert.match(String(req.headers['anthropic-beta']), new RegExp(COMPACT_BETA));
      assert.deepEqual(req.body.context_management, {
        edits: [{ type: 'compact_20260112', trigger: { type: 'input_tokens', value: 50_000 }, instructions: 'Keep file names.' }],
      });
    }
    const compactedAt = reqs.findIndex((q) => q.managed?.compaction);
    assert.ok(compactedAt >= 1, 'the server compacted once the reads were over the trigger');
    // The archive: transcript first, then a placeholder opener and the assistant message with the block.
    const finished = r.of('compaction-finished');
    assert.equal(finished.length, 1);
    const record = finished[0].record;
    assert.equal(record.strategy, 'server-compact');
    assert.equal(record.trigger, 'auto');
    const transcript = readFileSync(record.transcriptPath, 'utf8');
    assert.match(transcript, /Read f0\./);
    const msgs = r.session.messages;
    assert.equal(msgs[0].synthetic, 'placeholder');
    assert.equal(msgs[1].role, 'assistant');
    const block = (msgs[1].content as Array<{ type: string; content?: string }>)[0];
    assert.deepEqual(block, {
      type: 'compaction',
      content: 'Summary: the user asked to read f0; it defines value0..value299.',
      encrypted_content: null,
    });
    assert.equal(msgs[1].serverContext?.compaction, 'applied');
    assert.ok(r.of('notice').some((n) => /The server compacted the conversation/.test(n.message)));
    // The chat, as the extension projects these events: the notice and a compaction divider of the server's.
    const chat = new ChatLog(undefined);
    const projector = new ChatProjector(chat, () => r.pipeline.effectiveMessages());
    for (const e of r.events) {
      if (e.type === 'compaction-finished') projector.compacted(e.record);
      else projector.project(e);
    }
    const items = chat.all();
    assert.ok(items.some((i) => i.kind === 'compaction' && i.strategy === 'server-compact' && i.archivedCount === record.archivedCount));
    assert.ok(items.some((i) => i.kind === 'notice' && /The server compacted the conversation/.test(i.message)));

    // Next prompt: the block is sent back verbatim; the server sees only what follows it.
    const second = await r.agent.run('Anything else?');
    assert.equal(second.status, 'completed');
    const last = r.server.messageRequests[r.server.messageRequests.length - 1] as ValidRequest;
    const sentBlocks = (last.body.messages as WireMessage[]).flatMap((m) => (Array.isArray(m.content) ? m.content : []));
    assert.deepEqual(
      sentBlocks.filter((b) => b.type === 'compaction'),
      [block],
    );
    assert.equal(last.managed!.body.messages![0].role, 'assistant', 'the server ignored the opener before the block');
    assert.equal(last.managed!.compaction, undefined, 'under the trigger again: no second compaction');
    assert.deepEqual(requestViolations(toApiMessages(r.session.messages)), []);
  } finally {
    await r.close();
  }
});

test('server-compact: a compaction block with null content is a failed no-op: nothing archived, the user is told', async () => {
  const r = await rig(settingsFor('server-compact', { triggerTokens: 50_000, pauseAfterCompaction: 0 }), 20);
  try {
    r.server.compactionSummaries.push(null, null, null);
    r.server.queue.push(...reads(2), reply.text('Both read.'));
    const result = await r.agent.run('Read f0 and f1.');
    assert.equal(result.status, 'completed');
    assert.ok(
      (r.server.messageRequests as ValidRequest[]).some((q) => q.managed?.compaction),
      'the server tried',
    );
    assert.equal(r.of('compaction-finished').length, 0);
    assert.equal(r.session.meta.compactions.length, 0);
    assert.equal(r.session.messages[0].content, 'Read f0 and f1.');
    assert.ok(!JSON.stringify(r.session.messages).includes('"type":"compaction"'), 'the failed block is not kept');
    const failed = r.session.messages.find((m) => m.serverContext?.compaction === 'failed');
    assert.ok(failed, 'the failure is recorded on the reply');
    assert.ok(
      r.of('notice').some((n) => n.level === 'warning' && /failed \(an empty compaction block\): nothing was compacted/.test(n.message)),
    );
    assert.deepEqual(requestViolations(toApiMessages(r.session.messages)), []);
  } finally {
    await r.close();
  }
});

test('server-compact with pause_after_compaction: the paused block is kept and the agent continues in the same run', async () => {
  const r = await rig(settingsFor('server-compact', { triggerTokens: 50_000, pauseAfterCompaction: 1 }), 20);
  try {
    r.server.queue.push(...reads(1), reply.text('Continued after the pause.'));
    const result = await r.agent.run('Read f0 and f1.');
    assert.equal(result.status, 'completed');
    const reqs = r.server.messageRequests as ValidRequest[];
    assert.equal(reqs[reqs.length - 1].managed?.compaction, undefined);
    assert.ok(
      reqs.some((q) => q.body.context_management && JSON.stringify(q.body.context_management).includes('"pause_after_compaction":true')),
    );
    const msgs = r.session.messages;
    assert.equal(msgs[0].synthetic, 'placeholder');
    assert.deepEqual(
      msgs.slice(1).map((m) => (m.content as Array<{ type: string }>).map((b) => b.type).join('+')),
      ['compaction', 'text'],
    );
    assert.equal(r.of('compaction-finished').length, 1);
    assert.deepEqual(requestViolations(toApiMessages(msgs)), []);
  } finally {
    await r.close();
  }
});

test('what the server did survives a reload: the compaction block and each reply’s report are in the session file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sp-servercm-file-'));
  const store = new SessionFileStore(join(dir, 'sessions'));
  const log = store.create('s');
  const block = { type: 'compaction', content: 'Summary so far.', encrypted_content: null };
  log.append(
    { id: 'ph', role: 'user', content: '[Earlier context compacted]', synthetic: 'placeholder' },
    {
      id: 'a1',
      role: 'assistant',
      content: [block as never, { type: 'text', text: 'Continuing.' }],
      serverContext: { strategy: 'server-compact', compaction: 'applied' },
    },
    { id: 'u1', role: 'user', content: 'Next.' },
    {
      id: 'a2',
      role: 'assistant',
      content: 'Done.',
      serverContext: { strategy: 'server-clear-tool-uses', clearedToolUses: 4, clearedInputTokens: 9_000 },
    },
  );
  const { log: loaded, errors } = new SessionFileStore(join(dir, 'sessions')).load('s');
  assert.deepEqual(errors, []);
  assert.deepEqual(loaded.messages, log.messages);
  assert.deepEqual((loaded.messages[1].content as unknown[])[0], block);
  assert.equal(loaded.messages[3].serverContext?.clearedToolUses, 4);
});
