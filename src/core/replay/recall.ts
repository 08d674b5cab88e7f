// Ledger recall: of the file paths and genuine prompts a configuration's compactions archived, the
// fraction still present in the final request (in a kept message, a summary, or the ledger a
// compaction carried). Paths and prompts are found with the ledger's own extraction (extractLedger,
// unbudgeted); a path is present when the request's text contains it, a prompt when the request
// contains its first PROMPT_PROBE_CHARS characters (whitespace collapsed: the ledger clips long prompts).
import { isTurnStart, textOf, toolResultText, type Message, type ToolResultBlock } from '../conversation/conversation';
import { extractLedger } from '../ledger/ledgerExtract';
import type { MessageTokenCounter } from '../counting/tokens';

export const PROMPT_PROBE_CHARS = 200;

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Everything the model reads in these messages, as one searchable string. */
export function requestText(messages: readonly Message[]): string {
  const parts: string[] = [];
  for (const m of messages) {
    if (typeof m.content === 'string') {
      parts.push(m.content);
      continue;
    }
    for (const b of m.content) {
      if (b.type === 'text') parts.push(String(b.text ?? ''));
      else if (b.type === 'tool_use') parts.push(typeof b.input === 'string' ? b.input : JSON.stringify(b.input ?? {}));
      else if (b.type === 'tool_result') parts.push(toolResultText(b as ToolResultBlock));
    }
  }
  return squash(parts.join('\n'));
}

/** The file paths and genuine prompts of `messages` (deduplicated; prompts as their first PROMPT_PROBE_CHARS). */
export function artifactsOf(messages: readonly Message[], counter: MessageTokenCounter): { paths: Set<string>; prompts: Set<string> } {
  const real = messages.filter((m) => m.synthetic === undefined);
  const ledger = extractLedger(real, { budgetTokens: Number.MAX_SAFE_INTEGER, counter });
  const paths = new Set(ledger.files.map((f) => f.path));
  const prompts = new Set(real.filter(isTurnStart).map((m) => squash(textOf(m)).slice(0, PROMPT_PROBE_CHARS)));
  prompts.delete('');
  return { paths, prompts };
}

/** Paths and prompts archived (deduplicated), and how many of them the final request still has. */
export function ledgerRecall(
  archived: readonly Message[],
  finalRequest: readonly Message[],
  counter: MessageTokenCounter,
): { archived: number; found: number; recall: number } {
  const { paths, prompts } = artifactsOf(archived, counter);
  const text = requestText(finalRequest);
  let found = 0;
  for (const p of paths) if (text.includes(p)) found++;
  for (const p of prompts) if (text.includes(p)) found++;
  const total = paths.size + prompts.size;
  return { archived: total, found, recall: total === 0 ? 1 : found / total };
}

/**
 * Of every path and every genuine prompt of the whole session, the fraction the final request still
 * has (in a kept message, a summary or a ledger): what a configuration's own request remembers.
 */
export function sessionRecall(
  artifacts: { paths: ReadonlySet<string>; prompts: ReadonlySet<string> },
  finalRequest: readonly Message[],
): { pathRecall: number; promptRecall: number } {
  const text = requestText(finalRequest);
  const share = (all: ReadonlySet<string>) => {
    if (all.size === 0) return 1;
    let found = 0;
    for (const a of all) if (text.includes(a)) found++;
    return found / all.size;
  };
  return { pathRecall: share(artifacts.paths), promptRecall: share(artifacts.prompts) };
}
