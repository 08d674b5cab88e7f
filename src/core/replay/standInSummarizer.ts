// The summarizer of a replay. No model is available offline, so the summary is a deterministic
// stand-in of the chosen size (the recording's summary size, or the estimate) written through the
// real summarize(): its prompt is built and pre-trimmed exactly as the agent's would be (that is the
// summary call's input, which the replay prices), and the artifact ledger is appended by the engine
// as for a real summary, so what survives a compaction is what the ledger carries plus filler.
import { SUMMARY_SYSTEM_PROMPT, summarize, type LlmClient, type SummaryResult } from '../pipeline/summarize';
import type { SummarizerInput } from '../pipeline/plan';
import type { TextTokenizer } from '../counting/tokens';

/** What one summary call read and wrote, in raw (tokenizer) tokens. */
export interface SummaryCall {
  /** The standalone prompt's tokens (what the call reads when it cannot reuse the conversation's cache). */
  inputTokens: number;
  outputTokens: number;
  /** The answer is the recording agent's own summary of the same split. */
  recorded: boolean;
  /** The call's max_tokens (the summary's bound), in the model's tokens. */
  maxTokens: number;
}

const FILLER = ['context', 'files', 'changes', 'tests', 'results', 'decisions', 'errors', 'commands', 'progress', 'next', 'steps', 'notes'];

/** Deterministic text of about `tokens` tokens under `tokenizer` (never more). */
/** How every stand-in summary begins: probe scoring finds (and leaves out) the filler by it. */
export const STAND_IN_HEAD = '[Replay stand-in summary: no model ran; this filler has the size of a real summary.]';

export function standInText(tokens: number, tokenizer: TextTokenizer): string {
  const head = STAND_IN_HEAD;
  const words: string[] = [head];
  for (let i = 0; words.length < tokens; i++) words.push(FILLER[i % FILLER.length]);
  let text = words.join(' ');
  // One word is about one token; trim the few the estimate overshoots.
  while (words.length > 1 && tokenizer.countText(text) > tokens) {
    words.splice(-Math.max(1, tokenizer.countText(text) - tokens));
    text = words.join(' ');
  }
  return text;
}

/** A summary the recording agent wrote, and the ids of the messages it replaced. */
export interface RecordedSummary {
  replaced: ReadonlySet<string>;
  text: string;
}

/** Share of the messages to summarize that a recorded summary must have replaced (and of those it replaced) to stand for it. */
export const SAME_SPLIT_OVERLAP = 0.9;

/** The recorded summary written at (about) the same split, if any: its text is what that agent wrote there. */
export function sameSplitSummary(ids: readonly string[], recorded: readonly RecordedSummary[]): RecordedSummary | undefined {
  if (ids.length === 0) return undefined;
  return recorded.find((r) => {
    let shared = 0;
    for (const id of ids) if (r.replaced.has(id)) shared++;
    return shared >= SAME_SPLIT_OVERLAP * ids.length && shared >= SAME_SPLIT_OVERLAP * r.replaced.size;
  });
}

/** Text cut to at most `tokens` tokens under `tokenizer` (whole words). */
function clip(text: string, tokens: number, tokenizer: TextTokenizer): string {
  if (tokenizer.countText(text) <= tokens) return text;
  const words = text.split(/(\s+)/);
  let lo = 0;
  let hi = words.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (tokenizer.countText(words.slice(0, mid).join('')) <= tokens) lo = mid;
    else hi = mid - 1;
  }
  return words.slice(0, lo).join('');
}

/**
 * A summarizer for the pipeline that answers with a stand-in of `summaryTokens` (at most the call's
 * bound) and records each call. `bound` is the call's max_tokens in the model's tokens (summaryBudget.ts)
 * and `factor` the model's tokens per local token, so a stand-in never writes more than max_tokens allows.
 * Where the recording agent summarized (about) the same messages, its own summary is the answer
 * (clipped to the bound): what that agent really kept at that split.
 */
export function standInSummarizer(o: {
  tokenizer: TextTokenizer;
  summaryTokens: number;
  /** The summarizer model's window (the standalone prompt is trimmed to fit it). */
  contextWindow: number;
  bound: (input: SummarizerInput) => number;
  factor: () => number;
  recorded?: readonly RecordedSummary[];
  onCall: (call: SummaryCall) => void;
}): (input: SummarizerInput, focus: string | undefined, signal?: AbortSignal) => Promise<SummaryResult> {
  const fillers = new Map<number, string>();
  const filler = (tokens: number): string => {
    let text = fillers.get(tokens);
    if (text === undefined) fillers.set(tokens, (text = standInText(tokens, o.tokenizer)));
    return text;
  };
  return (input, focus, signal) => {
    const maxTokens = Math.max(1, o.bound(input));
    const cap = Math.max(1, Math.floor(maxTokens / Math.max(o.factor(), 1e-9)));
    const same = sameSplitSummary(
      input.toSummarize.map((m) => m.id),
      o.recorded ?? [],
    );
    const text = same ? clip(same.text, cap, o.tokenizer) : filler(Math.max(1, Math.min(o.summaryTokens, cap)));
    const client: LlmClient = {
      complete: (request) => {
        const prompt = request.messages.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n');
        o.onCall({
          inputTokens: o.tokenizer.countText(SUMMARY_SYSTEM_PROMPT) + o.tokenizer.countText(prompt),
          outputTokens: o.tokenizer.countText(text),
          recorded: same !== undefined,
          maxTokens,
        });
        return Promise.resolve({ text });
      },
    };
    return summarize(input, {
      client,
      tokenizer: o.tokenizer,
      contextWindow: o.contextWindow,
      maxSummaryTokens: maxTokens,
      focus,
      signal,
    });
  };
}
