// summarize() with the conversation's request (issue 21 §5): the summary request is that request with
// the summarize instruction appended as the last user turn, through AnthropicLlmClient and the real
// @anthropic-ai/sdk to the loopback server (whose prompt cache applies the API's rules); and the
// fallbacks to the standalone request: no room in the window, refused as too long, answered without
// text, archived messages that cannot be named in the conversation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SUMMARY_SYSTEM_PROMPT, summarize, type LlmClient, type LlmRequest } from '../../src/core/pipeline/summarize';
import { SUMMARY_REQUEST_HEADING, type ConversationRequest } from '../../src/core/pipeline/summaryRequest';
import { toApiMessages, type ApiMessage, type Message } from '../../src/core/conversation/conversation';
import type { SummarizerInput } from '../../src/core/pipeline/plan';
import { messageStreamParams } from '../../src/agent/loop/modelRequest';
import { summaryConversation } from '../../src/agent/loop/summaryConversation';
import type { ToolDefinition } from '../../src/agent/tools';
import type { ValidRequest, WireBlock } from '../loopback/anthropic-server';
import { assistant, summary, user } from '../helpers/build';
import { MODEL, tokenizer, withHarness, assertOk } from './summarizeHarness';

const SYSTEM = `You are a coding agent. ${'Follow the house rules. '.repeat(30)}`;
const TOOLS: ToolDefinition[] = [
  { name: 'read_file', description: 'Read a file.', input_schema: { type: 'object', properties: { path: { type: 'string' } } } },
  { name: 'search', description: 'Search the workspace.', input_schema: { type: 'object', properties: { q: { type: 'string' } } } },
];
const long = (id: string, words = 80) => `${id}: ${'details of the work '.repeat(words)}`;

/** The conversation as the agent sent it (its breakpoints placed), through the agent's own builders. */
function conversationOf(messages: Message[], tools: ToolDefinition[] = TOOLS): ConversationRequest {
  const params = messageStreamParams({
    model: MODEL,
    maxTokens: 1000,
    system: SYSTEM,
    tools,
    messages: toApiMessages(messages),
    caching: '5m',
  });
  const c = summaryConversation({
    sent: { params, sessionLength: messages.length, rewriteVersion: 0, sentAt: 0 },
    session: messages,
    rewriteVersion: 0,
    effective: messages,
    caching: '5m',
    now: 1_000,
    countMessages: (ms) => tokenizer.countText(JSON.stringify(ms)),
    overheadTokens: tokenizer.countText(SYSTEM) + tokenizer.countText(JSON.stringify(tools)),
  });
  assert.ok(!('unusable' in c), JSON.stringify(c));
  return c;
}

const HISTORY = (): Message[] => [
  user('u1', long('Rename getUser to fetchUser in src/api.ts')),
  assistant('a1', long('Renamed it in src/api.ts')),
  user('u2', long('Now update the callers')),
  assistant('a2', long('Updated three callers')),
  user('u3', 'Run the tests.'),
];
const inputOf = (messages: Message[], archived: number, prior = 0): SummarizerInput => ({
  priorSummaries: messages.slice(0, prior),
  toSummarize: messages.slice(prior, archived),
  overlap: [],
  tokens: 0,
});

/** A client that records each request and answers from `answers` in turn. */
function recording(answers: Array<Partial<Awaited<ReturnType<LlmClient['complete']>>>> = [{ text: 'S' }]) {
  const requests: LlmRequest[] = [];
  const client: LlmClient = {
    complete: (r) => {
      requests.push(r);
      return Promise.resolve({ text: '', ...answers[Math.min(requests.length - 1, answers.length - 1)] });
    },
  };
  return { client, requests };
}

const instructionOf = (messages: readonly ApiMessage[]): string => {
  const last = messages[messages.length - 1];
  const blocks = last.content as Array<{ type: string; text?: string }>;
  return String(blocks[blocks.length - 1].text);
};

test('the cached-prefix request: the conversation as given, the instruction last; its prefix is read from the cache, usage reported', async () => {
  await withHarness({ promptCache: { minTokens: 100 } }, async (h) => {
    const history = HISTORY();
    const conversation = conversationOf(history);
    // The conversation's own request first, as the agent would have sent it: it writes the cache.
    const params = messageStreamParams({
      model: MODEL,
      maxTokens: 50,
      system: SYSTEM,
      tools: TOOLS,
      messages: conversation.messages,
      caching: '5m',
    });
    h.server.queue.text('Running them.').text('THE SUMMARY');
    const warm = await h.client.complete({
      system: conversation.system,
      tools: conversation.tools,
      messages: [...conversation.messages],
      maxTokens: 50,
    });
    const written = warm.cacheCreationInputTokens ?? 0;
    assert.ok(written > 0);
    assert.deepEqual(h.server.messageRequests[0].body.messages, params.messages, 'the conversation as the agent sends it');

    const r = await summarize(inputOf(history, 4), h.opts({ conversation }));
    assertOk(r);
    assert.equal(r.summary, 'THE SUMMARY');
    assert.equal(r.request, 'cached-prefix');
    assert.equal(r.standaloneReason, undefined);
    const sent = h.server.messageRequests[1] as ValidRequest;
    assert.deepEqual(sent.body.system, params.system, 'system as the conversation sends it (with its breakpoint)');
    assert.deepEqual(sent.body.tools, params.tools, 'tools as the conversation sends them');
    assert.equal((sent.body as { tool_choice?: unknown }).tool_choice, undefined);
    assert.deepEqual(sent.body.messages.slice(0, 4), params.messages.slice(0, 4));
    // The last user turn is the conversation's (u3, its breakpoint kept) with the instruction after it.
    const last = sent.body.messages[4].content as WireBlock[];
    assert.deepEqual(last.slice(0, 1), (params.messages[4].content as WireBlock[]).slice(0, 1));
    assert.equal(last.length, 2);
    assert.ok(String(last[1].text).startsWith(SUMMARY_REQUEST_HEADING));
    assert.equal(r.usage?.cacheReadInputTokens, written, 'the prefix the conversation wrote is read back');
    assert.equal(r.usage?.cacheCreationInputTokens, 0);
    assert.equal(r.usage!.inputTokens + r.usage!.cacheReadInputTokens, sent.inputTokens, 'the uncached rest is the instruction');
    assert.ok(r.usage!.outputTokens > 0);
    assert.equal(r.promptTokens, conversation.tokens + tokenizer.countText(String(last[1].text)));
  });
});

test('the instruction names the archived messages by place and first words, the prior summary, the pinned and the kept tail', async () => {
  const history: Message[] = [
    summary('s0', 'PRIOR: the user wants strict mode.'),
    assistant('a1', 'Enabled strict mode in tsconfig.json.'),
    user('p2', 'PINNED: never touch the tests.'),
    assistant('a2', 'Understood.'),
    user('u3', 'Now fix the type errors in src/api.ts and src/db.ts, starting with the ones the compiler reports first.'),
    assistant('a3', 'Fixed 12 type errors.'),
    user('u4', 'Commit it.'),
    assistant('a4', 'Committed.'),
  ];
  const { client, requests } = recording();
  const input: SummarizerInput = {
    priorSummaries: [history[0]],
    toSummarize: [history[1], history[3], history[4]],
    overlap: [],
    tokens: 0,
  };
  assertOk(
    await summarize(input, {
      client,
      tokenizer,
      contextWindow: 200_000,
      maxSummaryTokens: 500,
      focus: ' the API ',
      conversation: conversationOf(history),
    }),
  );
  const text = instructionOf(requests[0].messages);
  assert.ok(text.startsWith(`${SUMMARY_REQUEST_HEADING}\n${SUMMARY_SYSTEM_PROMPT}\n`));
  // The quote: the message's first 80 characters, cut with an ellipsis.
  const u3 = String(history[4].content);
  assert.ok(u3.length > 80);
  const range = 'Summarize the first 5 messages of this conversation (messages 1 to 5), up to and including message 5';
  assert.ok(text.includes(`${range}, the user message that begins "${u3.slice(0, 80)}…".`), text);
  assert.match(text, /Message 1 is the summary of an earlier compaction: build on it/);
  assert.match(text, /Message 3 is kept verbatim \(pinned\): do not summarize it\./);
  assert.match(text, /The 3 messages after message 5 \(from the assistant message that begins "Fixed 12 type errors\."\) stay verbatim/);
  assert.match(text, /Summarize those messages for continuity\. Use these sections/);
  assert.ok(text.endsWith('Do not call any tool: answer with the summary text only.\n\nFocus: the API'));
  // The conversation ends with an assistant reply: the instruction is a user turn of its own.
  assert.equal(requests[0].messages.length, history.length + 1);
  assert.deepEqual(requests[0].messages[history.length].content, [{ type: 'text', text }]);
});

test('no room in the window for the conversation, the instruction and the summary: the standalone request, and why', async () => {
  await withHarness({}, async (h) => {
    h.server.queue.text('S');
    const history = HISTORY();
    const conversation = { ...conversationOf(history), tokens: 1_600 };
    const r = await summarize(inputOf(history, 4), h.opts({ conversation, contextWindow: 2_000, maxSummaryTokens: 300 }));
    assertOk(r);
    assert.equal(r.request, 'standalone');
    assert.match(
      r.standaloneReason ?? '',
      /the conversation with the instruction \(~\d+ tokens\) leaves no room for the summary in the 2000-token window/,
    );
    const sent = h.server.messageRequests[0] as ValidRequest;
    assert.equal(sent.body.system, SUMMARY_SYSTEM_PROMPT);
    assert.equal(sent.body.tools, undefined);
    assert.equal(h.server.messageRequests.length, 1, 'the cached-prefix request was never sent');
  });
});

test('refused as too long (the estimate was low): the standalone request follows, trimmed to fit', async () => {
  const bigTools: ToolDefinition[] = [{ ...TOOLS[0], description: 'Read a file. '.repeat(900) }];
  await withHarness({ contextWindows: { [MODEL]: 3_000 } }, async (h) => {
    h.server.queue.text('S');
    const history = HISTORY();
    const conversation = { ...conversationOf(history, bigTools), tokens: 100 };
    const r = await summarize(inputOf(history, 4), h.opts({ conversation, contextWindow: 3_000, maxSummaryTokens: 300 }));
    assertOk(r);
    assert.equal(r.request, 'standalone');
    assert.equal(r.attempts, 2);
    assert.match(r.standaloneReason ?? '', /the API refused the cached-prefix request: prompt is too long/);
    assert.equal(h.server.messageRequests.length, 2);
    assert.ok(h.server.messageRequests[0].body.tools, 'the first request was the cached-prefix one');
    assert.equal(h.server.messageRequests[1].body.system, SUMMARY_SYSTEM_PROMPT);
  });
});

test('answered without text (a tool call): the standalone request follows; usage sums both answered calls', async () => {
  await withHarness({}, async (h) => {
    h.server.queue.toolUse('read_file', { path: 'src/api.ts' }).text('THE SUMMARY');
    const history = HISTORY();
    const r = await summarize(inputOf(history, 4), h.opts({ conversation: conversationOf(history) }));
    assertOk(r);
    assert.equal(r.summary, 'THE SUMMARY');
    assert.equal(r.request, 'standalone');
    assert.equal(r.attempts, 2);
    assert.match(r.standaloneReason ?? '', /answered the cached-prefix request without text \(stop reason tool_use\)/);
    const [first, second] = h.server.messageRequests as ValidRequest[];
    const u = r.usage!;
    assert.equal(u.inputTokens + u.cacheReadInputTokens + u.cacheCreationInputTokens, first.inputTokens + second.inputTokens);
  });
});

test('a tool call after some text: the text is a preamble, not a summary; the standalone request follows', async () => {
  await withHarness({}, async (h) => {
    h.server.queue.toolUse('read_file', { path: 'src/api.ts' }, { text: 'Let me check the file first.' }).text('THE SUMMARY');
    const history = HISTORY();
    const r = await summarize(inputOf(history, 4), h.opts({ conversation: conversationOf(history) }));
    assertOk(r);
    assert.equal(r.summary, 'THE SUMMARY');
    assert.equal(r.request, 'standalone');
    assert.equal(r.standaloneReason, 'the model answered the cached-prefix request with a tool call');
  });
});

test('archived messages that cannot be named in the conversation: the standalone request', async () => {
  const history = HISTORY();
  // Not in the conversation at all.
  let rec = recording();
  let r = await summarize(
    { ...inputOf(history, 4), toSummarize: [user('gone', 'x'), ...history.slice(0, 4)] },
    { client: rec.client, tokenizer, contextWindow: 200_000, maxSummaryTokens: 500, conversation: conversationOf(history) },
  );
  assertOk(r);
  assert.equal(r.request, 'standalone');
  assert.equal(r.standaloneReason, 'archived message gone is not in the conversation as sent');
  assert.equal(rec.requests[0].system, SUMMARY_SYSTEM_PROMPT);
  // An archived and a kept message in one API turn (consecutive user messages merge).
  const merged = [user('u1', 'First.'), user('u2', 'Second, kept.'), assistant('a2', 'Done.')];
  rec = recording();
  r = await summarize(inputOf(merged, 1), {
    client: rec.client,
    tokenizer,
    contextWindow: 200_000,
    maxSummaryTokens: 500,
    conversation: conversationOf(merged),
  });
  assertOk(r);
  assert.equal(r.request, 'standalone');
  assert.equal(r.standaloneReason, 'message u2 is kept but shares a turn with archived ones');
});
