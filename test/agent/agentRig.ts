// The agent-loop rig the agent.*.test.ts files share: the real @anthropic-ai/sdk streams from the
// loopback Messages API (which validates every request like the real one, rejecting non-alternating
// roles), tools act on a temp workspace with src/math.ts (an add() that subtracts) and src/main.ts,
// and every event the loop emits is recorded.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { LoopbackAnthropic, type LoopbackOptions, type WireBlock, type WireMessage } from '../loopback/anthropic-server';
import { AgentLoop, type AgentEvent, type AgentEventType } from '../../src/agent/loop/agent';
import { WorkspaceTools, type ApprovalDecision, type ApprovalRequest } from '../../src/agent/tools';
import { CalibratedCounter } from '../../src/core/counting/calibration';
import { toApiMessages, type Message } from '../../src/core/conversation/conversation';
import { requestViolations } from '../../src/core/conversation/invariants';
import { CompactionPipeline, type PipelineSettings } from '../../src/core/pipeline/pipeline';
import { DEFAULT_PLAN_CONTEXT } from '../../src/core/pipeline/plan';
import { newSessionMeta, SessionLog } from '../../src/core/session/session';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';
import { TranscriptStore } from '../../src/core/transcripts/transcripts';
import { neverTrigger } from '../../src/core/pipeline/triggers';

const MODEL = 'claude-loopback';

export interface RigOptions {
  readOnly?: boolean;
  decide?: (req: ApprovalRequest, signal: AbortSignal) => ApprovalDecision | Promise<ApprovalDecision>;
  settings?: PipelineSettings;
  contextWindow?: number;
  server?: LoopbackOptions;
  maxTokens?: number;
}

export interface Rig {
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

export const quietSettings = (): PipelineSettings => ({
  microCompact: { enabled: false, keepRecent: 3, minChars: 100 },
  autoCompact: { enabled: false, strategy: 'sliding-window', params: { maxEvents: 40 }, trigger: neverTrigger },
});

export async function rig(o: RigOptions = {}): Promise<Rig> {
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
export function assertValid(session: SessionLog): void {
  assert.deepEqual(requestViolations(toApiMessages(session.messages)), []);
}

export function toolResultsOf(m: WireMessage | Message | undefined): WireBlock[] {
  if (!m || !Array.isArray(m.content)) return [];
  return (m.content as WireBlock[]).filter((b) => b.type === 'tool_result');
}

export const last = <T>(xs: readonly T[]): T => xs[xs.length - 1];

export async function waitFor(condition: () => boolean, what: string, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting: ${what}`);
    await new Promise((res) => setTimeout(res, 5));
  }
}
