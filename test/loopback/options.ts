/** What a test can set when it creates a LoopbackAnthropic. */
import type { LoopbackModel } from './models';
import type { ScriptedReply } from './replies';
import type { ValidRequest } from './wire';

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
  /**
   * Probe requests of "Check this compaction" (probeAnswers.ts): 'answer' (default) answers them from the
   * request's own text before the queue is consulted; 'script' treats them as any other request.
   */
  probes?: 'answer' | 'script';
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
