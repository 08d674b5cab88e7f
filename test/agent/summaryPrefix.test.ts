// The summary request reuses the conversation's cached prefix (issue 21 §5), through the host
// controller (real @anthropic-ai/sdk) against the loopback server, whose prompt cache applies the API's
// rules (exact prefix up to a breakpoint, 20-block lookback, minimum length). The summary request is
// the agent's previous request as sent (system, tools and messages byte-equal, breakpoints included),
// then the history since, then the summarize instruction as the last user turn; the server reads the
// whole previous prefix back from the cache and writes nothing new.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LoopbackAnthropic, lastUserText, reply, type ValidRequest, type WireBlock } from '../loopback/anthropic-server';
import type { AgentController } from '../../src/agent/service/controller';
import { DEFAULT_HOST_SETTINGS, type HostSettings } from '../../src/settings/hostSettings';
import { textOf, toApiMessages } from '../../src/core/conversation/conversation';
import { CachingTextTokenizer } from '../../src/core/counting/textCountCache';
import { CharEstimateTokenizer } from '../../src/core/counting/tokens';
import type { ConversationRequest } from '../../src/core/pipeline/summaryRequest';
import { SummaryRunner } from '../../src/agent/loop/summaryRunner';
import { assistant, user } from '../helpers/build';
import { loopbackController } from '../helpers/loopbackController';
import { isStandaloneSummaryRequest, isSummaryRequest, summaryInstructionOf } from '../helpers/summaryRequest';

const SUMMARY = 'SUMMARY: the user asked questions about the code; each was answered.';
const LONG = 'a long explanation of the code. '.repeat(60);
const RS = { strategy: 'recursive-summarization', params: { maxEventsToKeep: 2, overlapSize: 1 } } as const;

async function rig(t: TestContext, settings: Partial<HostSettings>) {
  // The API's minimum cacheable prefix for Sonnet-class models (1,024 tokens) applies.
  const server = new LoopbackAnthropic({ consecutiveRoles: 'reject', promptCache: { minTokens: 1_024 } });
  const { baseURL } = await server.start();
  const storage = mkdtempSync(join(tmpdir(), 'sp-sumprefix-store-'));
  const workspace = mkdtempSync(join(tmpdir(), 'sp-sumprefix-ws-'));
  writeFileSync(join(workspace, 'app.ts'), 'export const answer = 41;\n');
  // One responder for every request: a summary request gets the summary, any other an answer naming its question.
  server.responder = (req) => reply.text(isSummaryRequest(req.body) ? SUMMARY : `Answer to ${lastUserText(req.body)}: ${LONG}`);
  const logs: string[] = [];
  const log = { info: (m: string) => logs.push(m), warn: (m: string) => logs.push(`warn: ${m}`), error: () => {} };
  const c: AgentController = loopbackController({
    workspace,
    storage,
    baseURL,
    settings: {
      model: 'claude-sonnet-4-5',
      promptCaching: '5m',
      autoCompact: { ...DEFAULT_HOST_SETTINGS.autoCompact, enabled: false },
      ...settings,
    },
    deps: { log },
  });
  t.after(async () => {
    c.dispose();
    await server.close();
  });
  const summaryIndex = () => server.messageRequests.findIndex((r) => isSummaryRequest(r.body));
  return { server, c, logs, summaryIndex };
}

const served = (r: ValidRequest) => {
  assert.ok(r.cache, 'the request was answered through the prompt cache model');
  return r.cache;
};
const json = (v: unknown) => JSON.stringify(v);

/** The summary request against the request before it: byte-equal system, tools and leading messages; reads all the previous one cached. */
function assertReusesPrevious(t: TestContext, sum: ValidRequest, prev: ValidRequest): void {
  assert.ok(!isStandaloneSummaryRequest(sum.body), 'not the standalone request');
  assert.equal(json(sum.body.system), json(prev.body.system), 'system: byte-equal');
  assert.equal(json(sum.body.tools), json(prev.body.tools), 'tools: byte-equal');
  assert.ok((sum.body.tools ?? []).length > 0, 'the tools stay in the request');
  assert.equal((sum.body as { tool_choice?: unknown }).tool_choice, undefined, 'tool_choice unchanged (the conversation sends none)');
  const n = prev.body.messages.length;
  assert.equal(json(sum.body.messages.slice(0, n)), json(prev.body.messages), 'the previous messages, breakpoints included');
  const before = served(prev);
  const now = served(sum);
  const prevPrefix = before.cacheReadTokens + before.cacheWriteTokens;
  assert.ok(prevPrefix > 0, 'the previous request was cached');
  assert.equal(now.cacheReadTokens, prevPrefix, 'the whole prefix the previous request cached is read back');
  assert.equal(now.cacheWriteTokens, 0, 'nothing new is written: the tail and the instruction are read once');
  t.diagnostic(
    `summary request: cache read ${now.cacheReadTokens}, uncached input ${now.inputTokens}, cache write ${now.cacheWriteTokens}`,
  );
}

test('auto-compaction: the summary request is the previous request + the history since + the instruction; its prefix is a cache read', async (t) => {
  const r = await rig(t, {
    contextWindow: 12_000,
    maxOutputTokens: 1_000,
    autoCompact: { enabled: true, threshold: 0.5, strategy: RS.strategy },
    strategyParams: { [RS.strategy]: RS.params },
  });
  for (let i = 0; i < 24 && r.summaryIndex() < 0; i++) {
    await r.c.send(`Question ${i}`);
  }
  const k = r.summaryIndex();
  assert.ok(k > 1, 'an auto-compaction summarized');
  const sum = r.server.messageRequests[k] as ValidRequest;
  const prev = r.server.messageRequests[k - 1] as ValidRequest;
  assertReusesPrevious(t, sum, prev);

  // Since the previous request: its reply, then the new prompt with the instruction in the same user turn.
  const n = prev.body.messages.length;
  assert.equal(sum.body.messages.length, n + 2);
  assert.equal(sum.body.messages[n].role, 'assistant');
  assert.match(textOf(sum.body.messages[n] as never), /^Answer to Question \d+:/);
  const lastTurn = sum.body.messages[n + 1];
  assert.equal(lastTurn.role, 'user');
  const blocks = lastTurn.content as WireBlock[];
  assert.match(String(blocks[0].text), /^Question \d+$/);
  const instruction = summaryInstructionOf(sum.body);
  assert.ok(instruction, 'the last block of the last user turn is the instruction');
  assert.equal(blocks.length, 2);

  // The instruction names the archived messages by their place and first words; the committed summary is the model's.
  const archived =
    /Summarize the first (\d+) messages of this conversation \(messages 1 to (\d+)\), up to and including message (\d+), the (user|assistant) message that begins "([^"]*)"/.exec(
      instruction,
    );
  assert.ok(archived, instruction.slice(0, 600));
  const count = Number(archived[1]);
  assert.equal(archived[3], String(count));
  assert.ok(
    textOf(sum.body.messages[count - 1] as never)
      .replace(/\s+/g, ' ')
      .startsWith(archived[5].replace(/…$/, '')),
  );
  const tail = sum.body.messages.length - count;
  assert.match(instruction, new RegExp(`The ${tail} messages? after message ${count} .* stays? verbatim after your summary`));
  assert.match(instruction, /1\. User requests and constraints/);
  assert.match(instruction, /Do not call any tool/);
  const head = r.c.session.messages[0];
  assert.equal(head.synthetic, 'summary');
  assert.ok(textOf(head).includes(SUMMARY), textOf(head).slice(0, 300));
  assert.ok(
    r.logs.some((l) => /^Summary request: cached-prefix; input \d+, cache read [1-9]\d*, cache write 0, output \d+/.test(l)),
    r.logs.join('\n'),
  );
});

test('manual compaction when idle: the instruction is a user turn of its own after the last reply, and the prefix is read', async (t) => {
  const r = await rig(t, { contextWindow: 50_000, maxOutputTokens: 1_000, strategyParams: { [RS.strategy]: RS.params } });
  for (let i = 0; i < 10; i++) {
    await r.c.send(`Question ${i}`);
  }
  const outcome = await r.c.compactNow({ strategy: RS.strategy });
  assert.equal(outcome.ok, true, json(outcome));
  const k = r.summaryIndex();
  assert.equal(k, r.server.messageRequests.length - 1);
  const sum = r.server.messageRequests[k] as ValidRequest;
  const prev = r.server.messageRequests[k - 1] as ValidRequest;
  assertReusesPrevious(t, sum, prev);
  const n = prev.body.messages.length;
  assert.equal(sum.body.messages.length, n + 2, 'the last reply, then the instruction turn');
  assert.equal(sum.body.messages[n].role, 'assistant');
  assert.equal(sum.body.messages[n + 1].role, 'user');
  assert.equal((sum.body.messages[n + 1].content as WireBlock[]).length, 1, 'the instruction alone');
  assert.ok(summaryInstructionOf(sum.body));
});

test('a history too large for the window with the instruction and the summary: the standalone request, and the log says why', async (t) => {
  // 8,000-token window, 1,000 for the answer: a conversation of ~7,000 tokens fits the agent's
  // requests but leaves no room for the instruction and the summary's max_tokens.
  const r = await rig(t, { contextWindow: 8_000, maxOutputTokens: 1_000, strategyParams: { [RS.strategy]: RS.params } });
  let tokens = 0;
  for (let i = 0; i < 30 && tokens < 6_300; i++) {
    await r.c.send(`Question ${i}`);
    const last = r.server.messageRequests.at(-1) as ValidRequest;
    tokens = last.inputTokens;
  }
  assert.ok(tokens >= 6_300, `the conversation grew to ${tokens} tokens`);
  const outcome = await r.c.compactNow({ strategy: RS.strategy });
  assert.equal(outcome.ok, true, json(outcome));
  const sum = r.server.messageRequests.at(-1) as ValidRequest;
  assert.ok(isStandaloneSummaryRequest(sum.body), 'the standalone summarizer request');
  assert.equal(sum.body.tools, undefined);
  assert.equal(sum.body.messages.length, 1);
  t.diagnostic(`standalone summary request: cache read ${served(sum).cacheReadTokens}, uncached input ${served(sum).inputTokens}`);
  assert.ok(
    r.logs.some((l) => /^Summary request: standalone \(the conversation with the instruction .* leaves no room for the summary/.test(l)),
    r.logs.join('\n'),
  );
});

test('SummaryRunner: a conversation sent to another model (its cache is per model) or none cached: the standalone request, logged with why', async (t) => {
  const server = new LoopbackAnthropic();
  const { baseURL } = await server.start();
  t.after(() => server.close());
  server.responder = () => reply.text(SUMMARY);
  const logs: string[] = [];
  const runner = new SummaryRunner({
    getApiKey: async () => 'sk-test',
    settings: () => ({ ...DEFAULT_HOST_SETTINGS, model: 'claude-test', baseUrl: baseURL }),
    tokenizer: new CachingTextTokenizer(new CharEstimateTokenizer()),
    log: { info: (m) => logs.push(m), warn: (m) => logs.push(`warn: ${m}`) },
  });
  const history = [user('u1', 'Fix the bug.'), assistant('a1', 'Fixed.'), user('u2', 'Thanks.')];
  const input = { priorSummaries: [], toSummarize: history.slice(0, 2), overlap: [], tokens: 0 };
  const sentTo = (model: string): ConversationRequest => ({
    model,
    system: 'You are an agent.',
    tools: [],
    messages: toApiMessages(history),
    messageIndex: new Map(history.map((m, i) => [m.id, i])),
    tokens: 100,
  });
  const cases: Array<[ConversationRequest | { unusable: string }, string]> = [
    [sentTo('claude-other'), 'the model changed since the last request (claude-other -> claude-test)'],
    [{ unusable: 'no request has been sent for this history yet' }, 'no request has been sent for this history yet'],
  ];
  for (const [conversation, why] of cases) {
    const r = await runner.run(input, undefined, undefined, { summaryConversation: () => conversation });
    assert.ok(r.ok && r.request === 'standalone' && r.standaloneReason === why, json(r));
    assert.ok(isStandaloneSummaryRequest(server.messageRequests.at(-1)!.body));
    assert.ok(logs.at(-1)!.startsWith(`Summary request: standalone (${why}); input `), logs.at(-1));
  }
  // The same conversation sent to the settings' model: the cached-prefix request.
  const r = await runner.run(input, undefined, undefined, { summaryConversation: () => sentTo('claude-test') });
  assert.ok(r.ok && r.request === 'cached-prefix', json(r));
  assert.ok(summaryInstructionOf(server.messageRequests.at(-1)!.body));
});

test('SummaryRunner: splitpoint.summaryModel writes the summary (standalone: the cache is per model) and summaryMaxTokens bounds it', async (t) => {
  const server = new LoopbackAnthropic();
  const { baseURL } = await server.start();
  t.after(() => server.close());
  server.responder = () => reply.text(SUMMARY);
  const logs: string[] = [];
  let summary: HostSettings['summary'] = { model: 'claude-haiku-4-5', maxTokens: 0 };
  const runner = new SummaryRunner({
    getApiKey: async () => 'sk-test',
    settings: () => ({ ...DEFAULT_HOST_SETTINGS, model: 'claude-test', baseUrl: baseURL, summary }),
    tokenizer: new CachingTextTokenizer(new CharEstimateTokenizer()),
    log: { info: (m) => logs.push(m), warn: (m) => logs.push(`warn: ${m}`) },
  });
  const history = [user('u1', 'Fix the bug in `src/app.ts`.'), assistant('a1', 'Fixed `src/app.ts`.'), user('u2', 'Thanks.')];
  const input = { priorSummaries: [], toSummarize: history.slice(0, 2), overlap: [], tokens: 0 };
  const conversation: ConversationRequest = {
    model: 'claude-test',
    system: 'You are an agent.',
    tools: [],
    messages: toApiMessages(history),
    messageIndex: new Map(history.map((m, i) => [m.id, i])),
    tokens: 100,
  };
  const body = () => server.messageRequests.at(-1)!.body as { model: string; max_tokens: number };
  // Another model: the standalone request to it, the reason naming the setting; a small archive gets the bound's floor.
  let r = await runner.run(input, undefined, undefined, { summaryConversation: () => conversation });
  assert.ok(r.ok && r.request === 'standalone', json(r));
  assert.equal(r.standaloneReason, "the summary model claude-haiku-4-5 (splitpoint.summaryModel) cannot read claude-test's prompt cache");
  assert.equal(body().model, 'claude-haiku-4-5');
  assert.equal(body().max_tokens, 1_024, 'sized by the probes: two messages ask for less than the floor');
  // A fixed bound; and the session's own model named again: the cached-prefix request to it.
  summary = { model: 'claude-test', maxTokens: 777 };
  r = await runner.run(input, undefined, undefined, { summaryConversation: () => conversation });
  assert.ok(r.ok && r.request === 'cached-prefix', json(r));
  assert.equal(body().model, 'claude-test');
  assert.equal(body().max_tokens, 777);
});
