// The plan context the pipeline plans with: the session's pins and the ledger of the compaction in effect.
import { compactionInEffect } from './compactionHistory';
import { parseLedger } from '../ledger/ledgerMerge';
import type { PlanContext } from './plan';
import type { CompactionRecord } from '../session/session';

/**
 * With the ledger on (the hosts' plan context), every compaction carries it, merged with the ledger of
 * the compaction the history comes from, so it accumulates (a wrong-shaped stored ledger is ignored).
 */
export function withLedger(ctx: PlanContext, compactions: readonly CompactionRecord[]): PlanContext {
  if (!ctx.ledger || ctx.previousLedger) return ctx;
  const previousLedger = parseLedger(compactionInEffect(compactions)?.ledger);
  return previousLedger ? { ...ctx, previousLedger } : ctx;
}

/** Pins persist with the session: every plan (preview, manual, auto) respects them. */
export function withSessionPins(ctx: PlanContext, pinned: ReadonlySet<string>): PlanContext {
  if (pinned.size === 0 || ctx.pinnedIds !== undefined) return ctx;
  return { ...ctx, pinnedIds: pinned };
}
