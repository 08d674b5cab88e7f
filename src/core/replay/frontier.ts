// The cost/memory frontier (issue 25), one rule for every place that draws or lists it (the inspector's replay
// chart, `splitpoint tune`): a point is on the frontier when no other point costs at most as much and answers at
// least as many probes, and does strictly better on one of the two. Rates within `epsilon` of each other are
// equal (a rate is often a mean over sessions). Points with the same cost and rate are all on it. A point
// without a rate (nothing archived) is on no frontier and beats none.

export interface FrontierAxes<T> {
  cost(point: T): number;
  /** The probe answerable rate; null: nothing archived, no rate. */
  rate(point: T): number | null;
  epsilon?: number;
}

/** Whether each point (in order) is on the frontier. */
export function onFrontier<T>(points: readonly T[], { cost, rate, epsilon = 0 }: FrontierAxes<T>): boolean[] {
  const dominates = (q: T, p: T): boolean => {
    const rq = rate(q);
    const rp = rate(p);
    if (rq === null || rp === null) return false;
    const cq = cost(q);
    const cp = cost(p);
    return cq <= cp && rq >= rp - epsilon && (cq < cp || rq > rp + epsilon);
  };
  return points.map((p) => rate(p) !== null && !points.some((q) => q !== p && dominates(q, p)));
}
