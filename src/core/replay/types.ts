// The replay's inputs and outputs: a configuration resolved into engine terms (what the agent would
// run), the options of a run, and the report (per configuration, and per call for charts).
import type { CacheTtl, PriceOverrides } from '../cost/cost';
import type { PipelineSettings } from '../pipeline/pipeline';
import type { TextTokenizer } from '../counting/tokens';

import type { WindowSource } from '../importers/window';
import type { PriceSource } from '../cost/prices';

export type { PriceSource, WindowSource };

/** Prompt caching as the agent would send it: off (no cache_control), or breakpoints with this TTL. */
export type PromptCaching = 'off' | CacheTtl;
export type { PromptCachingSetting } from '../pipeline/callStats';
import type { PromptCachingSetting } from '../pipeline/callStats';

/** One configuration in engine terms (hosts resolve configuration files into this). */
export interface ReplayConfig {
  name: string;
  /** What the configuration file says it is (shown in the text output). */
  description?: string;
  /** Layers 1 and 2 exactly as the agent's pipeline runs them. */
  pipeline: PipelineSettings;
  /** The answer reserve (max_tokens of every call): plans keep it free, and a request over window − it overflows. */
  maxOutputTokens: number;
  /** 'auto': the TTL chosen before each call from the recorded gaps between the calls so far. */
  promptCaching: PromptCachingSetting;
  /**
   * Splitpoint's artifact ledger carried through compactions (what ships). Claude Code and Codex carry
   * none, so their configurations say false; ledgerRecall is reported only where this is true.
   */
  ledger: boolean;
  /**
   * 'pipeline' (default): the configuration's own compactions, run by the engine. 'as-recorded': the
   * recording's own compactions at their recorded points, with the recorded cache TTL and the recorded
   * request sizes (the check that the replay reproduces what was billed).
   */
  mode?: 'pipeline' | 'as-recorded';
  /**
   * The model of the summary calls (splitpoint.summaryModel); '' or absent: the session's model. Another
   * model cannot read the conversation's prompt cache: its summary call is the standalone prompt,
   * uncached, at its own price.
   */
  summaryModel?: string;
  /**
   * The summary's max_tokens (splitpoint.summaryMaxTokens): positive, a fixed bound; 0 or absent, sized
   * by the probes of what each compaction archives (core/pipeline/summaryBudget.ts).
   */
  summaryMaxTokens?: number;
  /**
   * Compact where that agent does (its auto-compact point on the replayed session's window, as the live strip
   * shows it: core/live/status.ts agentCompactPoint) instead of the pipeline's trigger.
   */
  agentPoint?: 'claude-code' | 'codex';
}

export interface ReplayOptions {
  /** The text tokenizer behind every count (the calibration scales it to the recording's model). Default o200k. */
  tokenizer?: TextTokenizer;
  /** Per-model price overrides (model id prefix -> fields of ModelPrice). */
  prices?: PriceOverrides;
  /** The window to replay against; default the recording's (else its model's, else 200K). */
  contextWindow?: number;
  /** Where a given contextWindow came from (default 'user' when contextWindow is given). */
  windowSource?: WindowSource;
  /** Awaited between calls (a host passes one that yields to its event loop, so a long replay never blocks it). */
  yieldEvery?: () => Promise<void>;
}

/** What the recording itself billed (its recorded usage), for comparison. */
export interface RecordedTotals {
  calls: number;
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
  /** Of cacheWriteTokens, those the recording says were written with the 1-hour TTL. */
  cacheWrite1hTokens: number;
  /** The recorded usage priced as billed: each cache write at its recorded TTL (1h writes 2x, 5m 1.25x). */
  costUSD: number;
  /** The same usage with every write priced at the 5-minute rate (what earlier versions reported). */
  costUSDAt5m: number;
  priceSource: PriceSource;
  /** The recording agent's own compactions: before which replayed call (1-based), at what size. */
  compactions: Array<{ call: number; preTokens: number | null; trigger: string | null }>;
}

/** One replayed model call (charts draw these). */
export interface ReplayCallPoint {
  /** 1-based index of the recorded call. */
  call: number;
  /** Tokens of the request (system + tools overhead + the messages as sent). */
  contextTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  inputTokens: number;
  outputTokens: number;
  /** Cost of this call (and of a compaction's summary call made just before it). */
  costUSD: number;
  cumulativeCostUSD: number;
  /** A compaction ran just before this call (its strategy), with the summary call's cost included above. */
  compaction?: { strategy: string; tokensBefore: number; tokensAfter: number; summarized: boolean };
}

export interface ReplayConfigResult {
  name: string;
  /** Model calls replayed (fewer than recorded when the window overflowed: see stoppedAt). */
  calls: number;
  compactions: number;
  peakContextTokens: number;
  /** Totals over the replayed calls and the summary calls. */
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
  costUSD: number;
  /**
   * Of the file paths and genuine prompts this configuration's compactions archived, the fraction still
   * in its final request (1 when none) — only for a configuration that carries Splitpoint's ledger, else null.
   */
  ledgerRecall: number | null;
  /** How many paths and prompts the compactions archived (the denominator of ledgerRecall). */
  archivedArtifacts: number;
  /** Of every file path the whole session touched, the fraction its final request still names. */
  pathRecall: number;
  /** Of every prompt a person typed in the session, the fraction its final request still quotes. */
  promptRecall: number;
  /**
   * Of the probes (artifact, recall, decision, continuation) of what each compaction archived, the share
   * its request right after the compaction answers, averaged over the compactions; null when it made none.
   * Stand-in summaries count for nothing (see ReplayReport.probeNote).
   */
  probeRecall: number | null;
  /** The cost of the summary calls alone (included in costUSD). */
  summaryCostUSD: number;
  /** The model the summary calls went to (the session's unless the configuration names another); null when unknown. */
  summaryModel: string | null;
  /** The summary calls' max_tokens, lowest and highest (null when none was made). */
  summaryBound: { min: number; max: number; source: 'setting' | 'probes' } | null;
  priceSource: PriceSource;
  /**
   * as-recorded only: (cost of the replayed recorded calls − recorded.costUSD) / recorded.costUSD.
   * The summary calls the recording does not bill (a compaction's own call) are left out of it. Null elsewhere.
   */
  costErrorVsRecorded: number | null;
  summaryCalls: number;
  /** The call (1-based) whose request did not fit the window, or null when every call was replayed. */
  stoppedAt: number | null;
  /** Sentences about the run: where it stopped and why, how summaries were sized. */
  notes: string[];
  points: ReplayCallPoint[];
}

export interface ReplayReport {
  window: number;
  windowSource: WindowSource;
  /** Sentences a reader must see (a fallback price, a window the recording contradicts). */
  warnings: string[];
  /**
   * Of the cache reads a perfect prefix cache would serve on the recorded requests, the fraction the
   * provider served (Anthropic ~1; OpenAI's automatic cache misses some). Counterfactual reads are scaled by it.
   */
  cacheServedRatio: number;
  /** The recording's cache TTL (the TTL of most of its cache writes; '5m' when it wrote none). */
  recordedTtl: CacheTtl;
  model: string | null;
  /** Tokens of the unseen system prompt and tools, fitted from the recorded usage (0 when it cannot be fitted). */
  overheadTokens: number;
  /** Claude tokens per o200k token on the visible messages (the first segment's calibration factor). */
  factor: number;
  /**
   * The calibration per segment of the recording (a segment ends at each recorded compaction): the
   * prefix every request of it carries and the factor fitted on its own calls.
   */
  segments: Array<{ calls: number; overheadTokens: number; factor: number }>;
  /** Output size of every replayed summary, and where it came from. */
  summaryTokens: { tokens: number; source: 'recorded' | 'estimate' };
  recorded: RecordedTotals | null;
  /** What probeRecall measures, and that the replay's stand-in summaries count for nothing in it. */
  probeNote: string;
  configs: ReplayConfigResult[];
}
