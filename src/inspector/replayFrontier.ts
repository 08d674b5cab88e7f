// The frontier of a replay (issue 25): every configuration as a point, its cost against its probe
// answerable rate, the shipped default and the user's settings marked. A point is on the frontier when
// no other configuration costs at most as much with at least its rate (and does better in one of the
// two); a configuration that archived nothing has no rate: it is kept apart ("nothing archived"),
// neither at 0 nor at 100%, and is on no frontier.
import type { FrontierPointView, ReplayConfigView, YourSettingsView } from '../protocol';

/** The shipped default's configuration (replay-configs/splitpoint-default.json). */
export const SHIPPED_DEFAULT = 'splitpoint-default';

/** Whether `q` is at least as good as `p` on both axes and better on one. */
function dominates(q: FrontierPointView, p: FrontierPointView): boolean {
  if (q.probeRecall === null || p.probeRecall === null) return false;
  return q.costUSD <= p.costUSD && q.probeRecall >= p.probeRecall && (q.costUSD < p.costUSD || q.probeRecall > p.probeRecall);
}

/**
 * The frontier chart's points, in the configurations' order. `yours` names the user's configuration
 * (`your-settings`), or is null: then the default's point is marked as theirs when `yourSettings` says
 * they are the defaults.
 */
export function frontierOf(
  configs: ReadonlyArray<Pick<ReplayConfigView, 'name' | 'costUSD' | 'probeRecall'>>,
  yours: string | null,
  yourSettings: YourSettingsView,
): FrontierPointView[] {
  const points: FrontierPointView[] = configs.map((c) => {
    const marks: FrontierPointView['marks'] = [];
    if (c.name === SHIPPED_DEFAULT) marks.push('default');
    if (c.name === yours || (yours === null && yourSettings.state === 'default' && c.name === SHIPPED_DEFAULT)) marks.push('yours');
    return { name: c.name, costUSD: c.costUSD, probeRecall: c.probeRecall, onFrontier: false, marks };
  });
  for (const p of points) p.onFrontier = p.probeRecall !== null && !points.some((q) => q !== p && dominates(q, p));
  return points;
}
