// The typed message protocol between the extension host and the two webviews (chat sidebar and
// context inspector). Both sides import these types; the host validates every message it receives
// with the `parse…` functions of validation.ts, the webviews with their hostMessages.ts, each a table
// with one validator per message type (byType.ts), and anything malformed is ignored (and logged).
// The engine's types that travel as they are (costs, the ledger, server context) are imported from
// core, never copied: type-only imports, erased from the webview bundles.
// No `vscode` import: this module is bundled into the webviews too.
import type { MicroCompactDecision, PlanCost, PromptCaching, ServerContextReport, TodoItem } from '../core';
import type { InspectorSession, MessageDetail, PlanView, ReplayView } from './inspector';
import type { LiveToHost } from './live';
export { isMemberOf, parseByType, type RawMessage, type ValidatorsByType } from './byType';
/** The agent's task list items, as the chat's checklist shows and edits them. */
export type { TodoItem, TodoStatus } from '../core';
// The inspector panel's views (session, rows, plans, probes, replay) live in inspector.ts, re-exported here.
export * from './inspector';
// The inspector's live-session strip (issue 24): its view and its own messages, in live.ts.
export * from './live';

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
  /** Probes of earlier checks the user pinned or added to the ledger, asked again: answered now or still missed. */
  followed?: ProbeFollowView[];
}

/** A probe of an earlier check the user acted on, asked again by this check. */
export interface ProbeFollowView {
  probeId: string;
  question: string;
  expected: string[];
  answered: boolean;
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
  | { type: 'files'; files: string[]; truncated: boolean }
  /** The session's task list (the agent's todo tool and the user's edits), whole, whenever it changes. */
  | { type: 'todo'; items: TodoItem[] }
  /** The standing instructions in force (the chat header); listedOnly: untrusted workspace, files not sent until allowed. */
  | { type: 'instructions'; items: InstructionInfo[]; listedOnly: boolean };

/** One source of standing instructions as the chat header lists it (issue 23). */
export interface InstructionInfo {
  /** 'AGENTS.md', 'packages/api/AGENTS.md', 'splitpoint.instructions', 'Kept from the chat (1)'. */
  name: string;
  kind: 'file' | 'setting' | 'chat';
  /** False: listed, not sent (untrusted workspace until the user allows instruction files). */
  sent: boolean;
  /** Cut to the caps (16,000 characters per source, 48,000 in all). */
  truncated: boolean;
  /** Characters sent, and of the whole source. */
  chars: number;
  originalChars: number;
  /** A kept prompt: the message it came from. */
  messageId?: string;
}

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
  | { type: 'pickModel' }
  /** The user edited the task list in the checklist: the whole new list (the next request carries it). */
  | { type: 'setTodo'; items: TodoItem[] }
  /** Send the workspace's instruction files although the workspace is not trusted (remembered for it). */
  | { type: 'allowInstructions' }
  /** "Keep as instruction" on a prompt: it joins the session's standing instructions. */
  | { type: 'keepAsInstruction'; messageId: string }
  /** Stop sending a kept prompt as an instruction. */
  | { type: 'removeInstruction'; messageId: string };

// ---------------------------------------------------------------------------------------------
// Inspector (the views the messages carry are in inspector.ts)
// ---------------------------------------------------------------------------------------------

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
  | { type: 'restoreFiles'; id: string }
  /** "Check this compaction" on a compaction of the current session (runs the command splitpoint.checkCompaction). */
  | { type: 'checkCompaction'; compactionId: string }
  /** "Keep as instruction" on an archived prompt of the ledger (its text): it joins the session's standing instructions. */
  | { type: 'keepInstruction'; text: string }
  /** The live-session strip's intents (live.ts). */
  | LiveToHost;
