/**
 * LoopbackAnthropic: a scriptable stand-in for the Anthropic Messages API on 127.0.0.1.
 *
 * There is no network in tests, so the agent, the summarizer and the end-to-end tests talk to this
 * server through the real `@anthropic-ai/sdk` (`new Anthropic({ apiKey, baseURL })`). It speaks the
 * real wire format, so the SDK's own parsing, stream accumulation, retry and error-class logic run
 * unmodified.
 *
 * Endpoints (a module each; this file records every request, checks auth and the body, and dispatches)
 * - `POST /v1/messages` (messagesEndpoint.ts): non-streaming (JSON `Message`, messageReply.ts) and
 *   streaming (`stream: true` → SSE, sseStream.ts: `message_start`, then per content block
 *   `content_block_start` / `content_block_delta`… / `content_block_stop`, one `ping` after the first
 *   `content_block_start`, then `message_delta` (stop_reason + usage) and `message_stop`).
 * - `POST /v1/messages/count_tokens` (countTokensEndpoint.ts): `{ "input_tokens": N }`. Never consumes
 *   `queue`'s replies and does not enforce the context window (it exists to measure prompts, including
 *   oversized ones). Its failures are scripted in `countQueue` (errors, hangs and drops only; a valid
 *   request takes the next one, else it is counted).
 * - `GET /v1/models`, `GET /v1/models/{id}` (models.ts).
 * - Anything else: 404 `not_found_error`.
 * The prompt cache is promptCache.ts, server-side context management contextManagement.ts, the scripted
 * replies replies.ts, the token count tokens.ts, the body checks validation.ts, the wire types wire.ts.
 *
 * Order of checks for each request (every request is recorded first, whatever happens next):
 *  1. auth: the key is `x-api-key`, or else the token of `Authorization: Bearer <key>` (which is
 *     how `@anthropic-ai/sdk` 1.x sends `apiKey`). None → 401 `authentication_error` "x-api-key
 *     header is required"; with `options.apiKey` set, a different key → 401 "invalid x-api-key".
 *  2. no `anthropic-version` header → 400 `invalid_request_error` "anthropic-version: header is
 *     required" (the real API answers 400 here, not 401).
 *  3. body validation (see `validateMessagesBody`) → 400 `invalid_request_error`; then server-side
 *     context management (`context_management`, compaction blocks: see contextManagement.ts) → 400 when
 *     malformed, else the request is counted as the model sees it (cleared tool results; nothing before
 *     the last compaction block) and a compaction (summary from `compactionSummaries`) opens the reply.
 *  4. prompt size: input tokens > the model's context window → 400 "prompt is too long: N tokens >
 *     M maximum".
 *  5. a probe request of "Check this compaction" (probeAnswers.ts: the last user turn is core's probe
 *     questions prompt) is answered from the request's own text, the queue untouched (`probes: 'script'`
 *     turns that off);
 *  6. the script: the next queued reply, else `options.responder(request)`, else the fallback
 *     (`whenEmpty: 'error'` (default) → 500 `api_error` with `x-should-retry: false`, so the SDK
 *     fails at once with a message naming the request; `whenEmpty: 'echo'` → a text reply
 *     "echo: <last user text>"). Invalid requests never consume a queued reply.
 *
 * Consecutive same-role messages: the Messages API documents that "Consecutive `user` or
 * `assistant` turns in your request will be combined into a single turn" (the `messages` parameter
 * docs, repeated in the SDK's `MessageCreateParamsBase.messages` doc comment). So by default
 * (`consecutiveRoles: 'merge'`) runs of same-role messages are merged into one turn before the
 * tool_use/tool_result pairing is checked. `consecutiveRoles: 'reject'` instead reproduces the older
 * 400 'messages: roles must alternate between "user" and "assistant", but found multiple "user"
 * roles in a row'. Messages with role `system` (allowed by SDK 1.x's `SystemMessageParam`) are
 * counted but are transparent to the role checks. 'messages: first message must use the "user"
 * role' is on by default (`requireUserFirst`); note anthropic-sdk-typescript#622 reports the
 * first-party API accepting an assistant-first conversation since late 2024 (Bedrock still rejects
 * it), so turn it off to model that.
 *
 * Token counting rule (`countRequestTokens`), o200k_base from gpt-tokenizer, special-token text
 * counted as ordinary text:
 *   input_tokens = round(tokenScale × (raw + perRequest + perMessage × messageCount))
 *   raw = Σ tokens(system text: the string, or each text block's text)
 *       + Σ over tools: tokens(name) + tokens(description) + tokens(JSON.stringify(input_schema))
 *         (a tool without input_schema, e.g. a server tool: tokens(JSON.stringify(tool)))
 *       + Σ over message content: string content → tokens(content); blocks:
 *           text → tokens(text); thinking → tokens(thinking); redacted_thinking → tokens(data);
 *           tool_use → tokens(name) + tokens(JSON.stringify(input));
 *           tool_result → tokens(content) for string content, or the nested blocks by these rules;
 *           image → 1600; anything else → tokens(JSON.stringify(block)).
 *   perRequest/perMessage default to 0 (`tokenOverhead`), tokenScale defaults to 1.
 * Output tokens of a reply: tokens(text) + tokens(thinking) + tokens(name) +
 * tokens(JSON.stringify(input)) over its blocks, times tokenScale, rounded, at least 1 (the real API
 * reports non-zero output_tokens even for an empty reply). If that exceeds the request's
 * `max_tokens`, the reply is cut: text/thinking are truncated at the token boundary, tool_use
 * blocks that do not fit whole are dropped, and stop_reason becomes `max_tokens`.
 *
 * Usage:
 * ```ts
 * const server = new LoopbackAnthropic({ contextWindows: { 'tiny-model': 50 } });
 * const { baseURL } = await server.start();
 * const client = new Anthropic({ apiKey: 'test', baseURL, maxRetries: 0 });
 * server.queue.toolUse('read_file', { path: 'a.ts' }, { text: 'Reading it.' }).text('Done.');
 * const msg = await client.messages.stream({ model: 'claude-test', max_tokens: 1024, messages }).finalMessage();
 * server.requests[0].body.messages; // what the SDK sent
 * await server.close();
 * ```
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { minCacheableTokens } from '../../src/core/cost/cost';
import { manageContext } from './contextManagement';
import { answerCountTokens } from './countTokensEndpoint';
import { errorBody, failExchange, headerValue, readBody, sendJson, trackExchange, type Exchange } from './exchange';
import { newRequestId } from './ids';
import { answerMessages, type MessagesServer } from './messagesEndpoint';
import { answerModels, DEFAULT_LOOPBACK_MODELS } from './models';
import type { LoopbackOptions } from './options';
import { cacheLayout, ServerPromptCache, type CacheLayout } from './promptCache';
import { ReplyQueue, type ScriptBlock } from './replies';
import { countBlockRaw, countRequestTokens, countTextTokens, countToolRaw, outputCostRaw } from './tokens';
import { validateMessagesBody } from './validation';
import type { MessagesRequestBody, RecordedRequest } from './wire';

// The public API, from the modules that hold it (tests import everything from this file).
export type * from './wire';
export * from './replies';
export type { LoopbackOptions, Responder } from './options';
export { countBlockRaw, countRawRequestTokens, countRequestTokens, countTextTokens, countToolRaw, lastUserText } from './tokens';
export { validateMessagesBody, type ValidationOptions } from './validation';
export { newMessageId, newRequestId, newToolUseId } from './ids';

export class LoopbackAnthropic {
  readonly queue = new ReplyQueue();
  /** Scripted failures of count_tokens (error, hang, drop), in order; when empty, requests are counted. */
  readonly countQueue = new ReplyQueue();
  /** Consulted when the queue is empty; may be replaced at any time. */
  responder: LoopbackOptions['responder'];
  /** Probe requests: answered from their own text ('answer', the default; see probeAnswers.ts) or scripted. May be changed at any time. */
  probes: 'answer' | 'script';
  /** Summaries for the next server-side compactions, in order (null: a failed compaction); then a default one. */
  readonly compactionSummaries: Array<string | null> = [];

  private readonly options: LoopbackOptions;
  private readonly recorded: RecordedRequest[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly exchanges = new Set<Exchange>();
  private readonly waiters: Array<{ count: number; resolve: () => void }> = [];
  private server: Server | undefined;
  private url: string | undefined;
  private readonly promptCache: ServerPromptCache;

  constructor(options: LoopbackOptions = {}) {
    this.options = options;
    this.responder = options.responder;
    this.probes = options.probes ?? 'answer';
    this.promptCache = new ServerPromptCache(
      (model) => this.minCacheableTokensFor(model),
      () => this.options.promptCache?.now?.() ?? Date.now(),
    );
  }

  /** Listen on 127.0.0.1; resolves with the base URL to hand to `new Anthropic({ baseURL })`. */
  async start(): Promise<{ baseURL: string; port: number }> {
    if (this.server) throw new Error('LoopbackAnthropic already started');
    const server = createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        // A bug in the script or this server: answer 500 if we still can, never crash the test run.
        if (!res.headersSent && !res.destroyed) {
          sendJson(res, 500, errorBody('api_error', `LoopbackAnthropic internal error: ${String(err)}`, newRequestId()), {});
        } else {
          res.destroy();
        }
      });
    });
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port ?? 0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    const address = server.address();
    if (!address || typeof address === 'string') throw new Error('LoopbackAnthropic: no TCP address');
    this.url = `http://127.0.0.1:${address.port}`;
    return { baseURL: this.url, port: address.port };
  }

  /** Stop listening, end hanging/stalled responses and destroy every connection. Idempotent. */
  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    for (const ex of this.exchanges) ex.res.destroy();
    for (const socket of this.sockets) socket.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The base URL (after `start`). */
  get baseURL(): string {
    if (!this.url) throw new Error('LoopbackAnthropic not started');
    return this.url;
  }

  /** Every request received, in arrival order. */
  get requests(): readonly RecordedRequest[] {
    return this.recorded;
  }

  /** Requests to `POST /v1/messages` only. */
  get messageRequests(): readonly RecordedRequest[] {
    return this.recorded.filter((r) => r.path === '/v1/messages');
  }

  get lastRequest(): RecordedRequest | undefined {
    return this.recorded[this.recorded.length - 1];
  }

  /** Resolves once at least `count` requests (any path) have been received. */
  waitForRequests(count: number, timeoutMs = 5000): Promise<void> {
    if (this.recorded.length >= count) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(new Error(`LoopbackAnthropic: ${this.recorded.length} of ${count} requests after ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter = {
        count,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      this.waiters.push(waiter);
    });
  }

  /** Forget recorded requests and queued replies. */
  reset(): void {
    this.recorded.length = 0;
    this.queue.clear();
    this.countQueue.clear();
  }

  /** Input tokens for a body, as this server counts them (tokenScale and overhead applied). */
  countTokens(body: MessagesRequestBody): number {
    return countRequestTokens(body, { tokenScale: this.options.tokenScale, tokenOverhead: this.options.tokenOverhead });
  }

  /** Output tokens this server reports for a reply's blocks (tokenScale applied, at least 1). */
  countOutputTokens(blocks: readonly ScriptBlock[]): number {
    const raw = blocks.reduce((n, b) => n + outputCostRaw(b), 0);
    return Math.max(1, Math.round((this.options.tokenScale ?? 1) * raw));
  }

  contextWindowFor(model: string): number {
    return this.options.contextWindows?.[model] ?? this.options.defaultContextWindow ?? 200_000;
  }

  /** The minimum cacheable prefix for `model` (options.promptCache.minTokens, else core's table). */
  minCacheableTokensFor(model: string): number {
    const m = this.options.promptCache?.minTokens;
    if (typeof m === 'number') return m;
    return m?.[model] ?? minCacheableTokens(model);
  }

  /** Forget every cached prefix (as if the TTLs had run out). */
  clearPromptCache(): void {
    this.promptCache.clear();
  }

  /** Segments and breakpoints of a body for the prompt cache, or the API's error for its cache_control. */
  cacheLayout(body: MessagesRequestBody): CacheLayout | { error: string } {
    return cacheLayout(body, {
      block: countBlockRaw,
      tool: countToolRaw,
      text: countTextTokens,
      scale: this.options.tokenScale ?? 1,
      perRequest: this.options.tokenOverhead?.perRequest ?? 0,
      perMessage: this.options.tokenOverhead?.perMessage ?? 0,
    });
  }

  // -------------------------------------------------------------------------------------------

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { record, parseError } = this.record(req, await readBody(req));
    const ex = trackExchange(record, res);
    this.exchanges.add(ex);
    try {
      await this.dispatch(req, ex, parseError);
    } finally {
      this.exchanges.delete(ex);
    }
  }

  /** Record the request (whatever happens next) and wake the waiters it satisfies. */
  private record(req: IncomingMessage, rawBody: string): { record: RecordedRequest; parseError: string | undefined } {
    const path = (req.url ?? '/').split('?')[0]!;
    let body: MessagesRequestBody = {};
    let parseError: string | undefined;
    if (rawBody.length > 0) {
      try {
        const parsed: unknown = JSON.parse(rawBody);
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as MessagesRequestBody;
        else parseError = 'Input should be a valid dictionary';
      } catch (e) {
        parseError = (e as Error).message;
      }
    }
    const record: RecordedRequest = {
      index: this.recorded.length,
      method: req.method ?? 'GET',
      path,
      headers: req.headers,
      body,
      rawBody,
      time: Date.now(),
      requestId: newRequestId(),
      aborted: false,
    };
    this.recorded.push(record);
    for (const w of [...this.waiters]) {
      if (this.recorded.length >= w.count) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve();
      }
    }
    return { record, parseError };
  }

  /** The checks in the order of the file header, then the endpoint. */
  private async dispatch(req: IncomingMessage, ex: Exchange, parseError: string | undefined): Promise<void> {
    const { record, res } = ex;
    const path = record.path;
    const isMessages = path === '/v1/messages';
    const isCount = path === '/v1/messages/count_tokens';
    const isModels = req.method === 'GET' && (path === '/v1/models' || path.startsWith('/v1/models/'));
    if (!isModels && (req.method !== 'POST' || (!isMessages && !isCount))) {
      return failExchange(ex, 404, 'not_found_error', 'Not Found', 'validation');
    }
    if (!this.authenticate(req, ex)) return;
    if (isModels) {
      const a = answerModels(req.url ?? path, this.options.models ?? DEFAULT_LOOPBACK_MODELS);
      if (a.status !== 200) return failExchange(ex, a.status, a.type, a.message, 'models');
      Object.assign(record, { source: 'models', status: 200 });
      return sendJson(res, 200, a.body, { 'request-id': record.requestId });
    }
    if (parseError !== undefined) {
      return failExchange(ex, 400, 'invalid_request_error', `There was an error parsing the body: ${parseError}`, 'validation');
    }
    const body = record.body;
    const problem = validateMessagesBody(body, {
      requireMaxTokens: isMessages,
      consecutiveRoles: this.options.consecutiveRoles ?? 'merge',
      requireUserFirst: this.options.requireUserFirst ?? true,
    });
    if (problem) return failExchange(ex, 400, 'invalid_request_error', problem, 'validation');
    const layout = this.cacheLayout(body);
    if ('error' in layout) return failExchange(ex, 400, 'invalid_request_error', layout.error, 'validation');
    const managed = manageContext(body, req.headers, (b) => this.countTokens(b));
    if (managed.error) return failExchange(ex, 400, 'invalid_request_error', managed.error, 'validation');
    if (isCount) return answerCountTokens(this.endpointServer(), this.countQueue, ex, managed);
    return answerMessages(this.endpointServer(), ex, managed, layout);
  }

  /** Auth, then the `anthropic-version` header; answers the failure and returns false when one fails. */
  private authenticate(req: IncomingMessage, ex: Exchange): boolean {
    // SDK 1.x sends the key as `Authorization: Bearer <key>`; older clients send `x-api-key`.
    const bearer = /^Bearer\s+(.+)$/i.exec(headerValue(req.headers['authorization']) ?? '')?.[1];
    const apiKey = headerValue(req.headers['x-api-key']) ?? bearer;
    ex.record.apiKey = apiKey;
    if (!apiKey) {
      failExchange(ex, 401, 'authentication_error', 'x-api-key header is required', 'validation');
      return false;
    }
    if (this.options.apiKey !== undefined && apiKey !== this.options.apiKey) {
      failExchange(ex, 401, 'authentication_error', 'invalid x-api-key', 'validation');
      return false;
    }
    if (!headerValue(req.headers['anthropic-version'])) {
      failExchange(ex, 400, 'invalid_request_error', 'anthropic-version: header is required', 'validation');
      return false;
    }
    return true;
  }

  /** What the endpoints need of this server, as it stands for the current request. */
  private endpointServer(): MessagesServer {
    return {
      queue: this.queue,
      responder: this.responder,
      compactionSummaries: this.compactionSummaries,
      whenEmpty: this.options.whenEmpty ?? 'error',
      probes: this.probes,
      tokenScale: this.options.tokenScale ?? 1,
      ping: this.options.ping ?? true,
      countTokens: (body) => this.countTokens(body),
      countOutputTokens: (blocks) => this.countOutputTokens(blocks),
      contextWindowFor: (model) => this.contextWindowFor(model),
      cacheLayout: (body) => this.cacheLayout(body),
      applyCache: (request, layout) => this.promptCache.apply(request.body.model, request.inputTokens, layout),
    };
  }
}
