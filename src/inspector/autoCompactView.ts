// The inspector's view of the live session's auto-compaction decision (issue 25): the policy, whether it
// compacted, was forced or held back, its sentence and its numbers, and the cache TTL in use.
import type { AutoCompactDecision } from '../core';
import type { AutoCompactView } from '../protocol';

/** The sentence is shown as text, never as markup; long ones are cut. */
const MAX_REASON = 300;

export function autoCompactView(d: AutoCompactDecision): AutoCompactView {
  const cut = (t: string) => (t.length > MAX_REASON ? `${t.slice(0, MAX_REASON - 1)}…` : t);
  return {
    policy: d.policy,
    fired: d.fire,
    forced: d.forced,
    held: d.held,
    reason: cut(d.reason),
    costUSD: d.pays ? d.pays.costUSD : null,
    paybackCalls: d.pays ? d.pays.paybackCalls : null,
    horizonCalls: d.pays ? d.pays.horizonCalls : null,
    calls: d.calls,
    callsSinceCompaction: d.callsSinceCompaction,
    minCallsBetween: d.minCallsBetween,
    ttl: d.ttl,
    ttlReason: d.ttlReason === null ? null : cut(d.ttlReason),
  };
}
