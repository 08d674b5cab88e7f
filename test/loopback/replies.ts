/**
 * Scripted replies of the loopback server: what a test queues (`server.queue`) or a responder returns
 * for `POST /v1/messages`, and the `reply` builders for them.
 */

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
  /**
   * A hostile endpoint's usage, sent as is in message_start, message_delta and the JSON answer instead of
   * the counted one (negative, fractional, strings, absurd sizes). null: message_start (and the JSON
   * answer) carry no usage at all and message_delta an empty one.
   */
  wireUsage?: Record<string, unknown> | null;
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
