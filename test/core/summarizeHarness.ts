// The summarizer's test harness: summarize() → AnthropicLlmClient → real @anthropic-ai/sdk → the loopback
// Messages API, with an injected sleep that records backoff delays; and the inputs the tests summarize.
import assert from 'node:assert/strict';
import { AnthropicLlmClient } from '../../src/agent/loop/anthropicClient';
import { LlmError, SUMMARY_SYSTEM_PROMPT, type SummarizeOptions, type SummaryResult } from '../../src/core/pipeline/summarize';
import type { SummarizerInput } from '../../src/core/pipeline/plan';
import type { Message } from '../../src/core/conversation/conversation';
import { createTokenizer } from '../../src/core/counting/tokenizers';
import { LoopbackAnthropic, type LoopbackOptions, type RecordedRequest } from '../loopback/anthropic-server';
import { assistant, call, results, summary, user } from '../helpers/build';

export const MODEL = 'claude-summarizer';
export const KEY = 'sk-test';
export const tokenizer = createTokenizer('gpt-tokenizer');
export const SYSTEM_TOKENS = tokenizer.countText(SUMMARY_SYSTEM_PROMPT);

export interface Harness {
  server: LoopbackAnthropic;
  client: AnthropicLlmClient;
  /** Delays passed to the injected sleep. */
  delays: number[];
  sleep: NonNullable<SummarizeOptions['sleep']>;
  /** Options for summarize() with the injected sleep and a 200k window. */
  opts(over?: Partial<SummarizeOptions>): SummarizeOptions;
}

export async function withHarness<T>(options: LoopbackOptions & { model?: string }, fn: (h: Harness) => Promise<T>): Promise<T> {
  const { model = MODEL, ...serverOptions } = options;
  const server = new LoopbackAnthropic({ apiKey: KEY, ...serverOptions });
  const { baseURL } = await server.start();
  const client = new AnthropicLlmClient({ apiKey: KEY, baseURL, model });
  const delays: number[] = [];
  const sleep = async (ms: number, signal?: AbortSignal) => {
    delays.push(ms);
    if (signal?.aborted) throw new LlmError('aborted', 'cancelled');
  };
  const h: Harness = {
    server,
    client,
    delays,
    sleep,
    opts: (over = {}) => ({
      client,
      tokenizer,
      contextWindow: server.contextWindowFor(model),
      maxSummaryTokens: 500,
      sleep,
      backoffMs: 100,
      ...over,
    }),
  };
  try {
    return await fn(h);
  } finally {
    await server.close();
  }
}

/** The single user message of a recorded summarizer request. */
export function promptOf(r: RecordedRequest): string {
  const messages = r.body.messages ?? [];
  assert.equal(messages.length, 1, 'the summarizer sends one user message');
  assert.equal(messages[0]!.role, 'user');
  assert.equal(typeof messages[0]!.content, 'string');
  return messages[0]!.content as string;
}

export function assertOk(r: SummaryResult): asserts r is Extract<SummaryResult, { ok: true }> {
  assert.ok(r.ok, `expected success, got ${r.ok ? '' : `${r.error.reason}: ${r.error.message}`}`);
}

export function assertFailed(r: SummaryResult, reason: string): asserts r is Extract<SummaryResult, { ok: false }> {
  assert.equal(r.ok, false, 'expected a failure');
  if (!r.ok) assert.equal(r.error.reason, reason, r.error.message);
}

export const input = (over: Partial<SummarizerInput> = {}): SummarizerInput => ({
  priorSummaries: [],
  toSummarize: [user('u1', 'Please add a --verbose flag to the CLI.'), assistant('a1', 'Added the flag in src/cli.ts.')],
  overlap: [],
  tokens: 0,
  ...over,
});

/** A conversation with a tool call, an error result and an overlap. */
export function richInput(withPrior: boolean): SummarizerInput {
  const errResult: Message = {
    id: 'r2',
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: 't2', content: 'npm ERR! missing script: lint', is_error: true }],
  };
  return {
    priorSummaries: withPrior ? [summary('s0', 'PRIOR-TEXT: the user wants TypeScript strict mode everywhere.')] : [],
    toSummarize: [
      user('u1', 'Rename getUser to fetchUser in src/api.ts. Do not touch tests.'),
      call('c1', ['t1', 'read_file']),
      results('r1', ['t1', 'export function getUser() { return 42 }']),
      call('c2', ['t2', 'run_command']),
      errResult,
      assistant('a1', 'Renamed getUser to fetchUser.'),
    ],
    overlap: [user('u2', 'OVERLAP-USER: now run the build.'), assistant('a2', 'OVERLAP-ASSISTANT: build is green.')],
    tokens: 0,
  };
}
