// The summary's output bound (its max_tokens): `splitpoint.summaryMaxTokens` when positive; at 0 (the
// default), sized by what the probes need: a base for the summary's sections and the current state,
// plus an allowance per probe the archived messages yield (each probe is one fact the summary must
// state: a path, a command, an error line, a figure, a decision), plus the earlier summaries being
// re-summarized (their own text, carried whole at most; the artifact ledger after it is the engine's),
// clamped to a sane range and to the call's max output.
//
// Measured on the real sessions in test/fixtures/real-sessions/ (o200k tokens): the recorded
// compactions' archived messages yield 58-143 probes uncapped (88, 88, 88 on the Claude Code ones;
// 58, 73, 143 on the Codex ones); a probe's shortest expected answer is 3 tokens at the median, 11 at
// the 90th percentile; Claude Code's own summaries of those splits were 3,620-4,174 tokens. An
// allowance of 32 per probe (the answer, p90, and a bullet's worth of words naming what it is) and a
// base of 512 give 2,368-5,088 tokens there, against the fixed 4,096 used before.
import { textOf, type Message } from '../conversation/conversation';
import type { TextTokenizer } from '../counting/tokens';
import { LEDGER_HEADING } from '../ledger/ledgerMerge';
import { generateProbes } from '../probes/generate';
import type { SummarizerInput } from './plan';

/** Tokens for the summary's headings, the current state and the next step, whatever it archives. */
export const SUMMARY_BASE_TOKENS = 512;
/** Tokens per probe of the archived messages: one fact stated with what it is. */
export const SUMMARY_TOKENS_PER_PROBE = 32;
/** The range a probe-sized bound is clamped to. */
export const SUMMARY_MIN_TOKENS = 1_024;
export const SUMMARY_MAX_TOKENS = 8_192;
/** Probes counted at most (generation is bounded; a larger archive needs no more than the clamp anyway). */
const PROBES_COUNTED = (SUMMARY_MAX_TOKENS - SUMMARY_BASE_TOKENS) / SUMMARY_TOKENS_PER_PROBE;

export interface SummaryBound {
  /** The summary call's max_tokens. */
  tokens: number;
  /** 'setting': summaryMaxTokens was positive; 'probes': sized by the archived messages' probes. */
  source: 'setting' | 'probes';
  /** Probes the archived messages yield (counted up to what the clamp can use); null for 'setting'. */
  probes: number | null;
}

/**
 * The bound of one summary of `input`: `setting` (splitpoint.summaryMaxTokens) when positive, else
 * base + probes × allowance + the earlier summaries' tokens, within [SUMMARY_MIN_TOKENS,
 * SUMMARY_MAX_TOKENS]; never above `maxOutputTokens` (the session's max_tokens).
 */
export function summaryTokenBound(
  input: Pick<SummarizerInput, 'toSummarize' | 'priorSummaries'>,
  o: { setting: number; maxOutputTokens: number; tokenizer: TextTokenizer },
): SummaryBound {
  if (o.setting > 0) return { tokens: Math.floor(o.setting), source: 'setting', probes: null };
  const probes = generateProbes({ archived: input.toSummarize }, { max: PROBES_COUNTED }).length;
  const prior = priorTokens(input.priorSummaries, o.tokenizer);
  const wanted = SUMMARY_BASE_TOKENS + probes * SUMMARY_TOKENS_PER_PROBE + prior;
  const clamped = Math.min(SUMMARY_MAX_TOKENS, Math.max(SUMMARY_MIN_TOKENS, wanted));
  return { tokens: Math.max(1, Math.min(clamped, o.maxOutputTokens)), source: 'probes', probes };
}

/** The earlier summaries' own text (the artifact ledger after it is the engine's: it is carried without the model restating it). */
function priorTokens(messages: readonly Message[], tokenizer: TextTokenizer): number {
  let n = 0;
  for (const m of messages) {
    const text = textOf(m);
    const ledger = text.indexOf(LEDGER_HEADING);
    n += tokenizer.countText(ledger >= 0 ? text.slice(0, ledger) : text);
  }
  return n;
}
