// Probes in the inspector (issue 22): every plan preview carries the answerable rate of what it would
// archive (scorePlan: the probes scored on the request the plan leaves), and each compaction a
// recording's agent made carries the rate of what it archived, scored on what the recording kept
// (recordedCompactionProbes). Tokens, cost and the answerable rate side by side.
import {
  recordedCompactionProbesSteps,
  runSteps,
  scorePlanSteps,
  scoreProbes,
  type Steps,
  type CompactionPlan,
  type ImportResult,
  type Message,
  type ProbeScore,
} from '../core';
import type { ProbeScoreView } from '../protocol';

/** The webview's copy of a score: counts, rates by kind, and every probe (plain data, no shared references). */
export function probeScoreView(score: ProbeScore, summaryCounted: boolean): ProbeScoreView {
  const probes = score.probes.map((p) => ({ ...p, expected: [...p.expected], sources: [...p.sources] }));
  return {
    answerable: probes.filter((p) => p.answerable).length,
    total: probes.length,
    recall: score.recall,
    recallByKind: { ...score.recallByKind },
    summaryCounted,
    probes,
  };
}

/**
 * The probes of what `plan` archives of `history`, scored on the request it leaves; undefined for a no-op
 * plan. `view`: what the model would see of the plan's output (the live session's micro-compacted view),
 * when that is not the output itself: a result micro-compaction clears answers nothing.
 */
export function planProbeView(
  history: readonly Message[],
  plan: CompactionPlan,
  view?: (output: readonly Message[]) => readonly Message[],
): ProbeScoreView | undefined {
  return runSteps(planProbeViewSteps(history, plan, view));
}

/** planProbeView, yielding between slices of its passes over the history (scorePlanSteps). */
export function* planProbeViewSteps(
  history: readonly Message[],
  plan: CompactionPlan,
  view?: (output: readonly Message[]) => readonly Message[],
): Steps<ProbeScoreView | undefined> {
  if (plan.noop || plan.archived.length === 0) return undefined;
  const { probes, score, summaryCounted } = yield* scorePlanSteps(history, plan);
  return probeScoreView(view ? scoreProbes(probes, view(plan.output)) : score, summaryCounted);
}

interface RecordedView {
  previousSummary: readonly Message[] | undefined;
  summary: readonly Message[];
  after: readonly Message[];
  view: ProbeScoreView;
}

/**
 * Views already scored, by the archived context they are of. A followed session is imported again as it
 * grows; the compactions before the last keep their message lists (the follower finishes a stretch once),
 * so only the last compaction (whose later conversation grows) is scored again.
 */
const recordedViews = new WeakMap<readonly Message[], RecordedView>();

/** Each recorded compaction's probes (index k: compaction k + 1), scored on what the recording kept. */
export function recordedProbeViews(result: Pick<ImportResult, 'messages' | 'compactions'>): ProbeScoreView[] {
  return runSteps(recordedProbeViewsSteps(result));
}

/** recordedProbeViews, yielding between slices of each probe generation (a recording's counted view is prepared so). */
export function* recordedProbeViewsSteps(result: Pick<ImportResult, 'messages' | 'compactions'>): Steps<ProbeScoreView[]> {
  const cs = result.compactions;
  const views: ProbeScoreView[] = [];
  for (let k = 0; k < cs.length; k++) {
    const c = cs[k];
    const previousSummary = k === 0 ? undefined : cs[k - 1].summary;
    const after = k + 1 < cs.length ? cs[k + 1].before : result.messages;
    const known = recordedViews.get(c.before);
    if (known && known.previousSummary === previousSummary && known.summary === c.summary && known.after === after) {
      views.push(known.view);
      continue;
    }
    const view = probeScoreView((yield* recordedCompactionProbesSteps(result, k + 1)).score, true);
    recordedViews.set(c.before, { previousSummary, summary: c.summary, after, view });
    views.push(view);
  }
  return views;
}
