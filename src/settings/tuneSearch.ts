// The search of `splitpoint tune`: coordinate descent over the space (tuneSpace.ts) from the user's
// current settings, each (session, configuration) replay asked of `evaluate` once (the search keeps
// every result). For each dimension in turn, every value of its grid is replayed on every session, and
// the point moves to the cheapest feasible one; passes repeat until one moves nothing (at most maxPasses).
//
// How a configuration is scored over the sessions (written in the output and docs/tune.md):
// - cost: the sum of its replayed costs over the sessions (USD);
// - probe answerable rate: the mean over the sessions of each session's probeRecall, where a session on
//   which it made no compaction (probeRecall null: nothing archived, every fact still in the request)
//   counts 1; stand-in summaries count for nothing in probeRecall (a floor for summarizing strategies);
// - feasible: no session overflowed the window (stoppedAt null on every one) and rate >= target.
import { onFrontier } from '../core';
import { pointId, sameValue, withValue, type TunePoint, type TuneSpace } from './tuneSpace';

/** One replay's figures the search needs (a row of --results has more). */
export interface SessionOutcome {
  costUSD: number;
  probeRecall: number | null;
  stoppedAt: number | null;
  compactions: number;
}

/** A configuration's figures over every session (in the order of the files). */
export interface Scored {
  id: string;
  point: TunePoint;
  sessions: SessionOutcome[];
  costUSD: number;
  rate: number;
  /** Sessions whose replay overflowed the window. */
  overflowed: number;
  /** Sessions on which it compacted at least once. */
  compactedSessions: number;
  feasible: boolean;
}

/** Replays each configuration on every session: id -> outcomes in file order. */
export type Evaluate = (batch: ReadonlyArray<{ id: string; point: TunePoint }>, step: string) => Promise<Map<string, SessionOutcome[]>>;

export const RATE_DEFINITION =
  'probe answerable rate = mean over sessions of probeRecall; a session where the configuration made no compaction ' +
  '(probeRecall null: nothing archived) counts 1; stand-in summaries count for nothing (a floor for summarizing strategies); ' +
  'cost = sum of the replayed costs; a configuration that overflows the window on any session is infeasible';

/** A tiny slack so a rate equal to the target up to float error is feasible. */
const EPSILON = 1e-9;
/** A move must save at least this share of the cost: a setting is not changed for a rounding-size saving. */
export const MIN_SAVING = 0.001;

export function aggregate(id: string, point: TunePoint, sessions: SessionOutcome[], target: number): Scored {
  const costUSD = sessions.reduce((s, o) => s + o.costUSD, 0);
  const rate = sessions.length === 0 ? 1 : sessions.reduce((s, o) => s + (o.probeRecall ?? 1), 0) / sessions.length;
  const overflowed = sessions.filter((o) => o.stoppedAt !== null).length;
  const compactedSessions = sessions.filter((o) => o.compactions > 0).length;
  return { id, point, sessions, costUSD, rate, overflowed, compactedSessions, feasible: overflowed === 0 && rate >= target - EPSILON };
}

/** Better first: feasible before infeasible; feasible by lower cost (by at least MIN_SAVING); infeasible by fewer overflows, higher rate, lower cost. */
export function better(a: Scored, b: Scored): boolean {
  if (a.feasible !== b.feasible) return a.feasible;
  if (a.feasible) return a.costUSD < b.costUSD * (1 - MIN_SAVING) - EPSILON;
  if (a.overflowed !== b.overflowed) return a.overflowed < b.overflowed;
  if (Math.abs(a.rate - b.rate) > EPSILON) return a.rate > b.rate;
  return a.costUSD < b.costUSD - EPSILON;
}

export interface TuneStep {
  dimension: string;
  tried: number;
  /** The value moved to, when the step moved the point. */
  moved: { key: string; from: unknown; to: unknown } | null;
}

export interface TuneSearchResult {
  target: number;
  start: Scored;
  /** The cheapest feasible configuration found (null when none tried is feasible). */
  best: Scored | null;
  /** Every configuration tried, in the order tried. */
  tried: Scored[];
  steps: TuneStep[];
  passes: number;
}

export interface TuneSearchOptions {
  space: TuneSpace;
  start: TunePoint;
  evaluate: Evaluate;
  /** Probe answerable rate to reach; default the start's (the user's current settings). */
  targetRecall?: number;
  /** Passes over the dimensions at most (default 2). */
  maxPasses?: number;
}

export async function tuneSearch(o: TuneSearchOptions): Promise<TuneSearchResult> {
  const outcomes = new Map<string, SessionOutcome[]>();
  const points = new Map<string, TunePoint>();
  const order: string[] = [];
  const run = async (batch: TunePoint[], step: string) => {
    const fresh: Array<{ id: string; point: TunePoint }> = [];
    for (const point of batch) {
      const id = pointId(point);
      if (points.has(id) || fresh.some((f) => f.id === id)) continue;
      fresh.push({ id, point });
    }
    if (fresh.length > 0) {
      const got = await o.evaluate(fresh, step);
      for (const { id, point } of fresh) {
        const sessions = got.get(id);
        if (!sessions) throw new Error(`tune: no result for configuration ${id}`);
        outcomes.set(id, sessions);
        points.set(id, point);
        order.push(id);
      }
    }
  };
  await run([o.start], 'current settings');
  const startId = pointId(o.start);
  const target = o.targetRecall ?? aggregate(startId, o.start, outcomes.get(startId)!, 0).rate;
  const score = (id: string) => aggregate(id, points.get(id)!, outcomes.get(id)!, target);
  let current = score(startId);
  const steps: TuneStep[] = [];
  const maxPasses = o.maxPasses ?? 2;
  let passes = 0;
  for (let pass = 0; pass < maxPasses; pass++) {
    passes++;
    let movedThisPass = false;
    for (const dim of o.space.dimensions) {
      const key = dim.key(current.point);
      if (key === null) continue;
      const candidates = dim.values(current.point).map((v) => withValue(current.point, key, v));
      const before = order.length;
      await run(candidates, dim.name);
      let next = current;
      for (const c of candidates) {
        const s = score(pointId(c));
        if (better(s, next)) next = s;
      }
      const moved = next.id !== current.id ? { key, from: current.point[key], to: next.point[key] } : null;
      steps.push({ dimension: dim.name, tried: order.length - before, moved });
      if (moved && !sameValue(moved.from, moved.to)) movedThisPass = true;
      current = next;
    }
    if (!movedThisPass) break;
  }
  const tried = order.map(score);
  const feasible = tried.filter((t) => t.feasible);
  const best = feasible.reduce<Scored | null>((b, t) => (b === null || better(t, b) ? t : b), null);
  return { target, start: score(startId), best, tried, steps, passes };
}

/** The configurations on the cost/rate frontier (core onFrontier), by cost; only those that overflow nowhere. */
export function frontier(tried: readonly Scored[]): Scored[] {
  const complete = tried.filter((t) => t.overflowed === 0);
  const on = onFrontier(complete, { cost: (t) => t.costUSD, rate: (t) => t.rate, epsilon: EPSILON });
  return complete.filter((_, i) => on[i]).sort((a, b) => a.costUSD - b.costUSD || b.rate - a.rate);
}
