/**
 * LoopbackAnthropic: a scriptable stand-in for the Anthropic Messages API on 127.0.0.1.
 *
 * There is no network in tests, so the agent, the summarizer and the end-to-end tests talk to this
 * server through the real `@anthropic-ai/sdk` (`new Anthropic({ apiKey, baseURL })`). It speaks the
 * real wire format, so the SDK's own parsing, stream accumulation, retry and error-class logic run
 * unmodified.
 *
 * Endpoints
 * - `POST /v1/messages`: non-streaming (JSON `Message`) and streaming (`stream: true` → SSE:
 *   `message_start`, then per content block `content_block_start` / `content_block_delta`… /
 *   `content_block_stop`, one `ping` after the first `content_block_start`, then `message_delta`
 *   (stop_reason + usage) and `message_stop`).
 * - `POST /v1/messages/count_tokens`: `{ "input_tokens": N }`. Never consumes `queue`'s replies and
 *   does not enforce the context window (it exists to measure prompts, including oversized ones).
 *   Its failures are scripted in `countQueue` (errors, hangs and drops only; a valid request takes the
 *   next one, else it is counted).
 * - Anything else: 404 `not_found_error`.
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
 *  5. the script: the next queued reply, else `options.responder(request)`, else the fallback
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
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { countTokens as o200kCount, decode as o200kDecode, encode as o200kEncode } from 'gpt-tokenizer/encoding/o200k_base';
import { compactedBody, defaultCompactionSummary, manageContext, type ManagedContext } from './contextManagement';
import { imageBlockTokens, minCacheableTokens, PrefixCache, type CacheOutcome } from '../../src/core/index';
import { answerModels, DEFAULT_LOOPBACK_MODELS, type LoopbackModel } from './models';
import { cacheLayout, type CacheBreakpoint, type CacheLayout } from './promptCache';

// ---------------------------------------------------------------------------------------------
// Wire types (loose: they describe what arrives, which need not be valid)
// ---------------------------------------------------------------------------------------------

/** A content block as it arrives in a request. Only the fields this server reads are named. */
export interface WireBlock {
  type: string;
  text?: string;
  thinking?: string;
  signature?: string;
  data?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: string | WireBlock[];
  is_error?: boolean;
  [key: string]: unknown;
}

export interface WireMessage {
  role: string;
  content: string | WireBlock[];
}

export interface WireTool {
  name?: string;
  description?: string;
  input_schema?: unknown;
  type?: string;
  [key: string]: unknown;
}

/** A Messages (or count_tokens) request body as received; fields may be missing on invalid requests. */
export interface MessagesRequestBody {
  model?: string;
  max_tokens?: number;
  messages?: WireMessage[];
  system?: string | WireBlock[];
  tools?: WireTool[];
  stream?: boolean;
  [key: string]: unknown;
}

/** A body that passed validation. */
export interface ValidMessagesBody extends MessagesRequestBody {
  model: string;
  messages: WireMessage[];
}

export interface RecordedRequest {
  /** 0-based arrival order across all paths. */
  index: number;
  method: string;
  path: string;
  /** Node's lower-cased header map. */
  headers: IncomingHttpHeaders;
  /** Parsed JSON body (`{}` when the body is empty or not JSON; see `rawBody`). */
  body: MessagesRequestBody;
  rawBody: string;
  /** The API key presented, from `x-api-key` or else `Authorization: Bearer …` (what SDK 1.x sends). */
  apiKey?: string;
  /** `Date.now()` when the body had been read. */
  time: number;
  /** The `request-id` header this server answered (or will answer) with. */
  requestId: string;
  /** HTTP status sent, once headers are written. */
  status?: number;
  /** What answered: 'validation' (a 4xx from checks), 'queue', 'responder', 'fallback', 'count_tokens'. */
  source?: 'validation' | 'queue' | 'responder' | 'fallback' | 'count_tokens' | 'models';
  /** True when the client went away before the response was complete (abort, timeout, drop). */
  aborted: boolean;
}

/** The request a responder sees: a recorded `/v1/messages` request whose body passed validation. */
export interface ValidRequest extends RecordedRequest {
  body: ValidMessagesBody;
  /** Input tokens this server counted for the request (after tokenScale/overhead, and context management). */
  inputTokens: number;
  /** Server-side context management (contextManagement.ts): what the model saw, what was applied. */
  managed?: ManagedContext;
  /** What the prompt cache served and wrote, once a message reply was played (see promptCache.ts). */
  cache?: CacheOutcome & { breakpoints: CacheBreakpoint[]; cacheWrite1hTokens: number };
}

// ---------------------------------------------------------------------------------------------
// Scripted replies
// ---------------------------------------------------------------------------------------------

export type StopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'pause_turn' | 'refusal' | 'compaction';

/** A block of a scripted assistant reply. Ids/signatures are generated when omitted. */
export type ScriptBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature?: string }
  | { type: 'tool_use'; name: string; input: unknown; id?: string }
  /** Server-side compaction (contextManagement.ts); null content: a failed compaction. */
  | { type: 'compaction'; content: string | null };

export interface Timing {
  /** Wait this long before sending anything (headers included). */
  delayMs?: number;
  /** Streaming: wait this long between SSE events. */
  chunkDelayMs?: number;
}

export interface UsageOverride {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
}

export interface MessageReplyOptions extends Timing {
  /** Force the stop reason (default: tool_use if any tool_use block, max_tokens if cut, else end_turn). */
  stopReason?: StopReason;
  /** Override usage numbers (default: counted with the tokenizer). */
  usage?: UsageOverride;
  /** Model name to report (default: the request's `model`). */
  model?: string;
  /** Streaming: characters per `text_delta` / `thinking_delta` (default 16). */
  textChunkChars?: number;
  /** Streaming: characters per `input_json_delta` after the initial empty one (default 12). */
  jsonChunkChars?: number;
  /** Extra response headers. */
  headers?: Record<string, string>;
  /** Streaming: send this many SSE events, then go silent but keep the connection open. */
  stallAfterEvents?: number;
  /** Streaming: send this many SSE events, then destroy the socket. */
  dropAfterEvents?: number;
  /** Streaming: after `afterEvents` events send `event: error` with this error and end the response. */
  streamError?: { afterEvents: number; type: string; message: string };
}

export interface ErrorReplyOptions {
  /** `retry-after` header, in seconds (a number) or verbatim (a string, e.g. an HTTP date). */
  retryAfter?: number | string;
  /** `retry-after-ms` header (the SDK prefers it over `retry-after`). */
  retryAfterMs?: number;
  /** `x-should-retry` header; omitted by default so the SDK decides by status. */
  shouldRetry?: boolean;
  headers?: Record<string, string>;
  delayMs?: number;
}

export type ScriptedReply =
  | ({ kind: 'message'; content: ScriptBlock[] } & MessageReplyOptions)
  | ({ kind: 'error'; status: number; type: string; message: string } & ErrorReplyOptions)
  /** Read the request, then never answer (until the client aborts or the server closes). */
  | { kind: 'hang'; delayMs?: number }
  /** Read the request, then destroy the socket without any response. */
  | { kind: 'drop'; delayMs?: number };

export interface ToolCallSpec {
  name: string;
  input: unknown;
  id?: string;
}

export interface ToolUseOptions extends MessageReplyOptions {
  /** Leading text block before the tool_use block(s). */
  text?: string;
}

/** Builders for scripted replies, usable directly in a responder. */
export const reply = {
  /** An assistant message with one text block. */
  text(text: string, opts: MessageReplyOptions = {}): ScriptedReply {
    return { kind: 'message', content: [{ type: 'text', text }], ...opts };
  },
  /** One tool_use block (`toolUse(name, input, opts)`) or several parallel ones (`toolUse(calls, opts)`), with optional leading text. */
  toolUse(nameOrCalls: string | ToolCallSpec[], inputOrOpts?: unknown, maybeOpts?: ToolUseOptions): ScriptedReply {
    const calls: ToolCallSpec[] = typeof nameOrCalls === 'string' ? [{ name: nameOrCalls, input: inputOrOpts }] : nameOrCalls;
    const opts: ToolUseOptions = (typeof nameOrCalls === 'string' ? maybeOpts : (inputOrOpts as ToolUseOptions | undefined)) ?? {};
    const { text, ...rest } = opts;
    const content: ScriptBlock[] = [];
    if (text !== undefined) content.push({ type: 'text', text });
    for (const c of calls) content.push({ type: 'tool_use', name: c.name, input: c.input ?? {}, ...(c.id ? { id: c.id } : {}) });
    return { kind: 'message', content, ...rest };
  },
  /** A thinking block followed by `then` (a text, or blocks such as tool_use). */
  thinking(thinking: string, then: string | ScriptBlock[], opts: MessageReplyOptions & { signature?: string } = {}): ScriptedReply {
    const { signature, ...rest } = opts;
    const after: ScriptBlock[] = typeof then === 'string' ? [{ type: 'text', text: then }] : then;
    return { kind: 'message', content: [{ type: 'thinking', thinking, ...(signature ? { signature } : {}) }, ...after], ...rest };
  },
  /** Any sequence of blocks. */
  message(content: ScriptBlock[], opts: MessageReplyOptions = {}): ScriptedReply {
    return { kind: 'message', content, ...opts };
  },
  /** An empty reply: one empty text block (default) or, with `noBlocks`, `content: []`. Both happen in the wild. */
  empty(opts: MessageReplyOptions & { noBlocks?: boolean } = {}): ScriptedReply {
    const { noBlocks, ...rest } = opts;
    return { kind: 'message', content: noBlocks ? [] : [{ type: 'text', text: '' }], ...rest };
  },
  /** An HTTP error with the real body shape. */
  error(status: number, type: string, message: string, opts: ErrorReplyOptions = {}): ScriptedReply {
    return { kind: 'error', status, type, message, ...opts };
  },
  /** 429 `rate_limit_error` with `retry-after` (seconds). */
  rateLimited(retryAfterSeconds = 1, message = 'This request would exceed your rate limit. Please try again later.'): ScriptedReply {
    return { kind: 'error', status: 429, type: 'rate_limit_error', message, retryAfter: retryAfterSeconds };
  },
  /** 529 `overloaded_error`. */
  overloaded(message = 'Overloaded'): ScriptedReply {
    return { kind: 'error', status: 529, type: 'overloaded_error', message };
  },
  /** 500 `api_error`. */
  apiError(message = 'Internal server error'): ScriptedReply {
    return { kind: 'error', status: 500, type: 'api_error', message };
  },
  hang(opts: { delayMs?: number } = {}): ScriptedReply {
    return { kind: 'hang', ...opts };
  },
  drop(opts: { delayMs?: number } = {}): ScriptedReply {
    return { kind: 'drop', ...opts };
  },
};

/** FIFO of scripted replies for `/v1/messages`. Every method but `shift` returns `this` for chaining. */
export class ReplyQueue {
  private readonly items: ScriptedReply[] = [];

  push(...replies: ScriptedReply[]): this {
    this.items.push(...replies);
    return this;
  }
  text(text: string, opts?: MessageReplyOptions): this {
    return this.push(reply.text(text, opts));
  }
  toolUse(name: string, input: unknown, opts?: ToolUseOptions): this;
  toolUse(calls: ToolCallSpec[], opts?: ToolUseOptions): this;
  toolUse(nameOrCalls: string | ToolCallSpec[], inputOrOpts?: unknown, maybeOpts?: ToolUseOptions): this {
    return this.push(reply.toolUse(nameOrCalls, inputOrOpts, maybeOpts));
  }
  thinking(thinking: string, then: string | ScriptBlock[], opts?: MessageReplyOptions & { signature?: string }): this {
    return this.push(reply.thinking(thinking, then, opts));
  }
  message(content: ScriptBlock[], opts?: MessageReplyOptions): this {
    return this.push(reply.message(content, opts));
  }
  empty(opts?: MessageReplyOptions & { noBlocks?: boolean }): this {
    return this.push(reply.empty(opts));
  }
  error(status: number, type: string, message: string, opts?: ErrorReplyOptions): this {
    return this.push(reply.error(status, type, message, opts));
  }
  rateLimited(retryAfterSeconds?: number, message?: string): this {
    return this.push(reply.rateLimited(retryAfterSeconds, message));
  }
  overloaded(message?: string): this {
    return this.push(reply.overloaded(message));
  }
  apiError(message?: string): this {
    return this.push(reply.apiError(message));
  }
  hang(opts?: { delayMs?: number }): this {
    return this.push(reply.hang(opts));
  }
  drop(opts?: { delayMs?: number }): this {
    return this.push(reply.drop(opts));
  }
  shift(): ScriptedReply | undefined {
    return this.items.shift();
  }
  clear(): this {
    this.items.length = 0;
    return this;
  }
  get length(): number {
    return this.items.length;
  }
}

// ---------------------------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------------------------

export type Responder = (request: ValidRequest) => ScriptedReply | undefined | Promise<ScriptedReply | undefined>;

export interface LoopbackOptions {
  /** Port to listen on (default 0: an ephemeral port). Always binds 127.0.0.1. */
  port?: number;
  /** When set, the presented key (x-api-key or Bearer token) must equal it (else 401 "invalid x-api-key"). Default: any non-empty key. */
  apiKey?: string;
  /** Context window per model name. */
  contextWindows?: Record<string, number>;
  /** Context window for models not in `contextWindows` (default 200000). */
  defaultContextWindow?: number;
  /** Multiplies every token count (input and output), to test calibration against another tokenizer. Default 1. */
  tokenScale?: number;
  /** Fixed framing tokens added before scaling. Default 0 and 0. */
  tokenOverhead?: { perRequest?: number; perMessage?: number };
  /** Consulted when the queue is empty. Return undefined to fall through to `whenEmpty`. */
  responder?: Responder;
  /** With nothing queued and no responder answer: 'error' (default, a 500 naming the request) or 'echo'. */
  whenEmpty?: 'error' | 'echo';
  /** 'merge' (default, documented API behaviour) or 'reject' consecutive same-role messages. */
  consecutiveRoles?: 'merge' | 'reject';
  /** Require the first (non-system) message to be `user` (default true). */
  requireUserFirst?: boolean;
  /** Send one `ping` event after the first content_block_start (default true). */
  ping?: boolean;
  /** What `GET /v1/models` lists, newest first (models.ts; default DEFAULT_LOOPBACK_MODELS). */
  models?: readonly LoopbackModel[];
  /**
   * The prompt cache (one per server and model). `minTokens`: the minimum cacheable prefix (default
   * core's minCacheableTokens per model); `now`: its clock (default Date.now).
   */
  promptCache?: { minTokens?: number | Record<string, number>; now?: () => number };
}

// ---------------------------------------------------------------------------------------------
// Token counting
// ---------------------------------------------------------------------------------------------

const NO_SPECIALS = { disallowedSpecial: new Set<string>() };

/** o200k_base token count of `text`; special-token strings count as plain text. */
export function countTextTokens(text: string): number {
  return text ? o200kCount(text, NO_SPECIALS) : 0;
}

export function countBlockRaw(block: WireBlock): number {
  switch (block.type) {
    case 'text':
      return countTextTokens(String(block.text ?? ''));
    case 'thinking':
      return countTextTokens(String(block.thinking ?? ''));
    case 'redacted_thinking':
      return countTextTokens(String(block.data ?? ''));
    case 'tool_use':
      return countTextTokens(String(block.name ?? '')) + countTextTokens(JSON.stringify(block.input ?? {}));
    case 'tool_result': {
      const c = block.content;
      if (c === undefined || c === null) return 0;
      if (typeof c === 'string') return countTextTokens(c);
      return Array.isArray(c) ? c.reduce((n, b) => n + countBlockRaw(b), 0) : 0;
    }
    case 'image':
      return imageBlockTokens(block as { source?: unknown });
    default:
      return countTextTokens(JSON.stringify(block));
  }
}

function countContentRaw(content: unknown): number {
  if (typeof content === 'string') return countTextTokens(content);
  if (Array.isArray(content))
    return content.reduce((n: number, b: WireBlock) => n + (b && typeof b === 'object' ? countBlockRaw(b) : 0), 0);
  return 0;
}

/** Unscaled token count of system + tools + messages, by the rule in the file header. */
export function countRawRequestTokens(body: MessagesRequestBody): number {
  let n = countContentRaw(body.system);
  for (const tool of Array.isArray(body.tools) ? body.tools : []) n += countToolRaw(tool);
  for (const m of Array.isArray(body.messages) ? body.messages : []) n += countContentRaw(m?.content);
  return n;
}

/** Unscaled tokens of one tool definition (a tool without input_schema, e.g. a server tool: its JSON). */
export function countToolRaw(tool: WireTool): number {
  if (!tool || typeof tool !== 'object') return 0;
  if (tool.input_schema === undefined) return countTextTokens(JSON.stringify(tool));
  return (
    countTextTokens(String(tool.name ?? '')) +
    countTextTokens(String(tool.description ?? '')) +
    countTextTokens(JSON.stringify(tool.input_schema))
  );
}

/** Input tokens as this server reports them: round(tokenScale × (raw + overhead)). */
export function countRequestTokens(
  body: MessagesRequestBody,
  opts: { tokenScale?: number; tokenOverhead?: { perRequest?: number; perMessage?: number } } = {},
): number {
  const messages = Array.isArray(body.messages) ? body.messages.length : 0;
  const overhead = (opts.tokenOverhead?.perRequest ?? 0) + (opts.tokenOverhead?.perMessage ?? 0) * messages;
  return Math.round((opts.tokenScale ?? 1) * (countRawRequestTokens(body) + overhead));
}

/** Text of the last user message (its text blocks and tool_result texts, joined by newlines). */
export function lastUserText(body: MessagesRequestBody): string {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role !== 'user') continue;
    return textOf(m.content);
  }
  return '';
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const b of content as WireBlock[]) {
    if (b?.type === 'text') parts.push(String(b.text ?? ''));
    else if (b?.type === 'tool_result') parts.push(textOf(b.content));
  }
  return parts.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------

export interface ValidationOptions {
  /** count_tokens does not take max_tokens. */
  requireMaxTokens: boolean;
  consecutiveRoles: 'merge' | 'reject';
  requireUserFirst: boolean;
}

/**
 * The first problem the real API would report for this body, as its `error.message`, or undefined.
 * Messages marked (verified) match errors quoted from the real API in public issue threads.
 */
/** The API's checks on `tools`: a list of tools with unique names matching ^[a-zA-Z0-9_-]{1,64}$ and an object input_schema. */
function validateTools(tools: unknown): string | undefined {
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools)) return 'tools: Input should be a valid list';
  const seen = new Set<string>();
  for (let i = 0; i < tools.length; i++) {
    const t = tools[i] as Record<string, unknown> | undefined;
    if (!t || typeof t !== 'object') return `tools.${i}: Input should be a valid dictionary`;
    if (t.type !== undefined && t.type !== 'custom') continue; // server tools (web_search, …) have their own shapes
    if (typeof t.name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(t.name))
      return `tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`;
    if (seen.has(t.name)) return 'tools: Tool names must be unique.';
    seen.add(t.name);
    const schema = t.input_schema as Record<string, unknown> | undefined;
    if (!schema || typeof schema !== 'object') return `tools.${i}.custom.input_schema: Field required`;
    if (schema.type !== 'object') return `tools.${i}.custom.input_schema.type: Input should be 'object'`;
  }
  return undefined;
}

export function validateMessagesBody(body: MessagesRequestBody, opts: ValidationOptions): string | undefined {
  // Required fields (pydantic-style wording; "max_tokens: Field required" verified).
  if (body.model === undefined) return 'model: Field required';
  if (opts.requireMaxTokens && body.max_tokens === undefined) return 'max_tokens: Field required';
  if (body.messages === undefined) return 'messages: Field required';
  if (typeof body.model !== 'string' || body.model === '') return 'model: Input should be a valid string';
  if (opts.requireMaxTokens && (typeof body.max_tokens !== 'number' || !Number.isInteger(body.max_tokens) || body.max_tokens < 0)) {
    return 'max_tokens: Input should be a valid integer';
  }
  if (!Array.isArray(body.messages)) return 'messages: Input should be a valid list';
  if (body.messages.length === 0) return 'messages: at least one message is required';

  const toolProblem = validateTools(body.tools);
  if (toolProblem) return toolProblem;

  const messages = body.messages;
  const last = messages.length - 1;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as WireMessage | undefined;
    if (!m || typeof m !== 'object') return `messages.${i}: Input should be a valid dictionary`;
    if (m.role !== 'user' && m.role !== 'assistant' && m.role !== 'system')
      return `messages.${i}.role: Input should be 'user' or 'assistant'`;
    if (m.content === undefined) return `messages.${i}.content: Field required`;
    if (typeof m.content !== 'string' && !Array.isArray(m.content)) return `messages.${i}.content: Input should be a valid string or list`;
    const empty = typeof m.content === 'string' ? m.content === '' : m.content.length === 0;
    // (verified) the final assistant message may be empty (prefill); no other message may.
    if (empty && !(i === last && m.role === 'assistant')) {
      return `messages.${i}: all messages must have non-empty content except for the optional final assistant message`;
    }
    if (Array.isArray(m.content)) {
      for (let j = 0; j < m.content.length; j++) {
        const b = m.content[j];
        if (!b || typeof b !== 'object' || typeof b.type !== 'string')
          return `messages.${i}.content.${j}: Input should be a valid dictionary`;
        // (verified) whitespace-only text blocks are rejected.
        if (b.type === 'text' && String(b.text ?? '').trim() === '')
          return 'messages: text content blocks must contain non-whitespace text';
      }
    }
  }

  // Roles: system-role messages are transparent; then merge (or reject) runs of the same role.
  const turns: Array<{ role: 'user' | 'assistant'; parts: Array<{ index: number; blocks: WireBlock[] }> }> = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === 'system') continue;
    const role = m.role as 'user' | 'assistant';
    const blocks: WireBlock[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    const prev = turns[turns.length - 1];
    if (prev && prev.role === role) {
      if (opts.consecutiveRoles === 'reject') {
        return `messages: roles must alternate between "user" and "assistant", but found multiple "${role}" roles in a row`;
      }
      prev.parts.push({ index: i, blocks });
    } else {
      turns.push({ role, parts: [{ index: i, blocks }] });
    }
  }
  if (turns.length === 0) return 'messages: at least one message is required';
  // (verified) 'messages: first message must use the "user" role'.
  if (opts.requireUserFirst && turns[0]!.role !== 'user') return 'messages: first message must use the "user" role';

  // tool_use ↔ tool_result pairing, turn by turn (verified wording for both errors).
  for (let t = 0; t < turns.length; t++) {
    const turn = turns[t]!;
    if (turn.role === 'assistant') {
      const next = turns[t + 1];
      const answered = new Set<string>();
      if (next?.role === 'user') {
        for (const p of next.parts)
          for (const b of p.blocks) if (b.type === 'tool_result' && typeof b.tool_use_id === 'string') answered.add(b.tool_use_id);
      }
      for (const p of turn.parts) {
        const missing = p.blocks.filter((b) => b.type === 'tool_use' && !answered.has(String(b.id))).map((b) => String(b.id));
        if (missing.length > 0) {
          return (
            `messages.${p.index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. ` +
            'Each `tool_use` block must have a corresponding `tool_result` block in the next message.'
          );
        }
      }
    } else {
      const prev = turns[t - 1];
      const offered = new Set<string>();
      if (prev?.role === 'assistant') {
        for (const p of prev.parts) for (const b of p.blocks) if (b.type === 'tool_use') offered.add(String(b.id));
      }
      for (const p of turn.parts) {
        for (let j = 0; j < p.blocks.length; j++) {
          const b = p.blocks[j]!;
          if (b.type === 'tool_result' && !offered.has(String(b.tool_use_id))) {
            return (
              `messages.${p.index}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(b.tool_use_id)}. ` +
              'Each `tool_result` block must have a corresponding `tool_use` block in the previous message.'
            );
          }
        }
      }
    }
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Ids
// ---------------------------------------------------------------------------------------------

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
function randomId(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (let i = 0; i < length; i++) out += BASE58[bytes[i]! % BASE58.length];
  return out;
}
/** `msg_01` + 22 chars, like `msg_01XFDUDYJgAACzvnptvVoYEL`. */
export const newMessageId = (): string => `msg_01${randomId(22)}`;
/** `toolu_01` + 22 chars. */
export const newToolUseId = (): string => `toolu_01${randomId(22)}`;
/** `req_011C` + 20 chars, like `req_011CSURy8kJA4QAXZjsnBj5N`. */
export const newRequestId = (): string => `req_011C${randomId(20)}`;

// ---------------------------------------------------------------------------------------------
// The server
// ---------------------------------------------------------------------------------------------

interface Exchange {
  record: RecordedRequest;
  res: ServerResponse;
  closed: boolean;
  /** Resolves after `ms`, or earlier when the connection closes. */
  sleep(ms: number): Promise<void>;
  /** Resolves when the connection closes. */
  whenClosed: Promise<void>;
}

interface BuiltBlock {
  wire: Record<string, unknown>;
  script: ScriptBlock & { id?: string; signature?: string };
}

export class LoopbackAnthropic {
  readonly queue = new ReplyQueue();
  /** Scripted failures of count_tokens (error, hang, drop), in order; when empty, requests are counted. */
  readonly countQueue = new ReplyQueue();
  /** Consulted when the queue is empty; may be replaced at any time. */
  responder: Responder | undefined;
  /** Summaries for the next server-side compactions, in order (null: a failed compaction); then a default one. */
  readonly compactionSummaries: Array<string | null> = [];

  private readonly options: LoopbackOptions;
  private readonly recorded: RecordedRequest[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly exchanges = new Set<Exchange>();
  private readonly waiters: Array<{ count: number; resolve: () => void }> = [];
  private server: Server | undefined;
  private url: string | undefined;
  private readonly caches = new Map<string, PrefixCache>();

  constructor(options: LoopbackOptions = {}) {
    this.options = options;
    this.responder = options.responder;
  }

  /** Listen on 127.0.0.1; resolves with the base URL to hand to `new Anthropic({ baseURL })`. */
  async start(): Promise<{ baseURL: string; port: number }> {
    if (this.server) throw new Error('LoopbackAnthropic already started');
    const server = createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        // A bug in the script or this server: answer 500 if we still can, never crash the test run.
        if (!res.headersSent && !res.destroyed) {
          this.sendJson(res, 500, errorBody('api_error', `LoopbackAnthropic internal error: ${String(err)}`, newRequestId()), {});
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
    this.caches.clear();
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

  private applyCache(request: ValidRequest, layout: CacheLayout): NonNullable<ValidRequest['cache']> {
    const model = request.body.model;
    let cache = this.caches.get(model);
    if (!cache) this.caches.set(model, (cache = new PrefixCache(this.minCacheableTokensFor(model))));
    const now = this.options.promptCache?.now?.() ?? Date.now();
    const marks = layout.breakpoints;
    const outcome = cache.call(
      layout.segments,
      marks.map((b) => b.segment),
      now,
      marks.map((b) => b.ttl),
    );
    // Whole tokens, as the API reports them; what is neither read nor written is uncached input.
    const read = Math.round(outcome.cacheReadTokens);
    const write = Math.min(Math.round(outcome.cacheReadTokens + outcome.cacheWriteTokens) - read, request.inputTokens - read);
    // The 1h share of the write: up to the furthest 1h breakpoint that was written (1h ones come first).
    let cumulative = 0;
    const upTo: number[] = layout.segments.map((s) => (cumulative += s.tokens));
    const min = this.minCacheableTokensFor(model);
    const written1h = marks
      .filter((b) => b.ttl === '1h' && b.segment >= outcome.cachedSegments && upTo[b.segment] >= min)
      .map((b) => upTo[b.segment]);
    const write1h = written1h.length > 0 && write > 0 ? Math.min(write, Math.max(0, Math.round(Math.max(...written1h)) - read)) : 0;
    return {
      ...outcome,
      cacheReadTokens: read,
      cacheWriteTokens: write,
      inputTokens: Math.max(0, request.inputTokens - read - write),
      cacheWrite1hTokens: write1h,
      breakpoints: marks,
    };
  }

  // -------------------------------------------------------------------------------------------

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawBody = await readBody(req);
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

    const ex = this.track(record, res);
    try {
      const isMessages = path === '/v1/messages';
      const isCount = path === '/v1/messages/count_tokens';
      const isModels = req.method === 'GET' && (path === '/v1/models' || path.startsWith('/v1/models/'));
      if (!isModels && (req.method !== 'POST' || (!isMessages && !isCount))) {
        return this.fail(ex, 404, 'not_found_error', 'Not Found', 'validation');
      }
      // SDK 1.x sends the key as `Authorization: Bearer <key>`; older clients send `x-api-key`.
      const bearer = /^Bearer\s+(.+)$/i.exec(headerValue(req.headers['authorization']) ?? '')?.[1];
      const apiKey = headerValue(req.headers['x-api-key']) ?? bearer;
      record.apiKey = apiKey;
      if (!apiKey) return this.fail(ex, 401, 'authentication_error', 'x-api-key header is required', 'validation');
      if (this.options.apiKey !== undefined && apiKey !== this.options.apiKey) {
        return this.fail(ex, 401, 'authentication_error', 'invalid x-api-key', 'validation');
      }
      if (!headerValue(req.headers['anthropic-version'])) {
        return this.fail(ex, 400, 'invalid_request_error', 'anthropic-version: header is required', 'validation');
      }
      if (isModels) {
        const a = answerModels(req.url ?? path, this.options.models ?? DEFAULT_LOOPBACK_MODELS);
        if (a.status !== 200) return this.fail(ex, a.status, a.type, a.message, 'models');
        Object.assign(record, { source: 'models', status: 200 });
        return this.sendJson(res, 200, a.body, { 'request-id': record.requestId });
      }
      if (parseError !== undefined) {
        return this.fail(ex, 400, 'invalid_request_error', `There was an error parsing the body: ${parseError}`, 'validation');
      }
      const problem = validateMessagesBody(body, {
        requireMaxTokens: isMessages,
        consecutiveRoles: this.options.consecutiveRoles ?? 'merge',
        requireUserFirst: this.options.requireUserFirst ?? true,
      });
      if (problem) return this.fail(ex, 400, 'invalid_request_error', problem, 'validation');
      const layout = this.cacheLayout(body);
      if ('error' in layout) return this.fail(ex, 400, 'invalid_request_error', layout.error, 'validation');

      const managed = manageContext(body, req.headers, (b) => this.countTokens(b));
      if (managed.error) return this.fail(ex, 400, 'invalid_request_error', managed.error, 'validation');
      const inputTokens = managed.inputTokens;
      if (isCount) {
        const failure = this.countQueue.shift();
        if (failure) {
          if (failure.kind === 'message') throw new Error('countQueue holds failures only (error, hang, drop), not messages');
          record.source = 'queue';
          return await this.play(ex, Object.assign(record, { inputTokens }) as ValidRequest, failure);
        }
        record.source = 'count_tokens';
        const cm = managed.response ? { context_management: { original_input_tokens: managed.originalInputTokens } } : {};
        this.sendJson(res, 200, { input_tokens: inputTokens, ...cm }, { 'request-id': record.requestId });
        record.status = 200;
        return;
      }

      const valid = record as ValidRequest;
      valid.inputTokens = inputTokens;
      valid.managed = managed;
      const window = this.contextWindowFor(valid.body.model);
      if (inputTokens > window) {
        return this.fail(ex, 400, 'invalid_request_error', `prompt is too long: ${inputTokens} tokens > ${window} maximum`, 'validation');
      }

      const summary = managed.compaction
        ? this.compactionSummaries.length > 0
          ? this.compactionSummaries.shift()!
          : defaultCompactionSummary(managed.compaction)
        : undefined;
      if (summary) valid.inputTokens = this.countTokens(compactedBody(managed.body, summary));
      const compaction: ScriptBlock[] = summary === undefined ? [] : [{ type: 'compaction', content: summary }];
      // pause_after_compaction: the compaction block alone (the scripted reply waits for the next request).
      let script = managed.compaction?.pause && summary ? reply.message(compaction, { stopReason: 'compaction' }) : this.queue.shift();
      let source: RecordedRequest['source'] = 'queue';
      if (!script && this.responder) {
        script = await this.responder(valid);
        source = 'responder';
      }
      if (!script) {
        source = 'fallback';
        if (this.options.whenEmpty === 'echo') {
          script = reply.text(`echo: ${lastUserText(valid.body)}`);
        } else {
          const last = lastUserText(valid.body).slice(0, 80);
          script = reply.error(
            500,
            'api_error',
            `LoopbackAnthropic: no scripted reply for request #${record.index} ` +
              `(POST /v1/messages, last user text: ${JSON.stringify(last)}); queue a reply or set a responder`,
            { shouldRetry: false },
          );
        }
      }
      record.source = source;
      if (script.kind === 'message' && compaction.length > 0 && script.content[0]?.type !== 'compaction')
        script = { ...script, content: [...compaction, ...script.content] };
      // The cache sees what the model saw: the body after server-side context management.
      const served = this.cacheLayout(summary ? compactedBody(managed.body, summary) : managed.body);
      await this.play(ex, valid, script, 'error' in served ? layout : served);
    } finally {
      this.exchanges.delete(ex);
    }
  }

  private track(record: RecordedRequest, res: ServerResponse): Exchange {
    let markClosed!: () => void;
    const whenClosed = new Promise<void>((resolve) => (markClosed = resolve));
    const timers = new Set<NodeJS.Timeout>();
    const ex: Exchange = {
      record,
      res,
      closed: false,
      whenClosed,
      sleep: (ms: number) =>
        new Promise<void>((resolve) => {
          if (ex.closed || ms <= 0) return resolve();
          const t = setTimeout(() => {
            timers.delete(t);
            resolve();
          }, ms);
          timers.add(t);
          void whenClosed.then(() => {
            clearTimeout(t);
            timers.delete(t);
            resolve();
          });
        }),
    };
    res.on('close', () => {
      ex.closed = true;
      if (!res.writableFinished) record.aborted = true;
      markClosed();
    });
    this.exchanges.add(ex);
    return ex;
  }

  private fail(ex: Exchange, status: number, type: string, message: string, source: RecordedRequest['source']): void {
    ex.record.source = source;
    ex.record.status = status;
    // The real API marks client errors as not retryable.
    const headers: Record<string, string> = { 'request-id': ex.record.requestId };
    if (status >= 400 && status < 500 && status !== 408 && status !== 409 && status !== 429) headers['x-should-retry'] = 'false';
    this.sendJson(ex.res, status, errorBody(type, message, ex.record.requestId), headers);
  }

  private sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string>): void {
    if (res.destroyed) return;
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
    res.end(text);
  }

  private async play(ex: Exchange, request: ValidRequest, script: ScriptedReply, layout?: CacheLayout): Promise<void> {
    await ex.sleep(script.delayMs ?? 0);
    if (ex.closed) return;
    switch (script.kind) {
      case 'hang':
        await ex.whenClosed;
        return;
      case 'drop':
        ex.res.destroy();
        return;
      case 'error': {
        const headers: Record<string, string> = { 'request-id': ex.record.requestId, ...(script.headers ?? {}) };
        if (script.retryAfter !== undefined) headers['retry-after'] = String(script.retryAfter);
        if (script.retryAfterMs !== undefined) headers['retry-after-ms'] = String(script.retryAfterMs);
        if (script.shouldRetry !== undefined) headers['x-should-retry'] = String(script.shouldRetry);
        ex.record.status = script.status;
        this.sendJson(ex.res, script.status, errorBody(script.type, script.message, ex.record.requestId), headers);
        return;
      }
      case 'message':
        // Only a request that is answered reads and writes the cache (as an error, hang or drop does not).
        if (layout) request.cache = this.applyCache(request, layout);
        return request.body.stream === true ? this.playStream(ex, request, script) : this.playJson(ex, request, script);
    }
  }

  /** Blocks after max_tokens truncation, with ids/signatures filled in, plus usage and stop reason. */
  private compose(request: ValidRequest, script: Extract<ScriptedReply, { kind: 'message' }>) {
    const scale = this.options.tokenScale ?? 1;
    const maxTokens = typeof request.body.max_tokens === 'number' ? request.body.max_tokens : Number.POSITIVE_INFINITY;
    let remaining = Math.floor(maxTokens / scale);
    let cut = false;
    const blocks: BuiltBlock[] = [];
    for (const original of script.content) {
      let block: ScriptBlock = original;
      const cost = outputCostRaw(block);
      if (cost > remaining) {
        cut = true;
        if (block.type === 'text' && remaining > 0) block = { ...block, text: truncateTokens(block.text, remaining) };
        else if (block.type === 'thinking' && remaining > 0) block = { ...block, thinking: truncateTokens(block.thinking, remaining) };
        else break;
        blocks.push(buildBlock(block));
        break;
      }
      remaining -= cost;
      blocks.push(buildBlock(block));
    }
    const scripts = blocks.map((b) => b.script);
    const hasToolUse = scripts.some((b) => b.type === 'tool_use');
    const stopReason: StopReason = script.stopReason ?? (cut ? 'max_tokens' : hasToolUse ? 'tool_use' : 'end_turn');
    const cache = request.cache;
    const usage = {
      input_tokens: script.usage?.input_tokens ?? cache?.inputTokens ?? request.inputTokens,
      cache_creation_input_tokens: script.usage?.cache_creation_input_tokens ?? cache?.cacheWriteTokens ?? 0,
      cache_read_input_tokens: script.usage?.cache_read_input_tokens ?? cache?.cacheReadTokens ?? 0,
      output_tokens: script.usage?.output_tokens ?? this.countOutputTokens(scripts),
    };
    const cm = request.managed?.response ? { context_management: request.managed.response } : {};
    // The API's split of the cache write by TTL (consistent with an overridden total: all of it 5m).
    const write1h = script.usage?.cache_creation_input_tokens === undefined ? (cache?.cacheWrite1hTokens ?? 0) : 0;
    const cacheCreation = { ephemeral_5m_input_tokens: usage.cache_creation_input_tokens - write1h, ephemeral_1h_input_tokens: write1h };
    return { blocks, stopReason, usage, cacheCreation, model: script.model ?? request.body.model, id: newMessageId(), cm };
  }

  private playJson(ex: Exchange, request: ValidRequest, script: Extract<ScriptedReply, { kind: 'message' }>): void {
    const m = this.compose(request, script);
    const message = {
      id: m.id,
      type: 'message',
      role: 'assistant',
      model: m.model,
      content: m.blocks.map((b) => b.wire),
      stop_reason: m.stopReason,
      stop_sequence: null,
      usage: { ...m.usage, cache_creation: m.cacheCreation, service_tier: 'standard' },
      ...m.cm,
    };
    ex.record.status = 200;
    this.sendJson(ex.res, 200, message, { 'request-id': ex.record.requestId, ...(script.headers ?? {}) });
  }

  private async playStream(ex: Exchange, request: ValidRequest, script: Extract<ScriptedReply, { kind: 'message' }>): Promise<void> {
    const m = this.compose(request, script);
    const textChunk = Math.max(1, script.textChunkChars ?? 16);
    const jsonChunk = Math.max(1, script.jsonChunkChars ?? 12);
    const events: Array<Record<string, unknown>> = [];
    events.push({
      type: 'message_start',
      message: {
        id: m.id,
        type: 'message',
        role: 'assistant',
        model: m.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: m.usage.input_tokens,
          cache_creation_input_tokens: m.usage.cache_creation_input_tokens,
          cache_read_input_tokens: m.usage.cache_read_input_tokens,
          cache_creation: m.cacheCreation,
          output_tokens: 1,
          service_tier: 'standard',
        },
      },
    });
    const ping = this.options.ping ?? true;
    if (ping && m.blocks.length === 0) events.push({ type: 'ping' });
    m.blocks.forEach((built, index) => {
      const b = built.script;
      if (b.type === 'text') {
        events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
        if (ping && index === 0) events.push({ type: 'ping' });
        for (const part of splitChars(b.text, textChunk)) {
          events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: part } });
        }
      } else if (b.type === 'thinking') {
        events.push({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
        if (ping && index === 0) events.push({ type: 'ping' });
        for (const part of splitChars(b.thinking, textChunk)) {
          events.push({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: part } });
        }
        events.push({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: b.signature } });
      } else if (b.type === 'compaction') {
        events.push({ type: 'content_block_start', index, content_block: { type: 'compaction', content: null, encrypted_content: null } });
        events.push({
          type: 'content_block_delta',
          index,
          delta: { type: 'compaction_delta', content: b.content, encrypted_content: null },
        });
      } else {
        events.push({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } });
        if (ping && index === 0) events.push({ type: 'ping' });
        // The real stream opens with an empty partial_json, then the JSON text in pieces.
        events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: '' } });
        for (const part of splitChars(JSON.stringify(b.input ?? {}), jsonChunk)) {
          events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: part } });
        }
      }
      events.push({ type: 'content_block_stop', index });
    });
    events.push({
      type: 'message_delta',
      delta: { stop_reason: m.stopReason, stop_sequence: null },
      ...m.cm,
      usage: {
        input_tokens: m.usage.input_tokens,
        cache_creation_input_tokens: m.usage.cache_creation_input_tokens,
        cache_read_input_tokens: m.usage.cache_read_input_tokens,
        output_tokens: m.usage.output_tokens,
      },
    });
    events.push({ type: 'message_stop' });

    ex.record.status = 200;
    ex.res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'request-id': ex.record.requestId,
      ...(script.headers ?? {}),
    });
    ex.res.flushHeaders();
    const chunkDelay = script.chunkDelayMs ?? 0;
    for (let i = 0; i <= events.length; i++) {
      if (ex.closed) return;
      if (script.stallAfterEvents === i) {
        await ex.whenClosed;
        return;
      }
      if (script.dropAfterEvents === i) {
        ex.res.destroy();
        return;
      }
      if (script.streamError && script.streamError.afterEvents === i) {
        const { type, message } = script.streamError;
        ex.res.end(sse('error', errorBody(type, message, ex.record.requestId)));
        return;
      }
      if (i === events.length) break;
      if (i > 0) await ex.sleep(chunkDelay);
      if (ex.closed) return;
      const event = events[i]!;
      ex.res.write(sse(String(event.type), event));
    }
    ex.res.end();
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

function errorBody(type: string, message: string, requestId: string) {
  return { type: 'error', error: { type, message }, request_id: requestId };
}

function sse(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

function headerValue(v: string | string[] | undefined): string | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  return s && s.length > 0 ? s : undefined;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function outputCostRaw(block: ScriptBlock): number {
  switch (block.type) {
    case 'text':
      return countTextTokens(block.text);
    case 'thinking':
      return countTextTokens(block.thinking);
    case 'tool_use':
      return countTextTokens(block.name) + countTextTokens(JSON.stringify(block.input ?? {}));
    case 'compaction':
      return 0; // the compaction iteration's tokens are not in the top-level usage (the API's rule)
  }
}

/** The first `n` o200k tokens of `text`, without a dangling partial character. */
function truncateTokens(text: string, n: number): string {
  return o200kDecode(o200kEncode(text, NO_SPECIALS).slice(0, n)).replace(/\uFFFD+$/, '');
}

/** Split into pieces of at most `size` code points (never splitting a surrogate pair). */
function splitChars(text: string, size: number): string[] {
  const points = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < points.length; i += size) out.push(points.slice(i, i + size).join(''));
  return out;
}

function buildBlock(block: ScriptBlock): BuiltBlock {
  switch (block.type) {
    case 'text':
      return { script: block, wire: { type: 'text', text: block.text } };
    case 'thinking': {
      const signature = block.signature ?? randomBytes(48).toString('base64');
      return { script: { ...block, signature }, wire: { type: 'thinking', thinking: block.thinking, signature } };
    }
    case 'tool_use': {
      const id = block.id ?? newToolUseId();
      return { script: { ...block, id }, wire: { type: 'tool_use', id, name: block.name, input: block.input ?? {} } };
    }
    case 'compaction':
      return { script: block, wire: { type: 'compaction', content: block.content, encrypted_content: null } };
  }
}
