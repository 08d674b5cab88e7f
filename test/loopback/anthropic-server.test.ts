// Tests for the loopback Anthropic server, driven through the real @anthropic-ai/sdk: responders,
// authentication and the server's options. Replies, validation, token counts and failures have their
// own files (sdk-replies, sdk-validation, sdk-count-tokens, sdk-failures).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic, { APIConnectionError, BadRequestError } from '@anthropic-ai/sdk';
import { LoopbackAnthropic, countTextTokens, lastUserText, reply } from './anthropic-server';
import { rejection } from '../helpers/async';
import { loopbackWithSdk, MODEL } from './sdkTestSupport';

describe('LoopbackAnthropic with the real SDK', () => {
  const sdk = loopbackWithSdk();
  const { server } = sdk;

  test('a responder function scripts replies from the request (summarizer vs agent)', async () => {
    server.responder = (req) =>
      req.body.system === 'Summarize the conversation.'
        ? reply.text(`summary of ${req.body.messages.length} messages (${req.inputTokens} tokens)`)
        : reply.toolUse('read_file', { path: lastUserText(req.body) });
    try {
      server.queue.text('queued replies come first');
      const queued = await sdk.client.messages.create({ model: MODEL, max_tokens: 50, messages: [{ role: 'user', content: 'x' }] });
      assert.deepEqual(queued.content, [{ type: 'text', text: 'queued replies come first' }]);
      const agent = await sdk.client.messages.create({ model: MODEL, max_tokens: 50, messages: [{ role: 'user', content: 'a.ts' }] });
      assert.deepEqual((agent.content[0] as Anthropic.ToolUseBlock).input, { path: 'a.ts' });
      const summary = await sdk.client.messages.create({
        model: MODEL,
        max_tokens: 50,
        system: 'Summarize the conversation.',
        messages: [
          { role: 'user', content: 'one' },
          { role: 'assistant', content: 'two' },
          { role: 'user', content: 'three' },
        ],
      });
      const tokens =
        countTextTokens('Summarize the conversation.') + countTextTokens('one') + countTextTokens('two') + countTextTokens('three');
      assert.deepEqual(summary.content, [{ type: 'text', text: `summary of 3 messages (${tokens} tokens)` }]);
      assert.deepEqual(
        server.requests.map((r) => r.source),
        ['queue', 'responder', 'responder'],
      );
    } finally {
      server.responder = undefined;
    }
  });

  test('authentication: no x-api-key → 401 authentication_error; no anthropic-version → 400', async () => {
    const body = JSON.stringify({ model: MODEL, max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] });
    const noKey = await fetch(`${sdk.baseURL}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body,
    });
    assert.equal(noKey.status, 401);
    const noKeyBody = (await noKey.json()) as { type: string; error: { type: string; message: string } };
    assert.equal(noKeyBody.type, 'error');
    assert.deepEqual(noKeyBody.error, { type: 'authentication_error', message: 'x-api-key header is required' });
    assert.match(noKey.headers.get('request-id') ?? '', /^req_/);

    const noVersion = await fetch(`${sdk.baseURL}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
      body,
    });
    assert.equal(noVersion.status, 400);
    assert.deepEqual(((await noVersion.json()) as { error: unknown }).error, {
      type: 'invalid_request_error',
      message: 'anthropic-version: header is required',
    });
  });
});

describe('LoopbackAnthropic options', () => {
  test('apiKey option: a wrong key is an AuthenticationError "invalid x-api-key"', async () => {
    const server = new LoopbackAnthropic({ apiKey: 'right' });
    const { baseURL } = await server.start();
    try {
      const client = new Anthropic({ apiKey: 'wrong', baseURL, maxRetries: 0 });
      const err = await rejection(client.messages.create({ model: MODEL, max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }));
      assert.ok(err instanceof Anthropic.AuthenticationError);
      assert.equal(err.apiMessage, 'invalid x-api-key');
    } finally {
      await server.close();
    }
  });

  test('tokenScale multiplies reported tokens and the context-window check uses the scaled count', async () => {
    const content = 'the quick brown fox jumps over the lazy dog';
    const longer = `${content} ${content}`;
    const window = countTextTokens(longer); // fits unscaled, not once scaled by 1.5
    const server = new LoopbackAnthropic({ tokenScale: 1.5, contextWindows: { small: window } });
    const { baseURL } = await server.start();
    try {
      const client = new Anthropic({ apiKey: 'test', baseURL, maxRetries: 0 });
      const raw = countTextTokens(content);
      server.queue.text('ok');
      const msg = await client.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content }] });
      assert.equal(msg.usage.input_tokens, Math.round(raw * 1.5));
      assert.equal(msg.usage.output_tokens, Math.round(countTextTokens('ok') * 1.5) || 1);
      assert.equal(
        (await client.messages.countTokens({ model: MODEL, messages: [{ role: 'user', content }] })).input_tokens,
        Math.round(raw * 1.5),
      );
      const scaled = Math.round(window * 1.5);
      const err = await rejection(
        client.messages.create({ model: 'small', max_tokens: 10, messages: [{ role: 'user', content: longer }] }),
      );
      assert.ok(err instanceof BadRequestError);
      assert.equal(err.apiMessage, `prompt is too long: ${scaled} tokens > ${window} maximum`);
    } finally {
      await server.close();
    }
  });

  test("consecutiveRoles: 'reject' reproduces the strict alternation error; whenEmpty: 'echo' echoes", async () => {
    const server = new LoopbackAnthropic({ consecutiveRoles: 'reject', whenEmpty: 'echo' });
    const { baseURL } = await server.start();
    try {
      const client = new Anthropic({ apiKey: 'test', baseURL, maxRetries: 0 });
      const err = await rejection(
        client.messages.create({
          model: MODEL,
          max_tokens: 10,
          messages: [
            { role: 'user', content: 'a' },
            { role: 'user', content: 'b' },
          ],
        }),
      );
      assert.ok(err instanceof BadRequestError);
      assert.equal(
        err.apiMessage,
        'messages: roles must alternate between "user" and "assistant", but found multiple "user" roles in a row',
      );
      const echoed = await client.messages.create({ model: MODEL, max_tokens: 50, messages: [{ role: 'user', content: 'ping me back' }] });
      assert.deepEqual(echoed.content, [{ type: 'text', text: 'echo: ping me back' }]);
      assert.equal(server.lastRequest!.source, 'fallback');
    } finally {
      await server.close();
    }
  });

  test('close() ends a hanging request and is idempotent', async () => {
    const server = new LoopbackAnthropic();
    const { baseURL } = await server.start();
    server.queue.hang();
    const client = new Anthropic({ apiKey: 'test', baseURL, maxRetries: 0 });
    const pending = client.messages.create({ model: MODEL, max_tokens: 5, messages: [{ role: 'user', content: 'x' }] });
    await server.waitForRequests(1);
    await server.close();
    await server.close();
    assert.ok((await rejection(pending)) instanceof APIConnectionError);
  });
});
