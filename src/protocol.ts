// The typed message protocol between the extension host and the two webviews (chat sidebar and
// context inspector). Both sides import these types; the host validates every message it receives
// with the `parse…` functions below and ignores (and logs) anything malformed.
// No `vscode` import: this module is bundled into the webviews too.

// ---------------------------------------------------------------------------------------------
// Chat
// ---------------------------------------------------------------------------------------------

export type ToolStatus = 'awaiting-approval' | 'running' | 'done' | 'error' | 'rejected' | 'cancelled';

export interface DiffView {
  path: string;
  /** Unified diff text (the webview renders it as text, never as HTML). */
  unified: string;
  isNewFile: boolean;
}

export type ChatItem =
  | { kind: 'user'; id: string; text: string }
  | {
      kind: 'assistant';
      id: string;
      /** Markdown from the model: untrusted, sanitized before rendering. */ text: string;
      streaming: boolean;
    }
  | { kind: 'thinking'; id: string; text: string; streaming: boolean }
  | {
      kind: 'tool';
      /** The tool_use id. */
      id: string;
      name: string;
      /** Tool input as pretty JSON. */
      input: string;
      status: ToolStatus;
      output?: string;
      isError?: boolean;
      /** Set when micro-compaction replaced this result in what the model now sees. */
      truncated?: { originalChars: number };
      diff?: DiffView;
      command?: string;
    }
  | {
      kind: 'compaction';
      id: string;
      strategy: string;
      trigger: string;
      tokensBefore: number;
      tokensAfter: number;
      transcriptPath: string;
      archivedCount: number;
      undone?: boolean;
    }
  | { kind: 'error'; id: string; message: string; retryable: boolean }
  | { kind: 'notice'; id: string; message: string };

export interface ContextMeter {
  used: number;
  window: number;
  /** Auto-compact threshold in tokens (null when auto-compact is off). */
  threshold: number | null;
}

export interface ChatState {
  sessionId: string;
  title: string;
  items: ChatItem[];
  busy: boolean;
  /** A summary is being generated (compaction in progress). */
  compacting: boolean;
  context: ContextMeter;
  hasApiKey: boolean;
  model: string;
  trusted: boolean;
}

export type HostToChat =
  | { type: 'state'; state: ChatState }
  | { type: 'item'; item: ChatItem }
  | { type: 'delta'; id: string; text: string }
  | { type: 'busy'; busy: boolean; compacting: boolean }
  | { type: 'context'; context: ContextMeter }
  | { type: 'focusInput' };

export type ChatToHost =
  | { type: 'ready' }
  | { type: 'send'; text: string }
  | { type: 'stop' }
  | { type: 'approve'; toolUseId: string }
  | { type: 'reject'; toolUseId: string; reason?: string }
  | { type: 'retry' }
  | { type: 'newChat' }
  | { type: 'setApiKey' }
  | { type: 'compact'; focus?: string }
  | { type: 'openInspector' }
  | { type: 'openTranscript'; path: string };

// ---------------------------------------------------------------------------------------------
// Inspector
// ---------------------------------------------------------------------------------------------

export type RowKind = 'user-prompt' | 'tool-result' | 'assistant-text' | 'tool-call' | 'thinking' | 'summary' | 'placeholder' | 'artefact';

export interface MessageRow {
  id: string;
  index: number;
  role: 'user' | 'assistant';
  kind: RowKind;
  tokens: number;
  /** Index of the turn this message belongs to (-1 before the first prompt). */
  turn: number;
  /** First characters of the message text. */
  preview: string;
  /** Tool names called or answered by this message. */
  tools?: string[];
  /** Micro-compaction: what the model sees is shorter than the original. */
  truncated?: { originalTokens: number; tokens: number; originalChars: number };
}

export interface UsageBreakdown {
  window: number;
  system: number;
  tools: number;
  messages: number;
  toolResults: number;
  summaries: number;
  free: number;
  threshold: number | null;
}

export interface CompactionView {
  id: string;
  at: number;
  strategy: string;
  trigger: string;
  tokensBefore: number;
  tokensAfter: number;
  archivedCount: number;
  transcriptPath: string;
  focus?: string;
}

export interface StrategyParamView {
  name: string;
  description: string;
  value: number;
  min: number;
  max: number;
  integer: boolean;
}

export interface StrategyView {
  name: string;
  title: string;
  description: string;
  usesSummarizer: boolean;
  params: StrategyParamView[];
}

export interface InspectorSession {
  /** "Current session" or the path of an inspected file. */
  source: string;
  readOnly: boolean;
  sessionId: string;
  title: string;
  rows: MessageRow[];
  usage: UsageBreakdown;
  /** Where the current history's tail starts (after the last compaction), if known. */
  tailStartId: string | null;
  compactions: CompactionView[];
  strategies: StrategyView[];
  canUndo: boolean;
}

export interface PlanView {
  requestId: number;
  strategy: string;
  params: Record<string, number>;
  noop: boolean;
  notes: string[];
  splitIndex: number;
  tailStartId: string | null;
  archivedIds: string[];
  keptIds: string[];
  truncated: Array<{ id: string; tokens: number; originalTokens: number }>;
  tokensBefore: number;
  tokensAfter: number;
  needsSummary: boolean;
  summarizerInputTokens: number;
  summarizerInputMessages: number;
  /** Wall time the host spent computing the plan. */
  computeMs: number;
}

export interface MessageDetail {
  id: string;
  kind: RowKind;
  tokens: number;
  /** Full text as the session holds it (original tool output, even if micro-compacted). */
  text: string;
  /** What the model currently sees, when different (micro-compacted). */
  effectiveText?: string;
}

export type HostToInspector =
  | { type: 'session'; session: InspectorSession }
  | { type: 'plan'; plan: PlanView }
  | { type: 'planError'; requestId: number; message: string }
  | { type: 'detail'; detail: MessageDetail }
  | { type: 'busy'; busy: boolean; label?: string }
  | { type: 'notice'; level: 'info' | 'error'; message: string };

export type InspectorToHost =
  | { type: 'ready' }
  | { type: 'preview'; requestId: number; strategy: string; params: Record<string, number> }
  | { type: 'apply'; strategy: string; params: Record<string, number>; focus?: string }
  | { type: 'undo' }
  | { type: 'showMessage'; id: string }
  | { type: 'openTranscript'; path: string }
  | { type: 'inspectFile' }
  | { type: 'showCurrent' };

// ---------------------------------------------------------------------------------------------
// Validation of what webviews send (they are untrusted: a compromised webview must not be able to
// make the host do anything outside these shapes).
// ---------------------------------------------------------------------------------------------

const MAX_TEXT = 200_000;
const MAX_ID = 200;

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown, max = MAX_ID): v is string => typeof v === 'string' && v.length <= max;
const nonEmpty = (v: unknown, max = MAX_ID): v is string => str(v, max) && v.length > 0;
const optStr = (v: unknown, max = MAX_TEXT): boolean => v === undefined || str(v, max);
const onlyKeys = (v: Rec, keys: string[]): boolean => Object.keys(v).every((k) => keys.includes(k));

function params(v: unknown): v is Record<string, number> {
  if (!isRec(v)) return false;
  const entries = Object.entries(v);
  return entries.length <= 16 && entries.every(([k, n]) => k.length <= 64 && typeof n === 'number' && Number.isFinite(n));
}

/** A chat message from the webview, or null if it is not exactly one of the protocol's shapes. */
export function parseChatToHost(v: unknown): ChatToHost | null {
  if (!isRec(v) || typeof v.type !== 'string') return null;
  switch (v.type) {
    case 'ready':
    case 'stop':
    case 'retry':
    case 'newChat':
    case 'setApiKey':
    case 'openInspector':
      return onlyKeys(v, ['type']) ? ({ type: v.type } as ChatToHost) : null;
    case 'send':
      return onlyKeys(v, ['type', 'text']) && str(v.text, MAX_TEXT) && v.text.trim().length > 0 ? { type: 'send', text: v.text } : null;
    case 'approve':
      return onlyKeys(v, ['type', 'toolUseId']) && nonEmpty(v.toolUseId) ? { type: 'approve', toolUseId: v.toolUseId } : null;
    case 'reject':
      return onlyKeys(v, ['type', 'toolUseId', 'reason']) && nonEmpty(v.toolUseId) && optStr(v.reason, 2_000)
        ? { type: 'reject', toolUseId: v.toolUseId, ...(v.reason !== undefined ? { reason: v.reason as string } : {}) }
        : null;
    case 'compact':
      return onlyKeys(v, ['type', 'focus']) && optStr(v.focus, 2_000)
        ? { type: 'compact', ...(v.focus !== undefined ? { focus: v.focus as string } : {}) }
        : null;
    case 'openTranscript':
      return onlyKeys(v, ['type', 'path']) && nonEmpty(v.path, 4_096) ? { type: 'openTranscript', path: v.path } : null;
    default:
      return null;
  }
}

/** An inspector message from the webview, or null if it is not exactly one of the protocol's shapes. */
export function parseInspectorToHost(v: unknown): InspectorToHost | null {
  if (!isRec(v) || typeof v.type !== 'string') return null;
  switch (v.type) {
    case 'ready':
    case 'undo':
    case 'inspectFile':
    case 'showCurrent':
      return onlyKeys(v, ['type']) ? ({ type: v.type } as InspectorToHost) : null;
    case 'preview':
      return onlyKeys(v, ['type', 'requestId', 'strategy', 'params']) &&
        Number.isSafeInteger(v.requestId) &&
        nonEmpty(v.strategy, 64) &&
        params(v.params)
        ? { type: 'preview', requestId: v.requestId as number, strategy: v.strategy, params: v.params }
        : null;
    case 'apply':
      return onlyKeys(v, ['type', 'strategy', 'params', 'focus']) && nonEmpty(v.strategy, 64) && params(v.params) && optStr(v.focus, 2_000)
        ? { type: 'apply', strategy: v.strategy, params: v.params, ...(v.focus !== undefined ? { focus: v.focus as string } : {}) }
        : null;
    case 'showMessage':
      return onlyKeys(v, ['type', 'id']) && nonEmpty(v.id) ? { type: 'showMessage', id: v.id } : null;
    case 'openTranscript':
      return onlyKeys(v, ['type', 'path']) && nonEmpty(v.path, 4_096) ? { type: 'openTranscript', path: v.path } : null;
    default:
      return null;
  }
}
