// A preview's cost with the prompt cache (the cached prefix it invalidates, the next request before ->
// after, the turns until it pays back) and, for micro-compaction, its batch decision explained:
// cleared or held, and the numbers it was decided on.
import type { MicroDecisionView, PlanCostView } from '../../../src/protocol';
import { formatInt, formatTokens, formatUSD, plural } from '../../shared/format';

export function paybackText(turns: number | null): string {
  return turns === null ? 'never' : turns === 0 ? 'at once' : `in ${plural(turns, 'turn')}`;
}

export function PlanCostCard({ cost }: { cost: PlanCostView }) {
  const cheaper = cost.nextRequestUSD.after <= cost.nextRequestUSD.before;
  return (
    <dl class="plan-cost" data-section="plan-cost" aria-label="Cost with the prompt cache">
      <div>
        <dt>Cached prefix invalidated</dt>
        <dd data-stat="cost-invalidated" title={`of ${formatInt(cost.cachedPrefixTokens)} cached tokens`}>
          {formatTokens(cost.invalidatedCachedTokens)}
          {cost.cacheAssumed && (
            <span class="muted" data-stat="cost-assumed" title="No cache usage is known yet: the previous request is assumed cached whole">
              {' '}
              (assumed)
            </span>
          )}
        </dd>
      </div>
      <div>
        <dt>Next request</dt>
        <dd data-stat="cost-next" class={cheaper ? undefined : 'delta-up'}>
          <span data-stat="cost-before">{formatUSD(cost.nextRequestUSD.before)}</span> →{' '}
          <span data-stat="cost-after">{formatUSD(cost.nextRequestUSD.after)}</span>
        </dd>
      </div>
      <div>
        <dt>Pays back</dt>
        <dd data-stat="cost-payback">{paybackText(cost.paybackTurns)}</dd>
      </div>
    </dl>
  );
}

/** Why micro-compaction cleared or held its batch. */
export function MicroDecisionCard({ decision: d }: { decision: MicroDecisionView }) {
  const thresholds = [
    d.triggerTokens > 0 ? `trigger ${formatTokens(d.triggerTokens)}` : '',
    d.clearAtLeast > 0 ? `clear at least ${formatTokens(d.clearAtLeast)}` : '',
    d.cacheAware ? `cache-aware, horizon ${plural(d.horizonTurns, 'turn')}` : 'cache not weighed',
  ].filter(Boolean);
  return (
    <section class="micro-decision" data-section="micro-decision" data-action-taken={d.action}>
      <p>
        <strong data-stat="micro-action">{d.action === 'cleared' ? 'Cleared' : d.action === 'held' ? 'Held' : 'Nothing to clear'}</strong>
        {d.candidates > 0 && (
          <span data-stat="micro-batch">
            {' '}
            · {plural(d.candidates, 'old result')}, {formatTokens(d.clearableTokens)} (saves {formatTokens(d.savedTokens)})
          </span>
        )}
      </p>
      <p class="muted" data-stat="micro-reason">
        {d.reason}
      </p>
      {d.cache && (
        <dl class="plan-cost" data-stat="micro-cache">
          <div>
            <dt>Prefix re-written</dt>
            <dd data-stat="micro-invalidated">
              {formatTokens(d.cache.invalidatedCachedTokens)} of {formatTokens(d.cache.cachedPrefixTokens)}
            </dd>
          </div>
          <div>
            <dt>Cost now</dt>
            <dd data-stat="micro-cost-now">
              {d.cache.costNowUSD >= 0 ? '+' : ''}
              {formatUSD(d.cache.costNowUSD)}
            </dd>
          </div>
          <div>
            <dt>Saved per turn</dt>
            <dd data-stat="micro-saving">{formatUSD(d.cache.savingPerTurnUSD)}</dd>
          </div>
          <div>
            <dt>Pays back</dt>
            <dd data-stat="micro-payback">{paybackText(d.cache.paybackTurns)}</dd>
          </div>
        </dl>
      )}
      <p class="muted" data-stat="micro-settings">
        {thresholds.join(' · ')}
      </p>
    </section>
  );
}
