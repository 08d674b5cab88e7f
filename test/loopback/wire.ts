/**
 * The loopback server's wire types: requests as they arrive (loose: they describe what arrives, which
 * need not be valid) and as the server records them.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { ManagedContext } from './contextManagement';
import type { ServedCache } from './promptCache';

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
  source?: 'validation' | 'queue' | 'responder' | 'probes' | 'fallback' | 'count_tokens' | 'models';
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
  cache?: ServedCache;
}
