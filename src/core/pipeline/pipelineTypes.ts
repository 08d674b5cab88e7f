// The pipeline's settings, dependencies and outcomes (pipeline.ts re-exports them).
import type { ApiMessage, Message } from '../conversation/conversation';
import type { MicroCompactSettings } from './microCompactor';
import type { CompactionPlan, PlanContext, SummarizerInput } from './plan';
import type { ServerContextOptions } from './serverContext';
import type { CompactionRecord, SessionLog } from '../session/session';
import type { StrategyName } from '../strategies';
import type { SummaryResult } from './summarize';
import type { SummaryReviewer } from './summaryDraft';
import type { TranscriptStore } from '../transcripts/transcripts';
import type { Trigger } from './triggers';
import type { AutoCompactPolicy } from './paysTrigger';
import type { PromptCachingSetting } from './callStats';
import type { ModelPrice } from '../cost/prices';

export interface AutoCompactSettings {
  enabled: boolean;
  strategy: StrategyName;
  params: Record<string, number>;
  trigger: Trigger;
  /** 'always': auto (and tool) compactions that summarize ask the reviewer before committing. */
  review?: 'never' | 'always';
  serverContext?: ServerContextOptions; // the server strategies' exclude_tools and instructions
  /** 'threshold' (default): when `trigger` fires; 'pays': also earlier, when compacting pays back (paysTrigger.ts). */
  policy?: AutoCompactPolicy;
  /** At most one auto-compaction per this many model calls unless the window forces it (default 10). */
  minCallsBetween?: number;
}

export interface PipelineSettings {
  microCompact: MicroCompactSettings & { enabled: boolean };
  autoCompact: AutoCompactSettings;
  /** The prompt caching of the model calls ('auto': the TTL chosen from the gaps between calls); default '5m'. */
  promptCaching?: PromptCachingSetting;
}

export type Summarizer = (input: SummarizerInput, focus: string | undefined, signal?: AbortSignal) => Promise<SummaryResult>;

export interface PipelineDeps {
  session: SessionLog;
  transcripts: TranscriptStore;
  ctx: PlanContext;
  summarizer?: Summarizer;
  /** Asked between summarizing and committing when a compaction is run with `review` (the summary draft). */
  reviewer?: SummaryReviewer;
  /** Tokens outside the messages (system prompt, tool definitions), counted against the window. */
  overheadTokens?: () => number;
  /**
   * Calibration factor (API-reported / local estimate) applied to the request size the trigger and
   * the context meter see; plans keep the raw local counts.
   */
  scale?: () => number;
  now?: () => number;
  /** The model's price (default: the price table's row for ctx.model): what "pays" and TTL "auto" weigh. */
  price?: ModelPrice;
}

export interface PreparedRequest {
  messages: ApiMessage[];
  /** Tokens of the micro-compacted messages plus the overhead. */
  tokens: number;
  truncatedResults: number;
  /**
   * Micro-compaction frontiers (cacheFrontier.ts), ascending: counts of leading messages of the view no later
   * batch can change, this request's and, in a batch's own request, the one before it. The agent and the
   * replay put a cache breakpoint at the end of each. Absent without micro-compaction.
   */
  stableMessages?: number[];
  /** The same frontiers in request (API) messages (toApiMessages merges same-role runs). */
  stableApiMessages?: number[];
}

export type CompactionTriggerSource = CompactionRecord['trigger'];

export interface CompactOptions {
  strategy: string;
  params?: Record<string, number | string>;
  focus?: string;
  trigger: CompactionTriggerSource;
  signal?: AbortSignal;
  /** Two phases: summarize -> the reviewer sees the draft -> commit its final text (or discard). */
  review?: boolean;
  /** The split-at strategy's chosen message (PlanContext.splitAtId). */
  splitAtId?: string;
}

export type CompactionOutcome =
  | { ok: true; record: CompactionRecord; plan: CompactionPlan; carriedOver: number }
  | {
      ok: false;
      reason:
        'noop' | 'cancelled' | 'discarded' | 'summary-failed' | 'transcript-failed' | 'conflict' | 'no-summarizer' | 'invalid' | 'busy';
      message: string;
      plan?: CompactionPlan;
    };

/** What an undo did: the compaction it reverted and the record it wrote (trigger 'undo'). */
export type UndoOutcome =
  | { ok: true; record: CompactionRecord; undone: CompactionRecord; messages: readonly Message[]; carriedOver: number }
  | { ok: false; reason: 'noop' | 'busy' | 'invalid' | 'transcript-failed' | 'conflict'; message: string };

export interface CompactionFailure {
  strategy: string;
  trigger: CompactionTriggerSource;
  reason: Exclude<CompactionOutcome, { ok: true }>['reason'];
  message: string;
}
