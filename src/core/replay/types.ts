// The replay's inputs and outputs: a configuration resolved into engine terms (what the agent would
// run), the options of a run, and the report (per configuration, and per call for charts).
import type { CacheTtl, PriceOverrides } from '../cost/cost';
import type { PipelineSettings } from '../pipeline/pipeline';
import type { TextTokenizer } from '../counting/tokens';

/** Prompt caching as the agent would send it: off (no cache_control), or breakpoints with this TTL. */
export type PromptCaching = 'off' | CacheTtl;

/** One configuration in engine terms (hosts resolve configuration files into this). */
export interface ReplayConfig {
  name: string;
  /** What the configuration file says it is (shown in the text output). */
  description?: string;
  /** Layers 1 and 2 exactly as the agent's pipeline runs them. */
  pipeline: PipelineSettings;
  /** The answer reserve (max_tokens of every call): plans keep it free, and a request over window − it overflows. */
  maxOutputTokens: number;
  promptCaching: PromptCaching;
}

export interface ReplayOptions {
  /** The text tokenizer behind every count (the calibration scales it to the recording's model). Default o200k. */
  tokenizer?: TextTokenizer;
  /** Per-model price overrides (model id prefix -> fields of ModelPrice). */
  prices?: PriceOverrides;
  /** The window to replay against; default the recording's (else its model's, else 200K). */
  contextWindow?: number;
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
  /** The recorded usage priced with the same table (5-minute writes). */
  costUSD: number;
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
  /** Of the file paths and genuine prompts the compactions archived, the fraction still in the final request (1 when none). */
  ledgerRecall: number;
  /** How many paths and prompts the compactions archived (the denominator of ledgerRecall). */
  archivedArtifacts: number;
  summaryCalls: number;
  /** The call (1-based) whose request did not fit the window, or null when every call was replayed. */
  stoppedAt: number | null;
  /** Sentences about the run: where it stopped and why, how summaries were sized. */
  notes: string[];
  points: ReplayCallPoint[];
}

export interface ReplayReport {
  window: number;
  model: string | null;
  /** Tokens of the unseen system prompt and tools, fitted from the recorded usage (0 when it cannot be fitted). */
  overheadTokens: number;
  /** Claude tokens per o200k token on the visible messages (the calibration's factor). */
  factor: number;
  /** Output size of every replayed summary, and where it came from. */
  summaryTokens: { tokens: number; source: 'recorded' | 'estimate' };
  recorded: RecordedTotals | null;
  configs: ReplayConfigResult[];
}
