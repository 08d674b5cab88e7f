// The inspector's "Replay": `splitpoint replay` on the inspected file under the built-in
// configurations, as the view the chart draws (context tokens per call, compactions, cumulative cost).
// The replay yields to the event loop between calls so the host stays responsive while it runs.
import { replaySession, type ImportResult, type ReplayConfig, type ReplayReport } from '../core';
import type { ReplayView } from '../protocol';
import { builtinReplayConfigs } from '../settings/replayConfigs';

/** At most this many points per configuration reach the webview (the chart is a few hundred pixels wide). */
export const MAX_REPLAY_POINTS = 2_000;

export function replayView(source: string, report: ReplayReport): ReplayView {
  return {
    source,
    window: report.window,
    windowSource: report.windowSource,
    recordedCalls: report.recorded?.calls ?? report.configs.reduce((most, c) => Math.max(most, c.calls), 0),
    // Priced as billed: each recorded cache write at its recorded TTL.
    recordedCostUSD: report.recorded?.costUSD ?? null,
    recordedTtl: report.recordedTtl,
    recordedCacheWriteTokens: report.recorded?.cacheWriteTokens ?? null,
    configs: report.configs.map((c) => {
      const step = Math.max(1, Math.ceil(c.points.length / MAX_REPLAY_POINTS));
      // Thinned evenly, but every compaction and the last call are kept.
      const points = c.points.filter((p, i) => i % step === 0 || p.compaction !== undefined || i === c.points.length - 1);
      return {
        name: c.name,
        calls: c.calls,
        compactions: c.compactions,
        peakContextTokens: c.peakContextTokens,
        costUSD: c.costUSD,
        pathRecall: c.pathRecall,
        promptRecall: c.promptRecall,
        ledgerRecall: c.ledgerRecall,
        costErrorVsRecorded: c.costErrorVsRecorded,
        stoppedAt: c.stoppedAt,
        points: points.map((p) => ({
          call: p.call,
          contextTokens: p.contextTokens,
          cumulativeCostUSD: p.cumulativeCostUSD,
          compaction: p.compaction !== undefined,
        })),
      };
    }),
    warnings: [...report.warnings],
    notes: report.configs.flatMap((c) => c.notes.map((n) => `${c.name}: ${n}`)),
  };
}

/** Replays `result` (the built-ins unless `configs` are given) and returns the chart's view. */
export async function runInspectorReplay(
  source: string,
  result: ImportResult,
  options: { configs?: ReplayConfig[]; contextWindow?: number } = {},
): Promise<ReplayView> {
  const report = await replaySession(result, options.configs ?? builtinReplayConfigs(), {
    ...(options.contextWindow ? { contextWindow: options.contextWindow } : {}),
    yieldEvery: () => new Promise<void>((resolve) => setImmediate(resolve)),
  });
  return replayView(source, report);
}
