// The inspector's views of the engine's strategies, plans, compaction records and ledgers.
import { STRATEGIES, type ArtifactLedger, type CompactionPlan, type CompactionRecord, type StrategyDefinition } from '../core';
import type { CompactionView, LedgerView, PlanView, StrategyView } from '../protocol';

export function compactionView(r: CompactionRecord): CompactionView {
  return {
    id: r.id,
    at: r.at,
    strategy: r.strategy,
    trigger: r.trigger,
    tokensBefore: r.tokensBefore,
    tokensAfter: r.tokensAfter,
    archivedCount: r.archivedCount,
    transcriptPath: r.transcriptPath,
    ...(r.focus ? { focus: r.focus } : {}),
    ...(r.draft !== undefined ? { draft: r.draft } : {}),
    ...(r.finalText !== undefined ? { finalText: r.finalText } : {}),
    // The ledger it carried, and the summary row that shows it.
    ...(r.ledger ? { ledger: ledgerView(r.ledger), ...(r.syntheticId ? { syntheticId: r.syntheticId } : {}) } : {}),
  };
}

/** Every registered strategy with its parameters, valued from `overrides` where they are valid. */
/** Per-strategy parameter values the user set (from the settings), by strategy name. */
export type StrategyParamOverrides = Readonly<Record<string, Readonly<Record<string, number>> | undefined>>;

export function strategyViews(overrides: StrategyParamOverrides = {}): StrategyView[] {
  return STRATEGIES.map((def) => strategyView(def, overrides[def.name] ?? {}));
}

function strategyView(def: StrategyDefinition, values: Readonly<Record<string, number>>): StrategyView {
  return {
    name: def.name,
    title: def.title,
    description: def.description,
    usesSummarizer: def.usesSummarizer,
    params: def.params.map((p) => {
      const v = values[p.name];
      const ok = typeof v === 'number' && Number.isFinite(v) && v >= p.min && v <= p.max && (!p.integer || Number.isInteger(v));
      return { name: p.name, description: p.description, value: ok ? v : p.default, min: p.min, max: p.max, integer: p.integer };
    }),
  };
}

/** The webview's picture of a plan: ids instead of messages, and the figures its summary shows. */
export function planToView(plan: CompactionPlan, requestId: number, computeMs: number): PlanView {
  const s = plan.summarizerInput;
  return {
    requestId,
    strategy: plan.strategy,
    params: { ...plan.params },
    noop: plan.noop,
    notes: [...plan.notes],
    splitIndex: plan.splitIndex,
    tailStartId: plan.tailStartId,
    archivedIds: plan.archived.map((e) => e.id),
    keptIds: plan.kept.map((e) => e.id),
    truncated: plan.truncated.map((t) => ({ id: t.id, tokens: t.tokens, originalTokens: t.originalTokens })),
    tokensBefore: plan.tokensBefore,
    tokensAfter: plan.tokensAfter,
    needsSummary: plan.needsSummary,
    summarizerInputTokens: s?.tokens ?? 0,
    summarizerInputMessages: s ? s.priorSummaries.length + s.toSummarize.length + s.overlap.length : 0,
    computeMs: Math.round(Math.max(0, computeMs) * 10) / 10,
    ...(plan.pinned ? { pinned: [...plan.pinned], pinnedTokens: plan.pinnedTokens ?? 0 } : {}),
    ...(plan.ledger !== undefined ? { ledger: plan.ledger && ledgerView(plan.ledger) } : {}),
    ...(plan.lost !== undefined
      ? { lost: plan.lost && { ...ledgerView(plan.lost), images: plan.lost.images, thinkingBlocks: plan.lost.thinkingBlocks } }
      : {}),
    ...(plan.cost ? { cost: { ...plan.cost, nextRequestUSD: { ...plan.cost.nextRequestUSD } } } : {}),
    ...(plan.microCompaction
      ? { microCompaction: { ...plan.microCompaction, cache: plan.microCompaction.cache && { ...plan.microCompaction.cache } } }
      : {}),
  };
}

/** A copy of the engine's ledger for the webview (plain data, no shared references). */
function ledgerView(l: ArtifactLedger): LedgerView {
  const view: LedgerView = {
    files: l.files.map((f) => ({ path: f.path, read: f.read, edited: f.edited, created: f.created, lastAction: f.lastAction })),
    commands: l.commands.map((c) => ({
      command: c.command,
      exitCode: c.exitCode,
      ...(c.runs !== undefined && c.runs > 1 ? { runs: c.runs } : {}),
    })),
    errors: l.errors.map((e) => ({ text: e.text, resolved: e.resolved })),
    instructions: [...l.instructions],
  };
  if (l.facts && l.facts.length > 0) view.facts = [...l.facts];
  if (l.names && l.names.length > 0) view.names = [...l.names];
  if (l.folded) view.folded = { ...l.folded };
  return view;
}
