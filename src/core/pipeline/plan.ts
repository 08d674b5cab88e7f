// CompactionPlan: the one artifact every strategy produces. `plan()` is pure (what preview shows);
// `applyPlan()` yields the new message list (filling the summary slot for LLM strategies).
import type { CacheState, PlanCost } from '../cost/cacheTypes';
import type { ArtifactLedger, LossReport } from '../ledger/ledger';
import type { MicroCompactDecision } from '../cost/cacheTypes';
import { kindOf, newMessageId, type Message, type MessageKind } from '../conversation/conversation';
import { SplitpointError } from '../base/errors';
import type { ReplacementCache } from './replacementCache';
import type { ServerContextOptions } from './serverContextTypes';
import type { MessageTokenCounter } from '../counting/tokens';
import { countRun, prepFor, type PlanPrep } from './planPrep';

export interface PlanEntry {
  id: string;
  /** Index in the input message list. */
  index: number;
  kind: MessageKind;
  tokens: number;
}

export interface TruncatedEntry extends PlanEntry {
  /** Tokens of the message before truncation (`tokens` is after). */
  originalTokens: number;
  toolNames: string[];
}

/** What the summarizer will be asked to condense (LLM strategies only). */
export interface SummarizerInput {
  /** Prior synthetic summaries, fed back as `=== PRIOR SUMMARY ===`. */
  priorSummaries: Message[];
  /** The real messages that collapse into the new summary. */
  toSummarize: Message[];
  /** Messages from the kept window included for context only. */
  overlap: Message[];
  tokens: number;
  /** The plan's artifact ledger: shown to the summarizer and appended to the summary it writes. */
  ledger?: ArtifactLedger | null;
}

export interface CompactionPlan {
  strategy: string;
  params: Record<string, number>;
  /** True when applying would change nothing. */
  noop: boolean;
  /** Why the plan is a no-op, or notes about compromises the strategy had to make. */
  notes: string[];
  /** Position on the input timeline where the summary / cut sits (0..input.length). */
  splitIndex: number;
  /** Id of the first preserved message of the tail (null for a no-op on an empty conversation). */
  tailStartId: string | null;
  kept: PlanEntry[];
  archived: PlanEntry[];
  truncated: TruncatedEntry[];
  /** LLM strategies: the summary slot in `output` must be filled by `applyPlan`. */
  needsSummary: boolean;
  summarizerInput: SummarizerInput | null;
  tokensBefore: number;
  /** Tokens of `output`; for LLM strategies the summary slot counts as `summaryTokensEstimate`. */
  tokensAfter: number;
  summaryTokensEstimate: number;
  /** The resulting message list. For LLM strategies the summary message holds placeholder text. */
  output: Message[];
  /** Index in `output` of the synthetic summary or placeholder opener written by this plan, if any. */
  syntheticIndex: number | null;
  /**
   * The request this plan leaves (`tokensAfter` + the context's overhead) fits the window with room for
   * the answer: `tokensAfter <= requestBudget(ctx)`. Only micro-compact may return false (with a note).
   */
  fitsWindow: boolean;
  /** Ids kept verbatim because they are pinned (in their original order, before the tail). */
  pinned?: string[];
  /** Tokens of the pinned messages, counted against every budget. */
  pinnedTokens?: number;
  /** The artifact ledger of what this plan archives, merged with the previous compaction's. */
  ledger?: ArtifactLedger | null;
  /** What leaves the model's view without surviving anywhere in the new context. */
  lost?: LossReport | null;
  /** What the plan costs with the prompt cache (every plan resolved through the registry carries it). */
  cost?: PlanCost;
  /** Micro-compaction only: the batch decision (cleared or held) with its numbers. */
  microCompaction?: MicroCompactDecision;
}

/** Options every strategy receives besides its own parameters. */
export interface PlanContext {
  tokens: MessageTokenCounter;
  /** The model's context window, in tokens. */
  contextWindow: number;
  /** Tokens reserved for the model's answer (usable context = window - this). */
  maxOutputTokens: number;
  /** Budget for a generated summary, used in `tokensAfter` estimates. */
  summaryMaxTokens: number;
  /** Optional per-session cache of micro-compacted copies (keeps repeated plans cheap). */
  copies?: ReplacementCache;
  /** Tokens every request carries outside the messages (system prompt, tool definitions); default 0. */
  overheadTokens?: number;
  /** Pinned message ids: survive every strategy verbatim (a tool_use/tool_result partner is pinned too). */
  pinnedIds?: ReadonlySet<string>;
  /** Set by the engine while a strategy plans around pins: their tokens (already in `overheadTokens`). */
  pinnedTokens?: number;
  /** The ledger carried by the previous compaction, to merge with (it accumulates). */
  previousLedger?: ArtifactLedger;
  /** Carry the artifact ledger (and the loss report) in every plan that archives; the hosts turn it on. */
  ledger?: boolean;
  /** The split-at strategy: the id of the message to compact everything before (a string, so not a numeric param). */
  splitAtId?: string;
  /** What the last model call left in the prompt cache (cache read + write tokens); absent: unknown. */
  cache?: CacheState;
  /** The model the requests go to (prices the plan's cost); `cache.model` wins. Absent: the default price. */
  model?: string;
  /** Micro-compaction: tool_use_ids the live request view has already replaced (the batches so far). */
  microCleared?: ReadonlySet<string>;
  /** Of `microCleared`, the results the live view replaced by a superseded pointer (microCompact.supersede). */
  microPointers?: ReadonlySet<string>;
  /** Micro-compaction: the tool names whose results may be cleared (a list, so not a numeric param); absent/empty: all. */
  microCompactTools?: readonly string[];
  /** The server strategies' options that are not numbers (exclude_tools, instructions), from the settings. */
  serverContext?: ServerContextOptions;
}

/** Tokens the messages of a request may take: window - answer reserve - overhead (never negative). */
export function requestBudget(ctx: Pick<PlanContext, 'contextWindow' | 'maxOutputTokens' | 'overheadTokens'>): number {
  return Math.max(0, ctx.contextWindow - ctx.maxOutputTokens - (ctx.overheadTokens ?? 0));
}

export const DEFAULT_PLAN_CONTEXT = {
  contextWindow: 200_000,
  maxOutputTokens: 8_192,
  summaryMaxTokens: 2_000,
} as const;

export const SUMMARY_PENDING_TEXT = '[Earlier context compacted: summary pending]';

export function summaryHeader(archivedCount: number, transcriptPath?: string): string {
  const where = transcriptPath ? ` Full history: ${transcriptPath}` : '';
  return `[Earlier context compacted: ${archivedCount} message${archivedCount === 1 ? '' : 's'} summarized below.${where}]`;
}

export function placeholderText(archivedCount: number, transcriptPath?: string): string {
  const where = transcriptPath ? ` (full history: ${transcriptPath})` : '';
  return `[Earlier context compacted: ${archivedCount} earlier message${archivedCount === 1 ? '' : 's'} archived${where}.]`;
}

export function syntheticMessage(kind: 'summary' | 'placeholder', text: string): Message {
  return { id: newMessageId(kind === 'summary' ? 'sum' : 'ph'), role: 'user', content: text, synthetic: kind, createdAt: Date.now() };
}

export interface FinalizeArgs {
  strategy: string;
  params: Record<string, number>;
  input: readonly Message[];
  output: Message[];
  ctx: PlanContext;
  splitIndex: number;
  tailStartId: string | null;
  needsSummary: boolean;
  summarizerInput?: Omit<SummarizerInput, 'tokens'> | null;
  syntheticIndex: number | null;
  notes?: string[];
}

/** Derive kept / archived / truncated and the token figures from an input and an output list. */
export function finalizePlan(a: FinalizeArgs): CompactionPlan {
  const { input, output, ctx } = a;
  // A prepared input (planPrep.ts) has each message's count and entry ready: the same entries, no pass.
  const prep = prepFor(input, ctx.tokens);
  const { kept, archived, truncated, tokensBefore } =
    (prep && preparedEntries(prep, output, ctx.tokens)) ?? planEntries(input, output, ctx);
  const summaryTokensEstimate = a.needsSummary ? ctx.summaryMaxTokens : 0;
  let tokensAfter = 0;
  output.forEach((m, i) => {
    tokensAfter += a.needsSummary && i === a.syntheticIndex ? summaryTokensEstimate : ctx.tokens.countMessage(m);
  });
  const noop = output.length === input.length && output.every((m, i) => m === input[i]);
  // A compaction never increases the tokens it was asked to reduce; a summary must also save some.
  // Micro-compact is exempt: it replaces only results longer than their placeholder (worthReplacing),
  // a per-result rule the incremental micro-compactor applies identically turn by turn.
  const mayGrow = a.strategy === 'micro-compact';
  if (!noop && !mayGrow && (tokensAfter > tokensBefore || (a.needsSummary && tokensAfter >= tokensBefore))) {
    const what = a.needsSummary ? ` with a ~${summaryTokensEstimate}-token summary` : '';
    return noopPlan(a.strategy, a.params, input, ctx, `would not save tokens (${tokensBefore} -> ${tokensAfter}${what}): left unchanged`);
  }
  let summarizerInput: SummarizerInput | null = null;
  if (a.summarizerInput) {
    const s = a.summarizerInput;
    summarizerInput = {
      ...s,
      tokens: countRun(ctx.tokens, s.priorSummaries) + countRun(ctx.tokens, s.toSummarize) + countRun(ctx.tokens, s.overlap),
    };
  }
  return {
    strategy: a.strategy,
    params: a.params,
    noop,
    notes: a.notes ?? [],
    splitIndex: a.splitIndex,
    tailStartId: a.tailStartId,
    kept,
    archived,
    truncated,
    needsSummary: a.needsSummary && !noop,
    summarizerInput: noop ? null : summarizerInput,
    tokensBefore,
    tokensAfter: noop ? tokensBefore : tokensAfter,
    summaryTokensEstimate: noop ? 0 : summaryTokensEstimate,
    output: noop ? [...input] : output,
    syntheticIndex: noop ? null : a.syntheticIndex,
    fitsWindow: (noop ? tokensBefore : tokensAfter) <= requestBudget(ctx),
  };
}

/** Each input message's entry: kept (its id is in the output), truncated too (kept as another object), or archived. */
function planEntries(input: readonly Message[], output: readonly Message[], ctx: PlanContext): PlanEntries {
  const outById = new Map<string, Message>();
  for (const m of output) outById.set(m.id, m);
  const kept: PlanEntry[] = [];
  const archived: PlanEntry[] = [];
  const truncated: TruncatedEntry[] = [];
  let tokensBefore = 0;
  input.forEach((m, index) => {
    const original = ctx.tokens.countMessage(m);
    tokensBefore += original;
    const out = outById.get(m.id);
    if (!out) {
      archived.push({ id: m.id, index, kind: kindOf(m), tokens: original });
      return;
    }
    const tokens = out === m ? original : ctx.tokens.countMessage(out);
    kept.push({ id: m.id, index, kind: kindOf(m), tokens });
    if (out !== m) {
      truncated.push({
        id: m.id,
        index,
        kind: kindOf(m),
        tokens,
        originalTokens: original,
        toolNames: out.truncated?.results.map((r) => r.toolName) ?? [],
      });
    }
  });
  return { kept, archived, truncated, tokensBefore };
}

interface PlanEntries {
  kept: PlanEntry[];
  archived: PlanEntry[];
  truncated: TruncatedEntry[];
  tokensBefore: number;
}

/**
 * finalizePlan's entries (an input message whose id is in the output is kept, else archived; kept as a
 * different object, it is truncated) from the prep: only the output's messages are looked at, the input's
 * are the prepared entries. Undefined (finalizePlan then takes the general pass) when ids repeat.
 */
function preparedEntries(prep: PlanPrep, output: readonly Message[], counter: MessageTokenCounter): PlanEntries | undefined {
  if (!prep.uniqueIds || !prep.integral) return undefined;
  const n = prep.input.length;
  if (output.length === n && output.every((m, i) => m === prep.input[i]))
    return { kept: prep.entries.slice(), archived: [], truncated: [], tokensBefore: prep.prefix[n] };
  // As finalizePlan's id map: the last output message with an id is the one its input message became.
  const outAt = new Array<Message | undefined>(n);
  const keptAt: number[] = [];
  for (const o of output) {
    const i = prep.indexOfId.get(o.id);
    if (i === undefined) continue;
    if (outAt[i] === undefined) keptAt.push(i);
    outAt[i] = o;
  }
  // Outputs keep the input's order, but pins and leading synthetics may not: sort only when needed.
  if (keptAt.some((x, k) => k > 0 && x < keptAt[k - 1])) keptAt.sort((a, b) => a - b);
  const kept: PlanEntry[] = [];
  const truncated: TruncatedEntry[] = [];
  // What lies between kept messages is archived: runs of the prepared entries (copied, not walked).
  const runs: PlanEntry[][] = [];
  let from = 0;
  for (const index of keptAt) {
    if (index > from) runs.push(prep.entries.slice(from, index));
    from = index + 1;
    const out = outAt[index]!;
    const e = prep.entries[index];
    if (out === prep.input[index]) kept.push(e);
    else {
      const tokens = counter.countMessage(out);
      kept.push({ id: e.id, index, kind: e.kind, tokens });
      const toolNames = out.truncated?.results.map((r) => r.toolName) ?? [];
      truncated.push({ id: e.id, index, kind: e.kind, tokens, originalTokens: e.tokens, toolNames });
    }
  }
  if (n > from) runs.push(prep.entries.slice(from, n));
  return { kept, archived: joined(runs), truncated, tokensBefore: prep.prefix[n] };
}

/** The runs one after the other: one concat (copies) while its argument list stays short, else pushes. */
function joined(runs: PlanEntry[][]): PlanEntry[] {
  if (runs.length === 0) return [];
  if (runs.length <= 4_096) return runs[0].concat(...runs.slice(1));
  const out: PlanEntry[] = [];
  for (const run of runs) for (const e of run) out.push(e);
  return out;
}

/** A plan that changes nothing, with the reason. */
export function noopPlan(
  strategy: string,
  params: Record<string, number>,
  input: readonly Message[],
  ctx: PlanContext,
  reason: string,
): CompactionPlan {
  return finalizePlan({
    strategy,
    params,
    input,
    output: [...input],
    ctx,
    splitIndex: 0,
    tailStartId: input[0]?.id ?? null,
    needsSummary: false,
    syntheticIndex: null,
    notes: [reason],
  });
}

export class MissingSummaryError extends SplitpointError {
  constructor(strategy: string) {
    super(`Strategy "${strategy}" needs a summary: the plan has a summary slot and no summary text was given.`);
    this.name = 'MissingSummaryError';
  }
}

export interface ApplyOptions {
  /** The generated summary (required when `plan.needsSummary`). */
  summary?: string;
  /** Where the full history was saved, mentioned in the summary header / placeholder. */
  transcriptPath?: string;
}

/** The new message list for a plan: fills the summary slot (or the placeholder's transcript note). */
export function applyPlan(plan: CompactionPlan, options: ApplyOptions = {}): Message[] {
  if (plan.noop) return [...plan.output];
  const output = [...plan.output];
  if (plan.syntheticIndex === null) return output;
  const slot = output[plan.syntheticIndex];
  const archivedCount = plan.archived.length;
  if (plan.needsSummary) {
    const summary = options.summary?.trim();
    if (!summary) throw new MissingSummaryError(plan.strategy);
    output[plan.syntheticIndex] = { ...slot, content: `${summaryHeader(archivedCount, options.transcriptPath)}\n\n${summary}` };
  } else if (options.transcriptPath && slot.synthetic === 'placeholder') {
    // The opener keeps what follows its first line (the artifact ledger).
    const head = placeholderText(archivedCount);
    const rest = typeof slot.content === 'string' && slot.content.startsWith(head) ? slot.content.slice(head.length) : '';
    output[plan.syntheticIndex] = { ...slot, content: placeholderText(archivedCount, options.transcriptPath) + rest };
  }
  return output;
}
