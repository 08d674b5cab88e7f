// The host <-> inspector panel messages (index.ts re-exports them; see its header for how both sides
// validate them): the session view (rows, usage against the window, past and recorded compactions,
// strategies, time travel), plan previews with their cost and probes, message details, the replay
// chart's data, and the intents the panel sends back. No `vscode` import: bundled into the webview too.
import type {
  ArtifactLedger,
  LossReport,
  MicroCompactDecision,
  PlanCost,
  ProbeKind,
  ReplayReport,
  ScoredProbe,
  ServerContextReport,
} from '../core';

export type RowKind =
  | 'user-prompt'
  | 'tool-result'
  | 'assistant-text'
  | 'tool-call'
  | 'thinking'
  | 'summary'
  | 'placeholder'
  | 'artefact'
  /** Standing instructions an imported session's harness injected (AGENTS.md, CLAUDE.md memory): not a prompt. */
  | 'instructions';

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
  /**
   * Micro-compaction: what the model sees is shorter than the original. `superseded`: the results a
   * later call superseded (microCompact.supersede), what happened to each, e.g. "src/a.ts was read again in call 57".
   */
  truncated?: { originalTokens: number; tokens: number; originalChars: number; superseded?: string[] };
  /** On an assistant message of a recording: what the API recorded for the call that produced it. */
  usage?: RecordedCallView;
  /** Pinned: kept verbatim by every compaction. */
  pinned?: boolean;
  /** On an assistant message: what server-side context management did for the call that produced it. */
  server?: ServerContextReport;
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

/**
 * What every request carries outside the compacted history besides the system prompt and the tools
 * (issue 23): the standing instructions (each source with its cost) and the task list. No compaction
 * touches them; they are o200k estimates like the system prompt.
 */
export interface StandingView {
  instructions: Array<{ name: string; tokens: number; sent: boolean; truncated: boolean }>;
  /** Tokens of the instructions section as sent (the sources and their heading). */
  instructionTokens: number;
  todo: { tokens: number; items: number; done: number };
}

/** What a request carries that no compaction can remove, and what it costs (tokens per request). */
export interface OutsideCompactionView {
  system: number;
  tools: number;
  instructions: number;
  todo: number;
  /** Pinned messages: in the history, but every compaction keeps them verbatim. */
  pinned: number;
  total: number;
}

export interface UsageBreakdown {
  window: number;
  system: number;
  tools: number;
  /** The live session's standing context (absent for a recording, or with nothing standing). */
  standing?: StandingView;
  /** What no compaction can remove, per request (the live session only). */
  outside?: OutsideCompactionView;
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
  /** The live session's last auto-compaction decision (splitpoint.autoCompact.policy) with its numbers. */
  autoCompact?: AutoCompactView;
}

/** The auto-compaction decision before the last model call (src/core/pipeline/autoCompactDecision.ts). */
export interface AutoCompactView {
  policy: 'threshold' | 'pays';
  /** It compacted; the window forced it; minCallsBetween held one back. */
  fired: boolean;
  forced: boolean;
  held: boolean;
  /** The decision's sentence ("compacting now costs $0.21 and pays back in 4 calls; …"), at most 300 characters. */
  reason: string;
  /** "pays": the cost of compacting now (USD), the calls it pays back in (null: never), the calls it can earn on. */
  costUSD: number | null;
  paybackCalls: number | null;
  horizonCalls: number | null;
  calls: number;
  callsSinceCompaction: number | null;
  minCallsBetween: number;
  /** The cache TTL in use, and why (prompt caching "auto"; else null). */
  ttl: '5m' | '1h' | 'off';
  ttlReason: string | null;
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
  /** Probes of what it archived, scored on what the recording kept (its summary and what followed); absent: none. */
  probes?: ProbeScoreView;
}

/** One probe (issue 22) with whether the request answers it: the engine's scored probe, sent as is. */
export type ProbeView = ScoredProbe;

/** Of what a compaction archives (or a plan would archive), the probes what the model receives still answers. */
export interface ProbeScoreView {
  answerable: number;
  total: number;
  /** answerable / total (null: no probes). */
  recall: number | null;
  recallByKind: Record<ProbeKind, number | null>;
  /** false: a summarizing plan's preview, whose summary is not written yet: the rate counts the ledger and the kept messages only. */
  summaryCounted: boolean;
  /** Every probe, answerable or not (the others are what is lost), in the engine's order. */
  probes: ProbeView[];
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
  /** A recorded compaction's probes (as on its RecordedCompactionView); absent: not scored. */
  probes?: ProbeScoreView;
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
  /** What the request after the plan still carries outside compaction (the live session only). */
  outside?: OutsideCompactionView;
  /** The plan's request is over the limit (the auto-compact threshold, else the window), and why: set when it is. */
  overLimit?: { limit: number; tokensAfter: number; becauseOfOutside: boolean };
  /** The artifact ledger the compaction would carry (absent or null: none). */
  ledger?: LedgerView | null;
  /** What would leave the model's view without surviving anywhere (absent or null: not reported). */
  lost?: LossView | null;
  cost?: PlanCost;
  /** Probes of what the plan archives, scored on the request it leaves (absent: a no-op plan). */
  probes?: ProbeScoreView;
  /** micro-compact only: the batch decision. */
  microCompaction?: MicroCompactDecision;
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
  /** Of the probes of what its compactions archived, the share its request right after answers; null: it archived nothing. */
  probeRecall: number | null;
  points: ReplayPointView[];
}

/** One configuration on the frontier chart: its cost against its probe answerable rate. */
export interface FrontierPointView {
  name: string;
  costUSD: number;
  /** null: nothing archived (no compaction), drawn apart from the rates, never at 0 or 100%. */
  probeRecall: number | null;
  /** No other configuration costs at most as much with at least its rate (better in one): the cost/rate frontier. */
  onFrontier: boolean;
  /** 'default': the shipped default (splitpoint-default); 'yours': the user's settings (the default's point when they are the defaults). */
  marks: Array<'default' | 'yours'>;
}

/** The user's splitpoint.* compaction settings in the replay. */
export interface YourSettingsView {
  /** 'default': they are the shipped defaults; 'replayed': as the configuration `your-settings`; 'invalid': refused (error); 'unknown': not read. */
  state: 'default' | 'replayed' | 'invalid' | 'unknown';
  /** The settings (under splitpoint.) that differ from the shipped defaults. */
  changed: string[];
  error?: string;
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
  /** Every configuration as a point, cost against probe answerable rate, the shipped default and the user's settings marked. */
  frontier: FrontierPointView[];
  yourSettings: YourSettingsView;
  /** What a reader must see (a fallback price, a window the recording contradicts). */
  warnings: string[];
  notes: string[];
}
