// The frontier of a replay (issue 25): every configuration as a point, its cost against its probe
// answerable rate, the shipped default and the user's settings marked. A point is on the frontier when
// no other configuration costs at most as much with at least its rate (and does better in one of the
// two); a configuration that archived nothing has no rate: it is kept apart ("nothing archived"),
// neither at 0 nor at 100%, and is on no frontier (the rule is core/replay/frontier.ts, as `splitpoint tune`'s).
import { onFrontier } from '../core';
import type { FrontierPointView, ReplayConfigView, YourSettingsView } from '../protocol';

/** The shipped default's configuration (replay-configs/splitpoint-default.json). */
export const SHIPPED_DEFAULT = 'splitpoint-default';

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
  const on = onFrontier(points, { cost: (p) => p.costUSD, rate: (p) => p.probeRecall });
  points.forEach((p, i) => (p.onFrontier = on[i]));
  return points;
}
