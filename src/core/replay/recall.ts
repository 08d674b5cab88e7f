// Ledger recall: of the file paths and genuine prompts a configuration's compactions archived, the
// fraction still present in the final request (in a kept message, a summary, or the ledger a
// compaction carried). Paths and prompts are found with the ledger's own extraction (extractLedger,
// unbudgeted); a path is present when the request's text contains it, a prompt when the request
// contains its first PROMPT_PROBE_CHARS characters (whitespace collapsed: the ledger clips long prompts).
import { isTurnStart, textOf, toolResultText, type Message, type ToolResultBlock } from '../conversation/conversation';
import { extractLedger, oneLine } from '../ledger/ledgerExtract';
import type { MessageTokenCounter } from '../counting/tokens';

export const PROMPT_PROBE_CHARS = 200;

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
  return oneLine(parts.join('\n'));
}

/** The file paths and genuine prompts of `messages` (deduplicated; prompts as their first PROMPT_PROBE_CHARS). */
export function artifactsOf(messages: readonly Message[], counter: MessageTokenCounter): { paths: Set<string>; prompts: Set<string> } {
  const real = messages.filter((m) => m.synthetic === undefined);
  const ledger = extractLedger(real, { budgetTokens: Number.MAX_SAFE_INTEGER, counter });
  const paths = new Set(ledger.files.map((f) => f.path));
  const prompts = new Set(real.filter(isTurnStart).map((m) => oneLine(textOf(m)).slice(0, PROMPT_PROBE_CHARS)));
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
 * The folder every absolute path of `paths` lies in (the workspace, in practice), with its trailing
 * slash; '' when they share none deeper than the root. A summary names files relative to it.
 */
export function commonFolder(paths: Iterable<string>): string {
  let common: string[] | null = null;
  for (const p of paths) {
    if (!p.startsWith('/')) continue;
    const parts = p.split('/').slice(0, -1);
    if (common === null) common = parts;
    else {
      let i = 0;
      while (i < common.length && i < parts.length && common[i] === parts[i]) i++;
      common = common.slice(0, i);
    }
  }
  return common !== null && common.length > 2 ? `${common.join('/')}/` : '';
}

/**
 * Of every path and every genuine prompt of the whole session, the fraction the final request still
 * has (in a kept message, a summary or a ledger): what a configuration's own request remembers. A path
 * counts as named in its full form or relative to the session's common folder (summaries write
 * `src/app.ts` for `/home/me/project/src/app.ts`).
 */
export function sessionRecall(
  artifacts: { paths: ReadonlySet<string>; prompts: ReadonlySet<string> },
  finalRequest: readonly Message[],
): { pathRecall: number; promptRecall: number } {
  const text = requestText(finalRequest);
  const root = commonFolder(artifacts.paths);
  const named = (p: string) =>
    text.includes(p) || (root !== '' && p.startsWith(root) && p.length > root.length && text.includes(p.slice(root.length)));
  const share = (all: ReadonlySet<string>, found: (a: string) => boolean) => {
    if (all.size === 0) return 1;
    let n = 0;
    for (const a of all) if (found(a)) n++;
    return n / all.size;
  };
  // A prompt still sent as its own turn is there without searching (a long session keeps thousands).
  const kept = new Set(finalRequest.filter(isTurnStart).map((m) => oneLine(textOf(m)).slice(0, PROMPT_PROBE_CHARS)));
  return { pathRecall: share(artifacts.paths, named), promptRecall: share(artifacts.prompts, (p) => kept.has(p) || text.includes(p)) };
}
