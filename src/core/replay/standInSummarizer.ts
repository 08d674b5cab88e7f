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
  inputTokens: number;
  outputTokens: number;
}

const FILLER = ['context', 'files', 'changes', 'tests', 'results', 'decisions', 'errors', 'commands', 'progress', 'next', 'steps', 'notes'];

/** Deterministic text of about `tokens` tokens under `tokenizer` (never more). */
export function standInText(tokens: number, tokenizer: TextTokenizer): string {
  const head = '[Replay stand-in summary: no model ran; this filler has the size of a real summary.]';
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

/** A summarizer for the pipeline that answers with a stand-in of `summaryTokens` and records each call. */
export function standInSummarizer(o: {
  tokenizer: TextTokenizer;
  summaryTokens: number;
  contextWindow: number;
  maxSummaryTokens: number;
  onCall: (call: SummaryCall) => void;
}): (input: SummarizerInput, focus: string | undefined, signal?: AbortSignal) => Promise<SummaryResult> {
  const size = Math.max(1, Math.min(o.summaryTokens, o.maxSummaryTokens));
  const text = standInText(size, o.tokenizer);
  const client: LlmClient = {
    complete: (request) => {
      const prompt = request.messages.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n');
      o.onCall({
        inputTokens: o.tokenizer.countText(SUMMARY_SYSTEM_PROMPT) + o.tokenizer.countText(prompt),
        outputTokens: o.tokenizer.countText(text),
      });
      return Promise.resolve({ text });
    },
  };
  return (input, focus, signal) =>
    summarize(input, {
      client,
      tokenizer: o.tokenizer,
      contextWindow: o.contextWindow,
      maxSummaryTokens: o.maxSummaryTokens,
      focus,
      signal,
    });
}
