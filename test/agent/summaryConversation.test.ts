// summaryConversation(): the conversation a summary request reuses. The last request as sent (its
// breakpoints included) followed by the history since, with each session message's place in it; or
// why nothing of the history is cached (no request for it, rewritten since, TTL run out, caching off).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type Anthropic from '@anthropic-ai/sdk';
import { toApiMessages, type ApiMessage, type Message } from '../../src/core/conversation/conversation';
import type { ConversationRequest } from '../../src/core/pipeline/summaryRequest';
import { messageStreamParams } from '../../src/agent/loop/modelRequest';
import { summaryConversation, type SentRequest, type SummaryConversationSource } from '../../src/agent/loop/summaryConversation';
import { assistant, results, call, user } from '../helpers/build';

const TOOLS = [{ name: 'read_file', description: 'Read a file.', input_schema: { type: 'object' as const, properties: {} } }];
const build = (messages: ApiMessage[]): Anthropic.MessageStreamParams =>
  messageStreamParams({ model: 'm', maxTokens: 100, system: 'You are an agent.', tools: TOOLS, messages, caching: '5m' });
/** 10 tokens a message: exact arithmetic. */
const countMessages = (ms: readonly Message[]) => 10 * ms.length;

function source(
  session: Message[],
  sent: SentRequest | undefined,
  over: Partial<SummaryConversationSource> = {},
): SummaryConversationSource {
  return { sent, session, rewriteVersion: 3, effective: session, caching: '5m', now: 100_000, countMessages, overheadTokens: 50, ...over };
}

test('after a sent request: its messages byte for byte, then the history since; places and tokens from the reported input', () => {
  const history = [user('u1', 'Fix the bug.'), call('c1', ['t1', 'read_file']), results('r1', ['t1', 'contents'])];
  const params = build(toApiMessages(history));
  const sent: SentRequest = { params, sessionLength: 3, rewriteVersion: 3, sentAt: 90_000, inputTokens: 1234 };
  const now = [...history, assistant('a1', 'Found it.'), user('u2', 'Go on.')];
  const c = conversation(source(now, sent));
  assert.equal(JSON.stringify(c.messages.slice(0, 3)), JSON.stringify(params.messages), 'the sent messages, breakpoints included');
  assert.deepEqual(c.messages.slice(3), toApiMessages(now.slice(3)), 'the history since, without breakpoints');
  assert.equal(c.system, params.system);
  assert.equal(c.tools, params.tools);
  assert.deepEqual(
    [...c.messageIndex],
    [
      ['u1', 0],
      ['c1', 1],
      ['r1', 2],
      ['a1', 3],
      ['u2', 4],
    ],
  );
  assert.equal(c.tokens, 1234 + 20, 'the reported input of the sent request + the messages since');
});

test('a same-role message after the sent request joins its last turn (one turn, as toApiMessages makes it)', () => {
  const history = [user('u1', 'First prompt.')];
  const params = build(toApiMessages(history));
  const sent: SentRequest = { params, sessionLength: 1, rewriteVersion: 3, sentAt: 90_000 };
  const now = [...history, user('u2', 'Second prompt (the first request was cancelled).'), assistant('a2', 'OK.')];
  const c = conversation(source(now, sent));
  assert.equal(c.messages.length, 2);
  const blocks = c.messages[0].content as Array<{ text: string; cache_control?: unknown }>;
  assert.deepEqual(blocks[0], (params.messages[0].content as unknown[])[0], 'the sent block keeps its breakpoint');
  assert.equal(blocks[1].text, 'Second prompt (the first request was cancelled).');
  assert.deepEqual(
    [...c.messageIndex],
    [
      ['u1', 0],
      ['u2', 0],
      ['a2', 1],
    ],
  );
  assert.equal(c.tokens, 10 + 50 + 20, 'no reported input: the estimate of the sent part');
});

test('nothing of the history cached: the reason instead (no request yet, rewritten since, TTL run out, caching off)', () => {
  const history = [user('u1', 'Hello.'), assistant('a1', 'Hi.'), user('u2', 'Bye.')];
  const sent = (over: Partial<SentRequest> = {}): SentRequest => ({
    params: build(toApiMessages(history.slice(0, 1))),
    sessionLength: 1,
    rewriteVersion: 3,
    sentAt: 100_000 - 60_000,
    ...over,
  });
  const reason = (s: SummaryConversationSource) => {
    const c = summaryConversation(s);
    return 'unusable' in c ? c.unusable : 'usable';
  };
  assert.equal(reason(source(history, sent())), 'usable', 'a minute after a 5-minute write');
  assert.equal(reason(source(history, undefined)), 'no request has been sent for this history yet');
  assert.equal(
    reason(source(history, sent({ rewriteVersion: 2 }))),
    'the history was rewritten (compacted or undone) since the last request',
  );
  assert.equal(
    reason(source(history, sent({ sessionLength: 4 }))),
    'the history was rewritten (compacted or undone) since the last request',
  );
  assert.equal(
    reason(source(history, sent({ sentAt: 100_000 - 300_000 }))),
    'the last request was sent 300 s ago: its cache (TTL 5m) has expired',
  );
  assert.equal(reason(source(history, sent({ sentAt: 100_000 - 300_000 }), { caching: '1h' })), 'usable', 'a 1-hour cache lives on');
  assert.equal(reason(source(history, sent(), { caching: 'off' })), 'prompt caching is off');
});

function conversation(s: SummaryConversationSource): ConversationRequest {
  const c = summaryConversation(s);
  assert.ok(!('unusable' in c), JSON.stringify(c));
  return c;
}
