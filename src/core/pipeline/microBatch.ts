// Micro-compaction's batch decision, shared by the pure strategy and the incremental micro-compactor.
//
// Old tool results (all but the `keepRecent` newest) that are worth replacing and come from an
// eligible tool are the candidates; with `supersede`, so are superseded results of any age (they
// become pointers, supersede.ts). They are cleared together, in one batch, when:
//   - they total at least `triggerTokens` (0: always),
//   - clearing them saves at least `clearAtLeast` tokens (0: any saving; the API's clear_at_least),
//   - with `cacheAware` and a known cache state: the saving over the next `horizonTurns` requests
//     (every later request reads the saved tokens from the cache: 0.1x input each) pays for the extra
//     cost of the next request, which re-writes the invalidated cached prefix (1.25x / 2x input).
// Otherwise they are held: the request view (and so the cached prefix) stays as it is. Once cleared,
// a result stays cleared until the history is rewritten.
import type { MessageTokenCounter } from '../counting/tokens';
import type { Message, ToolResultBlock } from '../conversation/conversation';
import { resolveCache, rewriteCost } from '../cost/cacheCost';
import type { PlanContext } from './plan';
import type { MicroCompactDecision } from '../cost/cacheTypes';

export type { MicroCompactDecision } from '../cost/cacheTypes';
import { previousToolPlaceholder, worthReplacing } from '../strategies/common';

export interface MicroCompactSettings {
  /** The newest tool results left intact. */
  keepRecent: number;
  /** Only results longer than this many characters are replaced. */
  minChars: number;
  /** Act only when the eligible old results total at least this many tokens (0 = always). */
  triggerTokens?: number;
  /** Clear only if the batch saves at least this many tokens (0 = any saving). */
  clearAtLeast?: number;
  /** Tool names whose results may be cleared (absent or empty = all tools). */
  tools?: readonly string[];
  /** Weigh the prompt cache: clear only when the batch pays back the re-written prefix within `horizonTurns`. */
  cacheAware?: boolean;
  /** Requests over which a cache-aware batch must pay back (default 10). */
  horizonTurns?: number;
  /**
   * Superseded results (a file read again or edited later, a command re-run: supersede.ts) are
   * candidates whatever their age, replaced by a pointer naming the later call; they join the same batch.
   */
  supersede?: boolean;
}

export const DEFAULT_HORIZON_TURNS = 10;

/** Tools that read, run or search (their old output is re-obtainable): this agent's, Claude Code's and Codex's. */
export const READ_SHELL_SEARCH_TOOLS: readonly string[] = [
  // Splitpoint's agent
  'read_file',
  'run_command',
  'search',
  'list_files',
  // Claude Code
  'Read',
  'Bash',
  'BashOutput',
  'Grep',
  'Glob',
  'LS',
  'WebFetch',
  'WebSearch',
  'NotebookRead',
  // Codex
  'shell',
  'exec_command',
  'write_stdin',
  'local_shell',
  'container.exec',
  'list_dir',
  'grep_files',
];

/** Claude Code's micro-compaction: old read/shell/search results, keep 3, act over 40,000 tokens, save at least 20,000. */
export const CLAUDE_CODE_MICRO_COMPACT: Readonly<MicroCompactSettings> = {
  keepRecent: 3,
  minChars: 0,
  triggerTokens: 40_000,
  clearAtLeast: 20_000,
  tools: READ_SHELL_SEARCH_TOOLS,
  cacheAware: false,
};

/** Is this old result a candidate: worth replacing, and from an eligible tool? */
export function isCandidate(block: ToolResultBlock, names: ReadonlyMap<string, string>, s: MicroCompactSettings): boolean {
  if (s.tools && s.tools.length > 0 && !s.tools.includes(names.get(block.tool_use_id) ?? '')) return false;
  return worthReplacing(block, names, s.minChars);
}

const placeholders = new WeakMap<MessageTokenCounter, Map<string, number>>();

/**
 * Tokens of a result's placeholder as a request carries it (counted once per tool name and counter).
 * A batch's results total its saving plus their placeholders' tokens: counting is additive per block.
 */
export function placeholderTokens(toolName: string, counter: MessageTokenCounter): number {
  let byName = placeholders.get(counter);
  if (!byName) placeholders.set(counter, (byName = new Map()));
  let n = byName.get(toolName);
  if (n === undefined) {
    const block: ToolResultBlock = { type: 'tool_result', tool_use_id: '', content: previousToolPlaceholder(toolName) };
    n = counter.countMessage({ id: '', role: 'user', content: [block] }) - counter.countMessage({ id: '', role: 'user', content: [] });
    byName.set(toolName, n);
  }
  return n;
}

export interface BatchFigures {
  candidates: number;
  clearableTokens: number;
  savedTokens: number;
  /** Tokens of the current request view's messages. */
  viewTokens: number;
  /** Tokens of the view's messages before the batch's first changed message. */
  unchangedPrefixTokens: number;
  /**
   * The superseded results among the candidates (supersede), their tokens and what replacing them by
   * pointers saves. They ride along: triggerTokens and clearAtLeast weigh the other candidates only, so
   * superseded results never start a batch (a prefix re-write) on their own; the payback weighs them all.
   */
  superseded?: { candidates: number; clearableTokens: number; savedTokens: number };
}

export function decideBatch(
  f: BatchFigures,
  s: MicroCompactSettings,
  ctx: PlanContext,
  messages: readonly Message[],
): MicroCompactDecision {
  const base = {
    candidates: f.candidates,
    clearableTokens: f.clearableTokens,
    savedTokens: f.savedTokens,
    triggerTokens: s.triggerTokens ?? 0,
    clearAtLeast: s.clearAtLeast ?? 0,
    cacheAware: s.cacheAware === true,
    horizonTurns: s.horizonTurns ?? DEFAULT_HORIZON_TURNS,
    cache: null,
  };
  if (f.candidates === 0) return { ...base, action: 'none', reason: 'no old tool result to clear' };
  const sup = f.superseded ?? { candidates: 0, clearableTokens: 0, savedTokens: 0 };
  const waiting = sup.candidates === 0 ? '' : ` (${sup.candidates} superseded result${sup.candidates === 1 ? '' : 's'} wait for it)`;
  if (f.candidates === sup.candidates)
    return {
      ...base,
      action: 'held',
      reason: `${sup.candidates} superseded result${sup.candidates === 1 ? '' : 's'} wait for the next batch of old results`,
    };
  if (f.clearableTokens - sup.clearableTokens < base.triggerTokens)
    return {
      ...base,
      action: 'held',
      reason: `eligible old results total ${f.clearableTokens - sup.clearableTokens} tokens, under triggerTokens ${base.triggerTokens}${waiting}`,
    };
  if (f.savedTokens - sup.savedTokens < base.clearAtLeast)
    return {
      ...base,
      action: 'held',
      reason: `clearing would save ${f.savedTokens - sup.savedTokens} tokens, under clearAtLeast ${base.clearAtLeast}${waiting}`,
    };
  if (!base.cacheAware || !ctx.cache) return { ...base, action: 'cleared', reason: clearedReason(f) };
  const overhead = ctx.overheadTokens ?? 0;
  const c = rewriteCost(
    { before: overhead + f.viewTokens, after: overhead + f.viewTokens - f.savedTokens, commonPrefix: overhead + f.unchangedPrefixTokens },
    resolveCache(messages, ctx),
  );
  const cache = {
    cachedPrefixTokens: c.cachedPrefixTokens,
    invalidatedCachedTokens: c.invalidatedCachedTokens,
    costNowUSD: c.nextRequestUSD.after - c.nextRequestUSD.before,
    savingPerTurnUSD: c.savingPerTurnUSD,
    paybackTurns: c.paybackTurns,
  };
  const pays = c.paybackTurns !== null && c.paybackTurns <= base.horizonTurns;
  const payback = c.paybackTurns === null ? 'never pays back' : `pays back in ${c.paybackTurns} turn${c.paybackTurns === 1 ? '' : 's'}`;
  const reason =
    `${pays ? clearedReason(f) : `held ${f.candidates} old result${f.candidates === 1 ? '' : 's'} (${f.savedTokens} tokens)`}: ` +
    `re-writes ${c.invalidatedCachedTokens} of ${c.cachedPrefixTokens} cached tokens, ${payback}` +
    `${pays ? '' : ` (horizon ${base.horizonTurns} turns)`}`;
  return { ...base, cache, action: pays ? 'cleared' : 'held', reason };
}

function clearedReason(f: BatchFigures): string {
  return `cleared ${f.candidates} old tool result${f.candidates === 1 ? '' : 's'} in one batch, saving ${f.savedTokens} tokens`;
}

/** The decision as a plan note, with its numbers. */
export function decisionNote(d: MicroCompactDecision): string {
  if (!d.cache) return d.reason;
  const usd = (n: number) => `$${n.toFixed(4)}`;
  const now = `${d.cache.costNowUSD >= 0 ? '+' : '-'}${usd(Math.abs(d.cache.costNowUSD))}`;
  return `${d.reason}; next request ${now}, then ${usd(d.cache.savingPerTurnUSD)} saved per turn`;
}
