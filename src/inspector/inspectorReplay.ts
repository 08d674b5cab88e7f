// The inspector's "Replay": `splitpoint replay` on the inspected file under the built-in
// configurations (and the user's settings when they differ from the defaults), as the view the charts
// draw (context tokens per call, compactions, cumulative cost, and the cost / probe-rate frontier).
// The replay yields to the event loop between calls so the host stays responsive while it runs.
import { replaySession, type ImportResult, type ReplayConfig, type ReplayReport } from '../core';
import type { ReplayConfigView, ReplayView, YourSettingsView } from '../protocol';
import { builtinReplayConfigs } from '../settings/replayConfigs';
import { YOUR_SETTINGS, type YourSettings } from '../settings/yourSettings';
import { frontierOf } from './replayFrontier';

/** At most this many points per configuration reach the webview (the chart is a few hundred pixels wide). */
export const MAX_REPLAY_POINTS = 2_000;

/** What the view says of the user's settings (undefined: they were not read). */
export function yourSettingsView(yours: YourSettings | undefined): YourSettingsView {
  if (!yours) return { state: 'unknown', changed: [] };
  return yours.state === 'invalid'
    ? { state: 'invalid', changed: [...yours.changed], error: yours.error }
    : { state: yours.state, changed: [...yours.changed] };
}

function configView(c: ReplayReport['configs'][number]): ReplayConfigView {
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
    probeRecall: c.probeRecall,
    points: points.map((p) => ({
      call: p.call,
      contextTokens: p.contextTokens,
      cumulativeCostUSD: p.cumulativeCostUSD,
      compaction: p.compaction !== undefined,
    })),
  };
}

export function replayView(source: string, report: ReplayReport, yours?: YourSettings): ReplayView {
  const configs = report.configs.map(configView);
  const yourSettings = yourSettingsView(yours);
  return {
    source,
    window: report.window,
    windowSource: report.windowSource,
    recordedCalls: report.recorded?.calls ?? report.configs.reduce((most, c) => Math.max(most, c.calls), 0),
    // Priced as billed: each recorded cache write at its recorded TTL.
    recordedCostUSD: report.recorded?.costUSD ?? null,
    recordedTtl: report.recordedTtl,
    recordedCacheWriteTokens: report.recorded?.cacheWriteTokens ?? null,
    configs,
    frontier: frontierOf(configs, configs.some((c) => c.name === YOUR_SETTINGS) ? YOUR_SETTINGS : null, yourSettings),
    yourSettings,
    warnings: [...report.warnings],
    notes: [
      ...(yours?.state === 'invalid' ? [`your settings were not replayed: ${yours.error}`] : []),
      ...report.configs.flatMap((c) => c.notes.map((n) => `${c.name}: ${n}`)),
    ],
  };
}

/**
 * Replays `result` (the built-ins unless `configs` are given, then `your-settings` when `yours` is a
 * configuration) and returns the charts' view.
 */
export async function runInspectorReplay(
  source: string,
  result: ImportResult,
  options: { configs?: ReplayConfig[]; contextWindow?: number; yours?: YourSettings } = {},
): Promise<ReplayView> {
  const configs = [...(options.configs ?? builtinReplayConfigs())];
  if (options.yours?.state === 'replayed') configs.push(options.yours.config);
  const report = await replaySession(result, configs, {
    ...(options.contextWindow ? { contextWindow: options.contextWindow } : {}),
    yieldEvery: () => new Promise<void>((resolve) => setImmediate(resolve)),
  });
  return replayView(source, report, options.yours);
}
