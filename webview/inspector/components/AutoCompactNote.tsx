// The live session's auto-compaction decision under the usage bar (issue 25): what the policy decided
// before the last model call and the sentence with its numbers ("compacting now costs $0.21 and pays back
// in 4 calls; …", "not yet: …", "held: …"), the TTL in use as its tooltip. Text only (Preact escapes it).
import type { AutoCompactView } from '../../../src/protocol';

function state(a: AutoCompactView): string {
  if (a.forced) return 'compacted (the window forced it)';
  if (a.fired) return 'compacted';
  if (a.held) return 'held back';
  return 'waiting';
}

export function AutoCompactNote({ decision }: { decision: AutoCompactView }) {
  const ttl = decision.ttl === 'off' ? 'prompt caching off' : `cache TTL ${decision.ttl === '1h' ? '1 hour' : '5 minutes'}`;
  const title = [
    ttl,
    decision.ttlReason,
    `${decision.calls} calls so far; at most one auto-compaction per ${decision.minCallsBetween} calls`,
  ]
    .filter((t): t is string => !!t)
    .join('\n');
  return (
    <div
      class="usage-auto-compact muted"
      data-field="auto-compact"
      data-policy={decision.policy}
      data-state={state(decision)}
      title={title}
    >
      <span class="usage-auto-compact-label">auto-compact ({decision.policy})</span> {decision.reason}
    </div>
  );
}
