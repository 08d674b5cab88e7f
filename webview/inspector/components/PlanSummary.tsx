// What the previewed plan would do: tokens before -> after, counts, summarizer input, notes, timing.
import type { PlanView } from '../../../src/protocol';
import { fmtDelta, fmtInt, fmtMs, fmtTokens } from '../format';

export interface PlanSummaryProps {
  plan: PlanView | null;
  title: string;
  pending: boolean;
  stale: boolean;
  error: string | null;
  onClear(): void;
  onJump(): void;
}

export function PlanSummary({ plan, title, pending, stale, error, onClear, onJump }: PlanSummaryProps) {
  return (
    <section
      class="panel plan-summary"
      aria-labelledby="sp-plan-title"
      aria-live="polite"
      data-request-id={plan?.requestId ?? ''}
      data-strategy={plan?.strategy ?? ''}
    >
      <header class="panel-head">
        <h2 id="sp-plan-title">Preview · {title}</h2>
        <button type="button" class="secondary" data-action="clear-preview" onClick={onClear}>
          Clear preview
        </button>
      </header>
      {error && (
        <p class="error" role="alert" data-stat="error">
          {error}
        </p>
      )}
      {!plan && !error && <p class="muted">{pending ? 'Computing…' : 'No preview.'}</p>}
      {plan && (
        <div class={stale || pending ? 'plan-body stale' : 'plan-body'}>
          {plan.noop ? (
            <p class="plan-noop" data-stat="noop">
              No change: {plan.notes.join('; ') || 'nothing to compact'}
            </p>
          ) : (
            <>
              <p class="plan-tokens">
                <span data-stat="tokens-before">{fmtInt(plan.tokensBefore)}</span> →{' '}
                <span data-stat="tokens-after">{fmtInt(plan.tokensAfter)}</span> tokens{' '}
                <strong
                  data-stat="delta"
                  class={plan.tokensAfter > plan.tokensBefore ? 'delta-up' : undefined}
                  title={plan.tokensAfter > plan.tokensBefore ? 'The summary budget is larger than what it would replace' : undefined}
                >
                  ({fmtDelta(plan.tokensBefore, plan.tokensAfter)})
                </strong>
              </p>
              <dl class="plan-counts">
                <div>
                  <dt>Archived</dt>
                  <dd data-stat="archived">{fmtInt(plan.archivedIds.length)}</dd>
                </div>
                <div>
                  <dt>Kept</dt>
                  <dd data-stat="kept">{fmtInt(plan.keptIds.length)}</dd>
                </div>
                <div>
                  <dt>Truncated</dt>
                  <dd data-stat="truncated">{fmtInt(plan.truncated.length)}</dd>
                </div>
                <div>
                  <dt>Split before</dt>
                  <dd data-stat="split">#{plan.splitIndex}</dd>
                </div>
              </dl>
              {plan.needsSummary && (
                <p data-stat="summarizer">
                  Summarizer input: {fmtTokens(plan.summarizerInputTokens)} in {fmtInt(plan.summarizerInputMessages)} messages
                </p>
              )}
              {plan.notes.length > 0 && (
                <ul class="plan-notes" data-stat="notes">
                  {plan.notes.map((n, i) => (
                    <li key={i}>{n}</li>
                  ))}
                </ul>
              )}
              <button type="button" class="link" data-action="jump-split" onClick={onJump}>
                Show the split point
              </button>
            </>
          )}
          <p class="muted plan-timing">
            Computed in <span data-stat="compute-ms">{fmtMs(plan.computeMs)}</span>
            {stale ? ' · history changed, refreshing…' : pending ? ' · updating…' : ''}
          </p>
        </div>
      )}
    </section>
  );
}
