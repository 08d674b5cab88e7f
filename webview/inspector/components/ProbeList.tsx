// Probes (issue 22) as the inspector shows them: the answerable rate beside tokens and cost ("answerable
// 24/30 (80%)"), and the probes themselves (question, expected answer, a link to the message the fact
// comes from). All text is rendered as text.
import type { ProbeScoreView, ProbeView } from '../../../src/protocol';
import { formatPercent } from '../../shared/format';
import { useStore } from '../context';

/** "answerable 24/30 (80%)" ("no probes" when there are none). */
export function probeRateText(v: Pick<ProbeScoreView, 'answerable' | 'total'>): string {
  return v.total === 0 ? 'no probes' : `answerable ${v.answerable}/${v.total} (${formatPercent(v.answerable / v.total)})`;
}

/** "artifact 0% · recall 47% · decision 100% · continuation 25%" (kinds without probes left out). */
export function byKindText(v: ProbeScoreView): string {
  return (Object.entries(v.recallByKind) as Array<[string, number | null]>)
    .filter(([, r]) => r !== null)
    .map(([k, r]) => `${k} ${formatPercent(r as number)}`)
    .join(' · ');
}

/** What the preview's rate does not count yet: the summary a summarizing strategy has not written. */
export const SUMMARY_NOT_COUNTED = 'The summary is not written yet: the rate counts the ledger and the kept messages only.';

export function ProbeRate({ score }: { score: ProbeScoreView }) {
  const kinds = byKindText(score);
  return (
    <span
      class={`probe-rate${score.summaryCounted ? '' : ' probe-rate-partial'}`}
      data-stat="probes"
      data-answerable={score.answerable}
      data-total={score.total}
      title={[
        'Probes: questions about what the compaction archives, answerable from what the model would receive',
        kinds,
        score.summaryCounted ? '' : SUMMARY_NOT_COUNTED,
      ]
        .filter(Boolean)
        .join('\n')}
    >
      {probeRateText(score)}
      {!score.summaryCounted && '*'}
    </span>
  );
}

/** Probes as a list: kind, question, expected answer, and the source message (a link to its row). */
export function ProbeList({ probes, label }: { probes: readonly ProbeView[]; label: string }) {
  const store = useStore();
  return (
    <ul class="probe-list" aria-label={label}>
      {probes.map((p) => (
        <li key={p.id} class={`probe probe-${p.answerable ? 'answerable' : 'missed'}`} data-probe={p.id} data-kind={p.kind}>
          <span class="probe-mark" aria-label={p.answerable ? 'answerable' : 'missed'}>
            {p.answerable ? '✓' : '✗'}
          </span>{' '}
          <span class="tag">{p.kind}</span> <span class="probe-question">{p.question}</span>{' '}
          <span class="muted">
            → <code class="probe-expected">{p.expected[0] ?? ''}</code>
          </span>
          {p.sources.length > 0 && (
            <button
              type="button"
              class="link probe-source"
              data-action="probe-source"
              data-source={p.sources[0]}
              title="Show the message this fact comes from"
              onClick={() => store.showSource(p.sources[0])}
            >
              source
            </button>
          )}
        </li>
      ))}
    </ul>
  );
}
