// What the previewed plan would do: tokens before -> after, counts (pinned and lost included),
// summarizer input, notes, the ledger it carries, timing. The list of what is lost is LossSection.
import type { PlanView } from '../../../src/protocol';
import { formatDelta, formatInt, formatMs, formatTokens, plural } from '../../shared/format';
import { useStore } from '../context';
import { countsText, LedgerCard, ledgerCounts } from './LedgerCard';
import { MicroDecisionCard, PlanCostCard } from './PlanCost';
import { OutsideCompaction } from './OutsideCompaction';
import { ProbeList, ProbeRate, SUMMARY_NOT_COUNTED } from './ProbeList';

export interface PlanSummaryProps {
  plan: PlanView | null;
  title: string;
  pending: boolean;
  stale: boolean;
  error: string | null;
}

export function PlanSummary({ plan, title, pending, stale, error }: PlanSummaryProps) {
  const store = useStore();
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
        <button type="button" class="secondary" data-action="clear-preview" onClick={store.clearPreview}>
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
          {plan.microCompaction && <MicroDecisionCard decision={plan.microCompaction} />}
          {plan.noop ? (
            <p class="plan-noop" data-stat="noop">
              No change: {plan.notes.join('; ') || 'nothing to compact'}
            </p>
          ) : (
            <>
              <p class="plan-tokens">
                <span data-stat="tokens-before">{formatInt(plan.tokensBefore)}</span> →{' '}
                <span data-stat="tokens-after">{formatInt(plan.tokensAfter)}</span> tokens{' '}
                <strong
                  data-stat="delta"
                  class={plan.tokensAfter > plan.tokensBefore ? 'delta-up' : undefined}
                  title={plan.tokensAfter > plan.tokensBefore ? 'The summary budget is larger than what it would replace' : undefined}
                >
                  ({formatDelta(plan.tokensBefore, plan.tokensAfter)})
                </strong>
                {plan.probes && (
                  <>
                    {' · '}
                    <ProbeRate score={plan.probes} />
                  </>
                )}
              </p>
              {plan.probes && !plan.probes.summaryCounted && (
                <p class="muted probe-note" data-stat="probes-note">
                  * {SUMMARY_NOT_COUNTED}
                </p>
              )}
              <dl class="plan-counts">
                <div>
                  <dt>Archived</dt>
                  <dd data-stat="archived">{formatInt(plan.archivedIds.length)}</dd>
                </div>
                <div>
                  <dt>Kept</dt>
                  <dd data-stat="kept">{formatInt(plan.keptIds.length)}</dd>
                </div>
                <div>
                  <dt>Truncated</dt>
                  <dd data-stat="truncated">{formatInt(plan.truncated.length)}</dd>
                </div>
                <div>
                  <dt>Split before</dt>
                  <dd data-stat="split">#{plan.splitIndex}</dd>
                </div>
                {plan.pinned && (
                  <div>
                    <dt>Pinned</dt>
                    <dd data-stat="pinned" title="Pinned messages are kept verbatim, and their tokens count against every budget">
                      {formatInt(plan.pinned.length)} · {formatTokens(plan.pinnedTokens ?? 0)}
                    </dd>
                  </div>
                )}
              </dl>
              {plan.cost && <PlanCostCard cost={plan.cost} />}
              <PlanLedger plan={plan} />
              {plan.needsSummary && (
                <p data-stat="summarizer">
                  Summarizer input: {formatTokens(plan.summarizerInputTokens)} in {formatInt(plan.summarizerInputMessages)} messages
                </p>
              )}
              {plan.notes.length > 0 && (
                <ul class="plan-notes" data-stat="notes">
                  {plan.notes.map((n, i) => (
                    <li key={i}>{n}</li>
                  ))}
                </ul>
              )}
              <button type="button" class="link" data-action="jump-split" onClick={store.jumpToSplit}>
                Show the split point
              </button>
            </>
          )}
          {plan.outside && <OutsideCompaction outside={plan.outside} what="every request after it" />}
          {plan.overLimit?.becauseOfOutside && (
            <p class="error" role="alert" data-stat="cannot-fit">
              This plan cannot get under the limit of {formatInt(plan.overLimit.limit)} tokens: what no compaction removes takes{' '}
              {formatInt(plan.outside?.total ?? 0)} tokens by itself. Shorten the instructions or the task list, or unpin messages.
            </p>
          )}
          <p class="muted plan-timing">
            Computed in <span data-stat="compute-ms">{formatMs(plan.computeMs)}</span>
            {stale ? ' · history changed, refreshing…' : pending ? ' · updating…' : ''}
          </p>
        </div>
      )}
    </section>
  );
}

/** What is lost (counts) and the ledger the compaction would carry (a card, collapsed). */
function PlanLedger({ plan }: { plan: PlanView }) {
  const lost = plan.lost;
  return (
    <>
      {lost && (
        <p class="plan-lost" data-stat="lost">
          Lost: {lostText(plan) || 'nothing'}
        </p>
      )}
      {plan.ledger && (
        <details class="plan-ledger" data-stat="ledger">
          <summary>Artifact ledger carried: {countsText(ledgerCounts(plan.ledger))}</summary>
          <LedgerCard ledger={plan.ledger} label="Artifact ledger the compaction carries" which="ledger" />
        </details>
      )}
    </>
  );
}

/** "2 prompts · 3 files · 1 command · 1 error · 1 image · 2 thinking blocks". */
function lostText(plan: PlanView): string {
  const l = plan.lost!;
  return [
    l.instructions.length > 0 ? plural(l.instructions.length, 'prompt') : '',
    l.files.length > 0 ? plural(l.files.length, 'file') : '',
    l.commands.length > 0 ? plural(l.commands.length, 'command') : '',
    l.errors.length > 0 ? plural(l.errors.length, 'error') : '',
    l.images > 0 ? plural(l.images, 'image') : '',
    l.thinkingBlocks > 0 ? plural(l.thinkingBlocks, 'thinking block') : '',
  ]
    .filter(Boolean)
    .join(' · ');
}

/** "What is lost": the list of what the previewed plan drops without it surviving anywhere. */
export function LossSection({ plan }: { plan: PlanView }) {
  const lost = plan.lost;
  const missed = plan.probes?.probes.filter((p) => !p.answerable) ?? [];
  if ((!lost && missed.length === 0) || plan.noop) return null;
  const empty = !lost || lostText(plan) === '';
  return (
    <section class="panel loss-section" aria-labelledby="sp-lost-title" data-section="lost">
      <header class="panel-head">
        <h2 id="sp-lost-title">What is lost</h2>
      </header>
      {missed.length > 0 && (
        <div class="probe-missed" data-section="probes-missed">
          <h4>
            Not answerable from the request: {missed.length} of {plan.probes!.total} probes
          </h4>
          <ProbeList probes={missed} label="Probes the compacted request does not answer" />
        </div>
      )}
      {lost && empty ? (
        <p class="muted" data-stat="lost-none">
          Nothing: everything archived survives in the summary, the ledger, the pins or the tail.
        </p>
      ) : (
        lost && <LedgerCard ledger={lost} label="What leaves the model's view without surviving anywhere" which="lost" />
      )}
    </section>
  );
}
