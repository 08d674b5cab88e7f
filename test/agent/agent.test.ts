// The agent loop end to end: the real @anthropic-ai/sdk streams from the loopback Messages API
// (which validates every request like the real one, rejecting non-alternating roles), tools act on a
// temp workspace, and the session must be a valid request after everything: tool use, approvals,
// cancellation, API errors, max_tokens, compaction.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import {
  LoopbackAnthropic,
  reply,
  type LoopbackOptions,
  type ValidRequest,
  type WireBlock,
  type WireMessage,
} from '../loopback/anthropic-server';
import {
  AgentBusyError,
  AgentLoop,
  AgentStateError,
  defaultSystemPrompt,
  MAX_TOKENS_NOT_EXECUTED,
  type AgentEvent,
  type AgentEventType,
} from '../../src/agent/loop/agent';
import { CANCELLED_BY_USER, WorkspaceTools, type ApprovalDecision, type ApprovalRequest } from '../../src/agent/tools';
import { CalibratedCounter } from '../../src/core/counting/calibration';
import { toApiMessages, type Message } from '../../src/core/conversation/conversation';
import { requestViolations } from '../../src/core/conversation/invariants';
import { CompactionPipeline, type PipelineSettings } from '../../src/core/pipeline/pipeline';
import { DEFAULT_PLAN_CONTEXT } from '../../src/core/pipeline/plan';
import { newSessionMeta, SessionLog } from '../../src/core/session/session';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';
import { TranscriptStore } from '../../src/core/transcripts/transcripts';
import { budgetTrigger, neverTrigger } from '../../src/core/pipeline/triggers';
import { withoutCacheControl } from '../helpers/cacheControl';

const MODEL = 'claude-loopback';

interface RigOptions {
  readOnly?: boolean;
  decide?: (req: ApprovalRequest, signal: AbortSignal) => ApprovalDecision | Promise<ApprovalDecision>;
  settings?: PipelineSettings;
  contextWindow?: number;
  server?: LoopbackOptions;
  maxTokens?: number;
}

interface Rig {
  server: LoopbackAnthropic;
  agent: AgentLoop;
  pipeline: CompactionPipeline;
  session: SessionLog;
  calibration: CalibratedCounter;
  ws: string;
  events: AgentEvent[];
  approvals: ApprovalRequest[];
  on(type: AgentEventType, fn: (e: AgentEvent) => void): void;
  of<T extends AgentEventType>(type: T): Array<Extract<AgentEvent, { type: T }>>;
  /** Messages of the n-th /v1/messages request the server received. */
  sent(n: number): WireMessage[];
  close(): Promise<void>;
}

const quietSettings = (): PipelineSettings => ({
  microCompact: { enabled: false, keepRecent: 3, minChars: 100 },
  autoCompact: { enabled: false, strategy: 'sliding-window', params: { maxEvents: 40 }, trigger: neverTrigger },
});

async function rig(o: RigOptions = {}): Promise<Rig> {
  const contextWindow = o.contextWindow ?? 100_000;
  const server = new LoopbackAnthropic({ consecutiveRoles: 'reject', contextWindows: { [MODEL]: contextWindow }, ...o.server });
  const { baseURL } = await server.start();
  const client = new Anthropic({ apiKey: 'sk-test', baseURL, maxRetries: 0 });
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'sp-agent-')));
  const ws = join(dir, 'ws');
  mkdirSync(join(ws, 'src'), { recursive: true });
  writeFileSync(join(ws, 'src', 'math.ts'), 'export function add(a: number, b: number) {\n  return a - b; // BUG\n}\n');
  writeFileSync(join(ws, 'src', 'main.ts'), "import { add } from './math';\nconsole.log(add(2, 2));\n");
  const session = new SessionLog(newSessionMeta('s1', 'agent test'));
  const calibration = new CalibratedCounter(new MemoizedMessageCounter(new CharEstimateTokenizer()));
  // Assigned once the agent exists; the pipeline's overhead callback reads it later.
  // eslint-disable-next-line prefer-const
  let agentRef: AgentLoop | undefined;
  const pipeline = new CompactionPipeline(
    {
      session,
      transcripts: new TranscriptStore({ dir: join(dir, '.transcripts') }),
      ctx: { ...DEFAULT_PLAN_CONTEXT, contextWindow, maxOutputTokens: 1024, tokens: calibration },
      // As a host wires it: the system prompt and tool definitions count against the window.
      overheadTokens: () => Math.round((agentRef?.rawOverheadTokens() ?? 0) * calibration.factor),
    },
    o.settings ?? quietSettings(),
  );
  const events: AgentEvent[] = [];
  const listeners: Array<[AgentEventType, (e: AgentEvent) => void]> = [];
  const approvals: ApprovalRequest[] = [];
  const agent = new AgentLoop({
    client,
    model: MODEL,
    maxTokens: o.maxTokens ?? 2048,
    pipeline,
    tools: new WorkspaceTools({ root: ws, readOnly: o.readOnly, limits: { killGraceMs: 200 } }),
    approvals: {
      request: async (req, signal) => {
        approvals.push(req);
        return (o.decide ?? (() => ({ approved: true })))(req, signal);
      },
    },
    calibration,
    contextWindow,
    onEvent: (e) => {
      events.push(e);
      for (const [type, fn] of listeners) if (type === e.type) fn(e);
    },
  });
  agentRef = agent;
  return {
    server,
    agent,
    pipeline,
    session,
    calibration,
    ws,
    events,
    approvals,
    on: (type, fn) => listeners.push([type, fn]),
    of: <T extends AgentEventType>(type: T) => events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type),
    sent: (n) => server.messageRequests[n].body.messages ?? [],
    close: async () => {
      agent.dispose();
      await server.close();
    },
  };
}

/** The session as the API would receive it: must have no violations. */
function assertValid(session: SessionLog): void {
  assert.deepEqual(requestViolations(toApiMessages(session.messages)), []);
}

function toolResultsOf(m: WireMessage | Message | undefined): WireBlock[] {
  if (!m || !Array.isArray(m.content)) return [];
  return (m.content as WireBlock[]).filter((b) => b.type === 'tool_result');
}

const last = <T>(xs: readonly T[]): T => xs[xs.length - 1];

async function waitFor(condition: () => boolean, what: string, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting: ${what}`);
    await new Promise((res) => setTimeout(res, 5));
  }
}

describe('tool use', () => {
  test('read_file, then search, then a final answer: each request carries the right tool_result and the session stays valid', async () => {
    const r = await rig();
    try {
      r.server.queue
        .toolUse([{ name: 'read_file', input: { path: 'src/math.ts' }, id: 'toolu_read' }], { text: 'Let me look at the code.' })
        .toolUse([{ name: 'search', input: { query: 'add(' }, id: 'toolu_search' }])
        .text('add() subtracts instead of adding; it is called from src/main.ts.');
      const result = await r.agent.run('Why does add(2, 2) print 0?');
      assert.equal(result.status, 'completed');
      assert.equal(result.steps, 3);
      assert.equal(result.stopReason, 'end_turn');
      assert.equal(r.server.messageRequests.length, 3);
      assert.ok(r.server.requests.every((q) => q.status === 200));

      // Request 2 answers the read with the numbered file.
      const second = r.sent(1);
      assert.equal(second.length, 3);
      const readResult = toolResultsOf(last(second));
      assert.equal(readResult.length, 1);
      assert.equal(readResult[0].tool_use_id, 'toolu_read');
      assert.equal(readResult[0].content, '1\texport function add(a: number, b: number) {\n2\t  return a - b; // BUG\n3\t}');
      assert.equal(readResult[0].is_error, undefined);
      // Request 3 answers the search, after the first exchange unchanged.
      const third = r.sent(2);
      assert.equal(third.length, 5);
      assert.deepEqual(withoutCacheControl(third.slice(0, 3)), withoutCacheControl(second), 'the same blocks (the breakpoint moved on)');
      const searchResult = toolResultsOf(last(third));
      assert.equal(searchResult[0].tool_use_id, 'toolu_search');
      assert.match(String(searchResult[0].content), /^src\/main\.ts:2: console\.log\(add\(2, 2\)\);$/m);

      // Every request carried the system prompt and the tool definitions (cache breakpoints on both).
      const body = r.server.messageRequests[0].body;
      assert.deepEqual(body.system, [{ type: 'text', text: defaultSystemPrompt(), cache_control: { type: 'ephemeral' } }]);
      assert.deepEqual(body.tools?.at(-1)?.cache_control, { type: 'ephemeral' });
      assert.deepEqual(
        body.tools?.map((t) => t.name),
        ['read_file', 'list_files', 'search', 'edit_file', 'write_file', 'run_command', 'compact'],
      );
      assert.equal(body.stream, true);

      // The session: prompt, call, results, call, results, answer — a valid request.
      assert.deepEqual(
        r.session.messages.map((m) => m.role),
        ['user', 'assistant', 'user', 'assistant', 'user', 'assistant'],
      );
      assert.ok(r.session.messages.every((m) => m.id && typeof m.createdAt === 'number'));
      assertValid(r.session);

      // Events: streamed text, tool calls with inputs, results, usage and a closing turn-ended.
      assert.equal(
        r
          .of('text-delta')
          .map((e) => e.text)
          .join(''),
        'Let me look at the code.add() subtracts instead of adding; it is called from src/main.ts.',
      );
      assert.deepEqual(
        r.of('tool-call-started').map((e) => [e.toolUseId, e.name]),
        [
          ['toolu_read', 'read_file'],
          ['toolu_search', 'search'],
        ],
      );
      assert.deepEqual(r.of('tool-call-input')[0].input, { path: 'src/math.ts' });
      assert.deepEqual(
        r.of('tool-result').map((e) => [e.name, e.isError, e.cancelled]),
        [
          ['read_file', false, false],
          ['search', false, false],
        ],
      );
      const usage = r.of('usage');
      assert.equal(usage.length, 3);
      assert.equal(usage[0].inputTokens, (r.server.messageRequests[0] as ValidRequest).inputTokens);
      assert.equal(usage[0].contextWindow, 100_000);
      assert.equal(usage[0].contextTokens, usage[0].inputTokens + usage[0].outputTokens);
      assert.equal(r.calibration.observations, 3, 'every reply calibrated the counter');
      assert.equal(r.events[0].type, 'turn-started');
      const ended = last(r.events);
      assert.equal(ended.type, 'turn-ended');
      assert.deepEqual(ended.type === 'turn-ended' && ended.result, result);
    } finally {
      await r.close();
    }
  });

  test('parallel tool calls are executed in order and answered in ONE user message', async () => {
    const r = await rig();
    try {
      r.server.queue
        .toolUse([
          { name: 'read_file', input: { path: 'src/main.ts' }, id: 'toolu_1' },
          { name: 'read_file', input: { path: 'missing.ts' }, id: 'toolu_2' },
          { name: 'list_files', input: { path: 'src' }, id: 'toolu_3' },
        ])
        .text('Done.');
      const result = await r.agent.run('Look around.');
      assert.equal(result.status, 'completed');
      const results = toolResultsOf(last(r.sent(1)));
      assert.deepEqual(
        results.map((b) => b.tool_use_id),
        ['toolu_1', 'toolu_2', 'toolu_3'],
      );
      assert.equal(results[1].is_error, true);
      assert.match(String(results[1].content), /no such file: missing.ts/);
      assert.equal(results[2].content, 'src/main.ts\nsrc/math.ts');
      assert.deepEqual(
        r.of('tool-running').map((e) => e.toolUseId),
        ['toolu_1', 'toolu_2', 'toolu_3'],
      );
      assertValid(r.session);
    } finally {
      await r.close();
    }
  });

  test('a hostile path from the model comes back as an is_error tool_result, and the loop goes on', async () => {
    const r = await rig();
    try {
      r.server.queue.toolUse('read_file', { path: '../../../../etc/passwd' }).text('I cannot read that.');
      const result = await r.agent.run('Read /etc/passwd');
      assert.equal(result.status, 'completed');
      const [res] = toolResultsOf(last(r.sent(1)));
      assert.equal(res.is_error, true);
      assert.match(String(res.content), /^read_file: path escapes the workspace: \.\.\/\.\.\/\.\.\/\.\.\/etc\/passwd/);
    } finally {
      await r.close();
    }
  });

  test('thinking streams as thinking deltas and is kept with its signature', async () => {
    const r = await rig();
    try {
      r.server.queue.thinking('The sign is wrong.', 'Fix the sign.', { signature: 'sig-123' });
      await r.agent.run('Think first.');
      assert.equal(
        r
          .of('thinking-delta')
          .map((e) => e.thinking)
          .join(''),
        'The sign is wrong.',
      );
      assert.deepEqual(r.session.messages[1].content, [
        { type: 'thinking', thinking: 'The sign is wrong.', signature: 'sig-123' },
        { type: 'text', text: 'Fix the sign.' },
      ]);
    } finally {
      await r.close();
    }
  });

  test('pause_turn continues the same turn; max_tokens stops with a notice and answers cut tool calls', async () => {
    const r = await rig();
    try {
      r.server.queue.text('Part one.', { stopReason: 'pause_turn' }).text('Part two.');
      const paused = await r.agent.run('Long job.');
      assert.equal(paused.status, 'completed');
      assert.equal(paused.steps, 2);
      assert.equal(last(r.sent(1)).role, 'assistant', 'the paused reply is sent back for continuation');

      r.server.queue.toolUse('read_file', { path: 'src/math.ts' }, { stopReason: 'max_tokens', text: 'Reading' });
      const cut = await r.agent.run('Next.');
      assert.equal(cut.status, 'max_tokens');
      const notice = last(r.of('notice'));
      assert.match(notice.message, /cut off at the max_tokens limit \(2048 tokens\)/);
      const results = toolResultsOf(last(r.session.messages));
      assert.equal(results.length, 1);
      assert.equal(results[0].content, MAX_TOKENS_NOT_EXECUTED);
      assert.equal(results[0].is_error, true);
      assertValid(r.session);
      r.server.queue.text('Continuing.');
      assert.equal((await r.agent.run('Continue.')).status, 'completed');
    } finally {
      await r.close();
    }
  });
});

describe('approvals', () => {
  test('edit_file approved: the file changes and the approval request carried the diff', async () => {
    const r = await rig();
    try {
      const edit = { path: 'src/math.ts', old_string: 'return a - b; // BUG', new_string: 'return a + b;' };
      r.server.queue.toolUse([{ name: 'edit_file', input: edit, id: 'toolu_edit' }]).text('Fixed.');
      const result = await r.agent.run('Fix add.');
      assert.equal(result.status, 'completed');
      assert.equal(readFileSync(join(r.ws, 'src', 'math.ts'), 'utf8'), 'export function add(a: number, b: number) {\n  return a + b;\n}\n');
      assert.equal(r.approvals.length, 1);
      const req = r.approvals[0];
      assert.equal(req.toolUseId, 'toolu_edit');
      assert.equal(req.tool, 'edit_file');
      assert.equal(req.diff?.path, 'src/math.ts');
      assert.match(req.diff!.unified, /^--- a\/src\/math\.ts\n\+\+\+ b\/src\/math\.ts\n@@ -1,3 \+1,3 @@\n export function add/);
      // eslint-disable-next-line no-regex-spaces -- a diff line: the sign, then two spaces of indentation
      assert.match(req.diff!.unified, /\n-  return a - b; \/\/ BUG\n\+  return a \+ b;\n/);
      assert.deepEqual(
        r.of('tool-awaiting-approval').map((e) => e.request),
        [req],
      );
      assert.deepEqual(
        r.of('tool-approval-resolved').map((e) => [e.toolUseId, e.approved]),
        [['toolu_edit', true]],
      );
      const [res] = toolResultsOf(last(r.sent(1)));
      assert.deepEqual([res.content, res.is_error], ['Edited src/math.ts: 1 replacement.', undefined]);
    } finally {
      await r.close();
    }
  });

  test('edit_file rejected: the file is unchanged and the model gets an is_error result with the reason', async () => {
    const r = await rig({ decide: () => ({ approved: false, reason: 'fix the test instead' }) });
    try {
      r.server.queue
        .toolUse('edit_file', { path: 'src/math.ts', old_string: 'a - b', new_string: 'a + b' })
        .text('OK, I will look at the test.');
      await r.agent.run('Fix add.');
      assert.match(readFileSync(join(r.ws, 'src', 'math.ts'), 'utf8'), /return a - b; \/\/ BUG/);
      const [res] = toolResultsOf(last(r.sent(1)));
      assert.equal(res.is_error, true);
      assert.equal(res.content, 'The user rejected this change to src/math.ts: fix the test instead The file was not changed.');
      assert.deepEqual(
        r.of('tool-approval-resolved').map((e) => [e.approved, e.reason]),
        [[false, 'fix the test instead']],
      );
      assertValid(r.session);
    } finally {
      await r.close();
    }
  });

  test('write_file creates a new file after approval of a /dev/null diff', async () => {
    const r = await rig();
    try {
      r.server.queue.toolUse('write_file', { path: 'test/add.test.ts', content: "test('add', () => {});\n" }).text('Added a test.');
      await r.agent.run('Add a test.');
      assert.equal(readFileSync(join(r.ws, 'test', 'add.test.ts'), 'utf8'), "test('add', () => {});\n");
      assert.equal(r.approvals[0].diff?.isNewFile, true);
      assert.match(
        r.approvals[0].diff!.unified,
        /^--- \/dev\/null\n\+\+\+ b\/test\/add\.test\.ts\n@@ -0,0 \+1 @@\n\+test\('add', \(\) => \{\}\);\n$/,
      );
    } finally {
      await r.close();
    }
  });

  test('run_command approved: output and exit code reach the model; live output is forwarded', async () => {
    const r = await rig();
    try {
      r.server.queue.toolUse('run_command', { command: 'echo built; echo warn >&2; exit 2' }).text('The build failed with exit code 2.');
      await r.agent.run('Build it.');
      assert.equal(r.approvals[0].command, 'echo built; echo warn >&2; exit 2');
      const [res] = toolResultsOf(last(r.sent(1)));
      assert.equal(res.is_error, true);
      assert.match(String(res.content), /built/);
      assert.match(String(res.content), /warn/);
      assert.match(String(res.content), /\[Exit code 2\]$/);
      assert.match(
        r
          .of('tool-output')
          .map((e) => e.chunk)
          .join(''),
        /built/,
      );
    } finally {
      await r.close();
    }
  });

  test('run_command rejected: nothing runs and the model hears why', async () => {
    const r = await rig({ decide: (req) => ({ approved: req.tool !== 'run_command', reason: 'no network' }) });
    try {
      r.server.queue.toolUse('run_command', { command: 'touch ran.marker' }).text('Understood.');
      await r.agent.run('Deploy.');
      assert.equal(existsSync(join(r.ws, 'ran.marker')), false);
      const [res] = toolResultsOf(last(r.sent(1)));
      assert.equal(res.is_error, true);
      assert.equal(res.content, 'The user rejected running this command: no network');
    } finally {
      await r.close();
    }
  });

  test('read-only mode: only read tools are offered, and edit/write/run called anyway are refused without approval', async () => {
    const r = await rig({ readOnly: true });
    try {
      r.server.queue
        .toolUse([
          { name: 'edit_file', input: { path: 'src/math.ts', old_string: 'a - b', new_string: 'a + b' } },
          { name: 'write_file', input: { path: 'x.txt', content: 'x' } },
          { name: 'run_command', input: { command: 'touch ro.marker' } },
        ])
        .text('I can only read here.');
      await r.agent.run('Fix it.');
      const body = r.server.messageRequests[0].body;
      assert.deepEqual(
        body.tools?.map((t) => t.name),
        ['read_file', 'list_files', 'search', 'compact'],
      );
      assert.match(JSON.stringify(body.system), /read-only mode/);
      const results = toolResultsOf(last(r.sent(1)));
      assert.equal(results.length, 3);
      for (const res of results) {
        assert.equal(res.is_error, true);
        assert.match(String(res.content), /is not available: this workspace is not trusted/);
      }
      assert.equal(r.approvals.length, 0);
      assert.match(readFileSync(join(r.ws, 'src', 'math.ts'), 'utf8'), /a - b/);
      assert.equal(existsSync(join(r.ws, 'x.txt')), false);
      assert.equal(existsSync(join(r.ws, 'ro.marker')), false);
    } finally {
      await r.close();
    }
  });
});

describe('cancellation', () => {
  test('stop() mid-stream keeps the partial text, resolves as cancelled, and the next run works', async () => {
    const r = await rig();
    try {
      r.server.queue.text('The problem is in the add function, which subtracts its arguments instead of adding them.', {
        chunkDelayMs: 15,
        textChunkChars: 6,
      });
      let deltas = 0;
      r.on('text-delta', () => {
        if (++deltas === 3) void r.agent.stop();
      });
      const result = await r.agent.run('Explain.');
      assert.equal(result.status, 'cancelled');
      assert.equal(r.agent.busy, false);
      assert.equal(r.session.messages.length, 2);
      const kept = r.session.messages[1];
      assert.equal(kept.role, 'assistant');
      const text = (kept.content as Array<{ text: string }>)[0].text;
      assert.ok(text.length >= 18 && text.length < 60, JSON.stringify(text));
      assert.ok('The problem is in the add function'.startsWith(text.slice(0, 18)));
      const interrupted = r.of('assistant-interrupted');
      assert.equal(interrupted.length, 1);
      assert.equal(interrupted[0].reason, 'cancelled');
      assert.equal(interrupted[0].kept, kept);
      assertValid(r.session);
      await waitFor(() => r.server.messageRequests[0].aborted, 'the HTTP request was aborted');

      r.server.queue.text('Second answer.');
      const next = await r.agent.run('Go on.');
      assert.equal(next.status, 'completed');
      assert.equal(r.sent(1).length, 3);
      assertValid(r.session);
    } finally {
      await r.close();
    }
  });

  test('stop() on a stalled stream: finished tool calls get "Cancelled by the user.", the unfinished one is dropped', async () => {
    const r = await rig();
    try {
      // Events: message_start, [text: start, ping, delta, stop], [tool A: start, 3 deltas, stop], [tool B: start, …]
      r.server.queue.push(
        reply.message(
          [
            { type: 'text', text: 'Two reads.' },
            { type: 'tool_use', name: 'read_file', input: { path: 'a' }, id: 'toolu_A' },
            { type: 'tool_use', name: 'read_file', input: { path: 'src/main.ts' }, id: 'toolu_B' },
          ],
          { stallAfterEvents: 13, jsonChunkChars: 6 },
        ),
      );
      r.on('tool-call-started', (e) => {
        if (e.type === 'tool-call-started' && e.toolUseId === 'toolu_B') setTimeout(() => void r.agent.stop(), 30);
      });
      const result = await r.agent.run('Read two files.');
      assert.equal(result.status, 'cancelled');
      assert.deepEqual(
        r.of('tool-call-input').map((e) => e.toolUseId),
        ['toolu_A'],
      );
      const [, assistant, results] = r.session.messages;
      assert.deepEqual(assistant.content, [
        { type: 'text', text: 'Two reads.' },
        { type: 'tool_use', id: 'toolu_A', name: 'read_file', input: { path: 'a' } },
      ]);
      assert.deepEqual(results.content, [{ type: 'tool_result', tool_use_id: 'toolu_A', content: CANCELLED_BY_USER, is_error: true }]);
      assertValid(r.session);
      r.server.queue.text('Fine.');
      assert.equal((await r.agent.run('Never mind.')).status, 'completed');
      assert.ok(r.server.requests.every((q, i) => i === 0 || q.status === 200));
    } finally {
      await r.close();
    }
  });

  test('stop() during a pending approval: the approval resolves as rejected, remaining calls are cancelled', async () => {
    let sawSignal: AbortSignal | undefined;
    // A gate that never answers on its own: the agent must not wait for it.
    const r = await rig({
      decide: (_req, signal) => {
        sawSignal = signal;
        return new Promise<ApprovalDecision>(() => {});
      },
    });
    try {
      r.server.queue.toolUse([
        { name: 'edit_file', input: { path: 'src/math.ts', old_string: 'a - b', new_string: 'a + b' }, id: 'toolu_e' },
        { name: 'read_file', input: { path: 'src/main.ts' }, id: 'toolu_r' },
      ]);
      r.on('tool-awaiting-approval', () => setTimeout(() => void r.agent.stop(), 20));
      const result = await r.agent.run('Fix.');
      assert.equal(result.status, 'cancelled');
      assert.equal(sawSignal?.aborted, true, 'the gate was told through its signal');
      assert.match(readFileSync(join(r.ws, 'src', 'math.ts'), 'utf8'), /a - b/);
      assert.deepEqual(
        r.of('tool-approval-resolved').map((e) => [e.approved, e.reason]),
        [[false, CANCELLED_BY_USER]],
      );
      assert.deepEqual(
        r.of('tool-result').map((e) => e.cancelled),
        [true, true],
      );
      const results = toolResultsOf(last(r.session.messages));
      assert.deepEqual(
        results.map((b) => [b.tool_use_id, b.content, b.is_error]),
        [
          ['toolu_e', CANCELLED_BY_USER, true],
          ['toolu_r', CANCELLED_BY_USER, true],
        ],
      );
      assertValid(r.session);
      r.server.queue.text('OK.');
      assert.equal((await r.agent.run('Stop that.')).status, 'completed');
    } finally {
      await r.close();
    }
  });

  test('stop() during a running command kills it promptly', async () => {
    const r = await rig();
    try {
      r.server.queue.toolUse('run_command', { command: 'echo begin; sleep 30' });
      r.on('tool-output', () => void r.agent.stop());
      const started = Date.now();
      const result = await r.agent.run('Run the slow thing.');
      assert.ok(Date.now() - started < 3000, `took ${Date.now() - started} ms`);
      assert.equal(result.status, 'cancelled');
      const [res] = toolResultsOf(last(r.session.messages));
      assert.equal(res.is_error, true);
      assert.match(String(res.content), /^begin\n\[Cancelled by the user\. The command was stopped\.\]$/);
      assert.deepEqual(
        r.of('tool-result').map((e) => [e.isError, e.cancelled]),
        [[true, true]],
      );
      assertValid(r.session);
    } finally {
      await r.close();
    }
  });

  test('one run at a time: a second run or retry while busy is rejected with a clear error', async () => {
    const r = await rig();
    try {
      r.server.queue.text('slow', { delayMs: 200 });
      const first = r.agent.run('One.');
      await assert.rejects(r.agent.run('Two.'), (e: unknown) => e instanceof AgentBusyError && /already working/.test(e.message));
      await assert.rejects(r.agent.retry(), AgentBusyError);
      assert.equal((await first).status, 'completed');
      assert.equal(r.session.messages.filter((m) => m.role === 'user').length, 1, 'the rejected prompt was not appended');
      await assert.rejects(r.agent.run('   '), AgentStateError);
      assert.equal(await r.agent.stop(), undefined, 'stop() when idle is a no-op');
    } finally {
      await r.close();
    }
  });
});

describe('API errors', () => {
  const retryable: Array<[string, (s: LoopbackAnthropic) => void, RegExp, number | undefined]> = [
    ['529 overloaded', (s) => s.queue.overloaded(), /overloaded/i, 529],
    ['500 api_error', (s) => s.queue.apiError('boom'), /API error 500: boom/, 500],
    ['429 rate limit', (s) => s.queue.rateLimited(3), /Rate limited/, 429],
    [
      'an error event mid-stream',
      (s) =>
        s.queue.push(
          reply.text('partial words here', { streamError: { afterEvents: 3, type: 'overloaded_error', message: 'Overloaded' } }),
        ),
      /Overloaded/,
      undefined,
    ],
  ];
  for (const [name, inject, message, status] of retryable) {
    test(`${name}: an error event with retryable true, the session stays valid, and retry() succeeds`, async () => {
      const r = await rig();
      try {
        inject(r.server);
        const result = await r.agent.run('Hello?');
        assert.equal(result.status, 'error');
        assert.equal(result.error?.retryable, true);
        assert.match(result.error!.message, message);
        assert.equal(result.error?.status, status);
        const errors = r.of('error');
        assert.equal(errors.length, 1);
        assert.equal(errors[0].retryable, true);
        assert.deepEqual(
          r.session.messages.map((m) => m.role),
          ['user'],
          'nothing half-done was appended',
        );
        assertValid(r.session);
        if (name === '429 rate limit') assert.equal(result.error?.retryAfterMs, 3000);
        assert.equal(r.agent.canRetry, true);
        r.server.queue.text('Hello!');
        const again = await r.agent.retry();
        assert.equal(again.status, 'completed');
        assert.deepEqual(r.sent(1), r.sent(0), 'retry sends the same history');
        assert.deepEqual(
          r.session.messages.map((m) => m.role),
          ['user', 'assistant'],
        );
        assert.equal(r.agent.canRetry, false);
        await assert.rejects(r.agent.retry(), (e: unknown) => e instanceof AgentStateError && /nothing to retry/.test(e.message));
      } finally {
        await r.close();
      }
    });
  }

  test('400 invalid request: retryable false', async () => {
    const r = await rig();
    try {
      r.server.queue.error(400, 'invalid_request_error', 'max_tokens: 999999 > 64000, which is the maximum allowed');
      const result = await r.agent.run('Hi');
      assert.equal(result.status, 'error');
      assert.equal(result.error?.retryable, false);
      assert.equal(result.error?.status, 400);
      assert.match(r.of('error')[0].message, /API error 400: max_tokens: 999999/);
    } finally {
      await r.close();
    }
  });

  test('prompt too long: not retryable, and the message suggests compacting', async () => {
    const r = await rig({ contextWindow: 600 });
    try {
      const result = await r.agent.run('x '.repeat(800));
      assert.equal(result.status, 'error');
      assert.equal(result.error?.kind, 'prompt_too_long');
      assert.equal(result.error?.retryable, false);
      assert.match(result.error!.message, /prompt is too long: \d+ tokens > 600 maximum\. Compact the conversation, then retry\./);
    } finally {
      await r.close();
    }
  });

  test('an error after tool results: retry() continues from the tool results', async () => {
    const r = await rig();
    try {
      r.server.queue.toolUse('read_file', { path: 'src/main.ts' }).overloaded().text('main.ts calls add(2, 2).');
      const failed = await r.agent.run('What does main do?');
      assert.equal(failed.status, 'error');
      assert.equal(last(r.session.messages).role, 'user');
      assert.equal(toolResultsOf(last(r.session.messages)).length, 1);
      const ok = await r.agent.retry();
      assert.equal(ok.status, 'completed');
      assert.deepEqual(r.sent(2), r.sent(1));
      assert.equal(r.of('turn-started')[1].kind, 'retry');
      assertValid(r.session);
    } finally {
      await r.close();
    }
  });
});

describe('compaction', () => {
  test('the compact tool: the pipeline compacts after the batch, with the focus, and the next request is the compacted history', async () => {
    const settings = quietSettings();
    settings.autoCompact = { enabled: false, strategy: 'sliding-window', params: { maxEvents: 3 }, trigger: neverTrigger };
    const r = await rig({ settings });
    try {
      for (let i = 0; i < 3; i++) {
        r.server.queue.text(`Answer ${i}.`);
        await r.agent.run(`Question ${i}?`);
      }
      r.server.queue.toolUse([
        { name: 'compact', input: { focus: 'keep the add() bug' }, id: 'toolu_c' },
        { name: 'read_file', input: { path: 'src/math.ts' }, id: 'toolu_r' },
      ]);
      r.server.queue.text('Compacted and read.');
      const result = await r.agent.run('Compact, then read math.ts.');
      assert.equal(result.status, 'completed');
      const [compactResult] = toolResultsOf(last(r.sent(4)));
      assert.equal(compactResult.content, 'Compaction requested; it will run after this batch of tool calls.');
      const started = r.of('compaction-started');
      assert.deepEqual(
        started.map((e) => [e.strategy, e.trigger, e.runId]),
        [['sliding-window', 'tool', result.runId]],
      );
      const finished = r.of('compaction-finished');
      assert.equal(finished.length, 1);
      assert.equal(finished[0].record.focus, 'keep the add() bug');
      assert.equal(r.session.meta.compactions[0].trigger, 'tool');
      // Ordering: the compaction ran after both tool results were appended, before the next call.
      const types = r.events.map((e) => e.type);
      assert.ok(types.lastIndexOf('tool-result') < types.indexOf('compaction-started'));
      assert.ok(types.indexOf('compaction-finished') < types.lastIndexOf('request-started'));
      // The request after compaction no longer carries the three earlier turns.
      const before = r.sent(3);
      const after = r.sent(4);
      assert.equal(before.length, 7);
      assert.ok(after.length < before.length, `${after.length} < ${before.length}`);
      assert.match(JSON.stringify(after), /Compact, then read math.ts/);
      assert.equal(JSON.stringify(after).includes('Question 0?'), false);
      assert.ok(r.server.requests.every((q) => q.status === 200));
      assertValid(r.session);
    } finally {
      await r.close();
    }
  });

  test('auto-compaction during one long run (one prompt, many tool calls): compaction events are forwarded and every request stays valid', async () => {
    const settings: PipelineSettings = {
      microCompact: { enabled: true, keepRecent: 1, minChars: 100 },
      autoCompact: { enabled: true, strategy: 'sliding-window', params: { maxEvents: 4 }, trigger: budgetTrigger({ maxTokens: 5_000 }) },
    };
    const r = await rig({ settings, contextWindow: 12_000 });
    try {
      const lines = Array.from({ length: 150 }, (_, i) => `export const value${i} = compute(${i}); // some padding text`);
      writeFileSync(join(r.ws, 'big.ts'), lines.join('\n') + '\n');
      let calls = 0;
      // Explanations accumulate (micro-compaction only replaces old tool results), so the budget trips.
      const note = 'Reading the next part of the file to check every computed value. '.repeat(25);
      r.server.responder = () =>
        ++calls <= 8 ? reply.toolUse('read_file', { path: 'big.ts', start_line: calls }, { text: note }) : reply.text('Read it all.');
      const result = await r.agent.run('Read big.ts eight times.');
      assert.equal(result.status, 'completed');
      assert.equal(result.steps, 9);
      const started = r.of('compaction-started');
      const finished = r.of('compaction-finished');
      assert.ok(started.length >= 1, 'auto-compaction ran');
      assert.equal(started.length, finished.length);
      assert.ok(started.every((e) => e.trigger === 'auto' && e.runId === result.runId));
      assert.equal(r.of('compaction-failed').length, 0);
      assert.ok(
        r.server.requests.every((q) => q.status === 200),
        'every request was valid for the API',
      );
      assert.ok(
        r.server.messageRequests.some((q) => JSON.stringify(q.body.messages).includes('[Previous: used read_file]')),
        'micro-compaction replaced old results in a request',
      );
      assert.ok(r.of('request-started').some((e) => e.truncatedResults > 0));
      // One prompt, so the tail opens with a synthetic message at a tool-exchange boundary.
      assert.ok(r.session.messages[0].synthetic, 'the compacted history opens with a synthetic message');
      assertValid(r.session);
      assert.ok(r.pipeline.currentTokens() < 12_000);
    } finally {
      await r.close();
    }
  });

  test('calibration learns the ratio between the local estimate and reported usage', async () => {
    const r = await rig({ server: { tokenScale: 2 } });
    try {
      r.server.queue.toolUse('read_file', { path: 'src/math.ts' }).text('ok');
      await r.agent.run('Read it.');
      const usage = r.of('usage');
      assert.equal(usage.length, 2);
      assert.ok(usage.every((u) => u.estimatedInputTokens > 0));
      assert.equal(r.calibration.observations, 2);
      // The server counts 2 × o200k: the fit (prefix + factor × raw) now predicts what it reports.
      const last = usage[1]!;
      const predicted = r.calibration.estimate(last.estimatedInputTokens);
      assert.ok(Math.abs(predicted - last.inputTokens) / last.inputTokens < 0.05, `predicted ${predicted}, reported ${last.inputTokens}`);
      assert.ok(Math.abs(last.estimatedInputTokens - last.inputTokens) / last.inputTokens > 0.4, 'raw o200k is far off');
      assert.ok(r.agent.rawOverheadTokens() > 100, 'the system prompt and tool definitions are estimated');
    } finally {
      await r.close();
    }
  });
});
