// The typed message protocol between the extension host and the two webviews (chat sidebar and
// context inspector). Both sides import these types; the host validates every message it receives
// with the `parse…` functions of validation.ts, the webviews with their hostMessages.ts, each a table
// with one validator per message type (byType.ts), and anything malformed is ignored (and logged).
// The engine's types that travel as they are (costs, the ledger, server context) are imported from
// core, never copied: type-only imports, erased from the webview bundles.
// No `vscode` import: this module is bundled into the webviews too.
import type { ArtifactLedger, LossReport, MicroCompactDecision, PlanCost, PromptCaching, ReplayReport, ServerContextReport } from '../core';
export { isMemberOf, parseByType, type RawMessage, type ValidatorsByType } from './byType';

/** What the previewed plan costs with the prompt cache (the engine's PlanCost, sent as is). */
export type PlanCostView = PlanCost;
/** Micro-compaction's batch decision: cleared or held, and why, with its numbers (the engine's, sent as is). */
export type MicroDecisionView = MicroCompactDecision;

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

/** On a chat message: the session message it shows (what a pin names), and whether it is pinned. */
export interface PinnableItem {
  /** Id of the session message this item shows (absent: not pinnable, e.g. still streaming). */
  messageId?: string;
  /** Pinned: kept verbatim by every compaction. */
  pinned?: boolean;
}

/** What the server reported for one call: tool results it cleared, or its compaction ('failed': a null-content block, a no-op). */
export type ServerContextView = ServerContextReport;

export type ChatItem =
  /**
   * checkpoint: the files can be restored to before this prompt (a file checkpoint exists).
   * files: the @-mentioned files attached to it; images: its images as data: URLs (image/png|jpeg|gif|webp only).
   */
  | ({ kind: 'user'; id: string; text: string; checkpoint?: boolean; files?: string[]; images?: string[] } & PinnableItem)
  | ({
      kind: 'assistant';
      id: string;
      /** Markdown from the model: untrusted, sanitized before rendering. */ text: string;
      streaming: boolean;
    } & PinnableItem)
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
      /** An explicit warning from the host for the approval (e.g. the file is configuration that tooling executes). */
      warning?: string;
      /** A tool of this MCP server (the card names it and offers "Always allow"). */
      server?: string;
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
      /** "Check this compaction" (issue 22): what the check would cost, priced before it runs (absent: not offered). */
      check?: ProbeCheckOffer;
    }
  | ProbeCheckItem
  | { kind: 'error'; id: string; message: string; retryable: boolean }
  | { kind: 'notice'; id: string; message: string };

/** What "Check this compaction" would send and cost, computed by the host before anything is sent. */
export interface ProbeCheckOffer {
  /** The model the probes are asked of (splitpoint.probes.model, or the cheapest of the session's family). */
  model: string;
  probes: number;
  /** Estimated input tokens (the compacted context + the questions) and the estimated cost in USD. */
  inputTokens: number;
  estimateUSD: number;
  /** splitpoint.probes.afterCompaction = 'ask': the divider offers the check (else a plain link). */
  offer: boolean;
}

/** The kinds of probe (core's ProbeKind, restated as a literal union the webview can check). */
export type ProbeKindView = 'artifact' | 'recall' | 'decision' | 'continuation';

/** One probe the model did not answer right: its question, what was expected, what it said. */
export interface ProbeMissView {
  probeId: string;
  kind: ProbeKindView;
  question: string;
  expected: string[];
  /** The model's answer (untrusted model output: rendered as sanitized text). */
  answer: string;
  /** wrong / unanswered: missed; uncertain: not an exact fact, the answer could not be scored. */
  verdict: 'wrong' | 'unanswered' | 'uncertain';
  /** The session message the fact comes from (the one to pin), if any. */
  sourceId: string | null;
  /** What the user already did about it from the card. */
  done?: 'pinned' | 'added';
}

/** The result card of "Check this compaction". */
export interface ProbeCheckItem {
  kind: 'probes';
  id: string;
  compactionId: string;
  model: string;
  status: 'running' | 'done' | 'failed';
  /** failed: why (no JSON, an error of the API…). */
  error?: string;
  correct: number;
  total: number;
  byKind: Record<ProbeKindView, { correct: number; total: number }>;
  /** Wrong and unanswered probes, then the uncertain ones. */
  missed: ProbeMissView[];
  /** What the request cost (from the usage the API reported), when done. */
  costUSD?: number;
  /** The checked compaction is the one Undo would undo. */
  undoable?: boolean;
}

export interface ContextMeter {
  used: number;
  window: number;
  /** Auto-compact threshold in tokens (null when auto-compact is off). */
  threshold: number | null;
  /** Prompt-cache usage: the last call and the session's calls (absent before the first call). */
  cache?: CacheMeter;
}

/** One call's (or a sum of calls') input split by the prompt cache, its output and its cost. */
export interface CallUsageView {
  /** Input tokens read from the cache. */
  read: number;
  /** Input tokens written to the cache. */
  write: number;
  /** Input tokens neither read nor written (full price). */
  uncached: number;
  output: number;
  costUSD: number;
}

export interface CacheMeter {
  /** The splitpoint.promptCaching setting the writes are priced with. */
  caching: PromptCaching;
  last: CallUsageView;
  session: CallUsageView & { calls: number };
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
  /** The session's pinned message ids (all of them): the chat marks its items by `messageId`. */
  | { type: 'pins'; ids: string[] }
  | { type: 'focusInput' }
  /** Edits waiting for approval (each openable in VS Code's diff editor). */
  | { type: 'proposals'; items: PendingEdit[] }
  /** What "Restore files to before this prompt" would change (files null: nothing to show; error: why). */
  | { type: 'restorePlan'; messageId: string; files: RestoreFileView[] | null; error?: string }
  /** The workspace files the @-mention picker offers (.gitignore honoured; `truncated`: capped). */
  | { type: 'files'; files: string[]; truncated: boolean };

/** An image pasted or dropped into the composer: base64 data of one of the API's image types. */
export interface ImageAttachment {
  mediaType: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';
  data: string;
}

export interface PendingEdit {
  toolUseId: string;
  path: string;
  title: string;
}

/** A file a restore changes back: created since (deleted by it), deleted since (recreated) or modified. */
export interface RestoreFileView {
  path: string;
  since: 'created' | 'deleted' | 'modified';
}

export type ProbeAction = 'pin' | 'addToLedger' | 'undo';

export type ChatToHost =
  | { type: 'ready' }
  /** mentions: workspace-relative paths whose content goes with the prompt; images: pasted or dropped images. */
  | { type: 'send'; text: string; mentions?: string[]; images?: ImageAttachment[] }
  /** The @-mention picker opened: the host answers with 'files'. */
  | { type: 'listFiles' }
  | { type: 'stop' }
  /** `alwaysAllow`: an MCP tool the user allows from now on (added to splitpoint.mcp.autoApprove). */
  | { type: 'approve'; toolUseId: string; alwaysAllow?: true }
  | { type: 'reject'; toolUseId: string; reason?: string }
  | { type: 'retry' }
  | { type: 'newChat' }
  | { type: 'setApiKey' }
  | { type: 'compact'; focus?: string }
  | { type: 'openInspector' }
  | { type: 'openTranscript'; path: string }
  /** Pin / unpin a session message (its id): pinned messages survive every compaction verbatim. */
  | { type: 'pin'; id: string }
  | { type: 'unpin'; id: string }
  /** Open a pending edit in VS Code's diff editor. */
  | { type: 'openDiff'; toolUseId: string }
  /** File checkpoints: preview a restore to before a prompt (its session message id), open one file's diff, restore. */
  | { type: 'previewRestore'; messageId: string }
  | { type: 'openRestoreDiff'; messageId: string; path: string }
  | { type: 'restoreFiles'; messageId: string }
  | { type: 'undoCompaction' }
  /** "Check this compaction" (its id): ask the probes of what it archived of the probes model (issue 22). */
  | { type: 'checkCompaction'; compactionId: string }
  /** An action on a missed probe of a check's card: pin its source, add its fact to the ledger, undo the compaction. */
  | { type: 'probeAction'; checkId: string; probeId: string; action: ProbeAction }
  /** Open the model picker (the model name in the header). */
  | { type: 'pickModel' };

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
  /** On an assistant message of a recording: what the API recorded for the call that produced it. */
  usage?: RecordedCallView;
  /** Pinned: kept verbatim by every compaction. */
  pinned?: boolean;
  /** On an assistant message: what server-side context management did for the call that produced it. */
  server?: ServerContextView;
  /** Tools of MCP servers this message calls or answers: the server each came from. */
  mcp?: Array<{ server: string; tool: string }>;
}

/** One recorded model call (ground truth): `input` = uncached input + cache read + cache creation. */
export interface RecordedCallView {
  input: number;
  inputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
  outputTokens: number;
  model?: string;
  /** The 1-hour part of cacheCreationTokens, when recorded (the rest are 5-minute writes). */
  cacheWrite1hTokens?: number;
  /** What the call cost as billed: core's price of its model, each cache write at its recorded TTL (5 minutes when unknown). */
  costUSD?: number;
  /** Where that price came from: the table's row for the model, a family fallback, or the user's override. */
  priceSource?: 'table' | 'family-fallback' | 'user';
}

/** Up to where the last call was served from the prompt cache (see src/inspector/cacheBoundary.ts). */
export interface CacheBoundaryView {
  /** The cached prefix ends after this message (null: within the system prompt and tools). */
  afterId: string | null;
  readTokens: number;
  /** The assistant message of the call that read it. */
  callMessageId: string;
  /** 'breakpoint': exactly where an earlier call's request (its breakpoint) ended; 'estimate': from the rows' token estimates. */
  source: 'breakpoint' | 'estimate';
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
  /**
   * Where `system` and `tools` come from: this extension's own agent (absent = 'agent'); 'fitted':
   * the fixed prefix fitted from a recording's usage (all of it in `system`, `tools` 0); 'unknown':
   * a recording whose overhead cannot be fitted (both 0, shown as unknown).
   */
  overheadSource?: 'agent' | 'fitted' | 'unknown';
  /**
   * Where `window` comes from: the settings (absent), the recording itself, the larger tier a recorded
   * call proves (a call over the model's standard window: Claude's 1M), or the recorded model's known window.
   */
  windowSource?: 'settings' | 'recording' | 'inferred-from-usage' | 'model';
  /** Why the window is not the one the model table gives (the recorded call that proves a larger one). */
  windowNote?: string;
  /** The last recorded call's real input (ground truth), when the messages shown record usage. */
  recorded?: { call: RecordedCallView; messageId: string };
  /** The last call's cached prefix, when it read from the cache. */
  cacheBoundary?: CacheBoundaryView;
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
  /** A reviewed LLM summary: the summarizer's draft and the text that was applied (edited or not). */
  draft?: string;
  finalText?: string;
  /** The summary or placeholder message it wrote, if any (its row shows the ledger). */
  syntheticId?: string;
  /** The artifact ledger it carried, if any. */
  ledger?: LedgerView;
}

/** A compaction another agent recorded (Claude Code, Codex), in the order it happened (1-based `index`). */
export interface RecordedCompactionView {
  index: number;
  /** Who compacted, for people: "Claude Code", "Codex", "Splitpoint". */
  agent: string;
  trigger: string;
  /** Tokens the agent recorded just before compacting, if it did. */
  preTokens: number | null;
  /** Line of the compaction marker in the recorded file. */
  line: number;
  at?: number;
  /** Messages of the context it replaced, and their o200k tokens. */
  archivedCount: number;
  archivedTokens: number;
  /** The messages that replaced it (the summary, or Codex's replacement history). */
  summaryCount: number;
  summaryTokens: number;
  summaryPreview: string;
}

/** The context a recorded compaction replaced, shown greyed above the current context. */
export interface ArchivedSegment {
  compaction: RecordedCompactionView;
  rows: MessageRow[];
}

/** A past compaction point to preview the strategies at: the context as it stood just before it. */
export interface TimeTravelPoint {
  /** 1-based compaction number. */
  at: number;
  /** E.g. "before compaction 1 (Claude Code, auto, 167K)". */
  label: string;
  messages: number;
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
  /** Recorded compactions whose archived contexts are shown above the rows, oldest first (absent: none). */
  archived?: ArchivedSegment[];
  /** Past compaction points (absent: none), and the one whose context the rows show (null: the current context). */
  timeTravel?: { at: number | null; points: TimeTravelPoint[] };
}

/** The artifact ledger as the inspector shows it (the engine's, sent as is). */
export type LedgerView = ArtifactLedger;

/** What a plan drops without it surviving anywhere in the new context (the engine's loss report, sent as is). */
export type LossView = LossReport;

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
  /** Ids kept verbatim because they are pinned, and their tokens (counted against every budget). */
  pinned?: string[];
  pinnedTokens?: number;
  /** The artifact ledger the compaction would carry (absent or null: none). */
  ledger?: LedgerView | null;
  /** What would leave the model's view without surviving anywhere (absent or null: not reported). */
  lost?: LossView | null;
  cost?: PlanCostView;
  /** micro-compact only: the batch decision. */
  microCompaction?: MicroDecisionView;
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

/** One replayed call of a configuration (the replay chart's points). */
export interface ReplayPointView {
  /** 1-based recorded call. */
  call: number;
  /** Tokens of the request (system + tools + messages as sent). */
  contextTokens: number;
  cumulativeCostUSD: number;
  /** A compaction ran just before this call. */
  compaction: boolean;
}

export interface ReplayConfigView {
  name: string;
  calls: number;
  compactions: number;
  peakContextTokens: number;
  costUSD: number;
  /** Of every file path the session touched, the fraction the final request still names. */
  pathRecall: number;
  /** Of every prompt a person typed, the fraction the final request still quotes. */
  promptRecall: number;
  /** What the configuration's compactions archived and its Splitpoint ledger still holds; null: it carries no ledger. */
  ledgerRecall: number | null;
  /** as-recorded only: (its cost − the recorded cost) / the recorded cost; null for every other configuration. */
  costErrorVsRecorded: number | null;
  /** The call whose request overflowed the window (the replay stopped there), or null. */
  stoppedAt: number | null;
  points: ReplayPointView[];
}

/** Where the replay's window comes from: the recording, its usage, the model table, or the user. */
export type ReplayWindowSource = ReplayReport['windowSource'];

/** `splitpoint replay` on the inspected file, for the chart: every configuration, call by call. */
export interface ReplayView {
  source: string;
  window: number;
  windowSource: ReplayWindowSource;
  /** Recorded model calls (the x axis), and what the recording itself cost (null: no recorded usage). */
  recordedCalls: number;
  /** The recorded usage priced as billed: each cache write at its recorded TTL. */
  recordedCostUSD: number | null;
  /** The recording's cache TTL (the TTL of most of its cache writes). */
  recordedTtl: ReplayReport['recordedTtl'];
  /** Cache-write tokens the recording billed (0: none, as with OpenAI's automatic cache; null: no recorded usage). */
  recordedCacheWriteTokens: number | null;
  configs: ReplayConfigView[];
  /** What a reader must see (a fallback price, a window the recording contradicts). */
  warnings: string[];
  notes: string[];
}

export type HostToInspector =
  | { type: 'session'; session: InspectorSession }
  | { type: 'replay'; replay: ReplayView }
  | { type: 'plan'; plan: PlanView }
  | { type: 'planError'; requestId: number; message: string }
  | { type: 'detail'; detail: MessageDetail }
  | { type: 'busy'; busy: boolean; label?: string }
  | { type: 'notice'; level: 'info' | 'error'; message: string };

export type InspectorToHost =
  | { type: 'ready' }
  /** `splitAtId`: the split-at strategy's chosen message ("Split here" on a timeline row). */
  | { type: 'preview'; requestId: number; strategy: string; params: Record<string, number>; splitAtId?: string }
  | { type: 'apply'; strategy: string; params: Record<string, number>; focus?: string; splitAtId?: string }
  | { type: 'undo' }
  | { type: 'showMessage'; id: string }
  | { type: 'openTranscript'; path: string }
  | { type: 'inspectFile' }
  /** Replay the inspected file under the built-in configurations (answered with a 'replay' message). */
  | { type: 'replay' }
  | { type: 'showCurrent' }
  /** Show (and plan on) the context as it stood just before compaction `at` (1-based); null: the current context. */
  | { type: 'timeTravel'; at: number | null }
  /** Pin / unpin a session message (its id): pinned messages survive every compaction verbatim. */
  | { type: 'pin'; id: string }
  | { type: 'unpin'; id: string }
  /** Restore the files to before this prompt (the chat shows what would change, then confirms). */
  | { type: 'restoreFiles'; id: string };
