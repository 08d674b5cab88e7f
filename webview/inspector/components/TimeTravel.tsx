// Time travel: pick a past compaction and preview every strategy on the context as it stood just
// before it ("what would each strategy have kept where Claude Code compacted"). The selector, the
// banner that says which context the rows and previews are on, and the side panel's list of points.
import type { InspectorSession, TimeTravelPoint } from '../../../src/protocol';
import { formatInt, plural } from '../../shared/format';
import { useStore } from '../context';
import { ProbeList, ProbeRate } from './ProbeList';

type TimeTravel = NonNullable<InspectorSession['timeTravel']>;

export function ContextSelector({ timeTravel }: { timeTravel: TimeTravel }) {
  const store = useStore();
  return (
    <div class="context-select" role="group" aria-label="Context to show and preview">
      <label for="sp-context">Context</label>
      <select
        id="sp-context"
        data-action="time-travel"
        value={timeTravel.at === null ? '' : String(timeTravel.at)}
        onChange={(e) => {
          const v = (e.currentTarget as HTMLSelectElement).value;
          store.timeTravel(v === '' ? null : Number(v));
        }}
      >
        <option value="">current</option>
        {timeTravel.points.map((p) => (
          <option key={p.at} value={String(p.at)}>
            {p.label}
          </option>
        ))}
      </select>
    </div>
  );
}

export function TimeTravelBanner({ point }: { point: TimeTravelPoint }) {
  const store = useStore();
  return (
    <div class="banner banner-time-travel" role="region" aria-label="Time travel" data-field="time-travel">
      <span>
        Time travel: the rows are the context <strong>{point.label}</strong> ({plural(point.messages, 'message')}). Previews plan on it:
        what each strategy would have kept there.
      </span>
      <button type="button" data-action="time-travel-back" onClick={() => store.timeTravel(null)}>
        Back to the current context
      </button>
    </div>
  );
}

/** The side panel's list of points (the recording's compactions), each a button to travel there. */
export function RecordedCompactions({ timeTravel }: { timeTravel: TimeTravel }) {
  const store = useStore();
  return (
    <section class="panel recorded" aria-labelledby="sp-recorded-title">
      <h2 id="sp-recorded-title">Time travel</h2>
      <p class="muted">Preview every strategy on the context as it stood just before a past compaction.</p>
      <ol class="recorded-list">
        {timeTravel.points.map((p) => (
          <li key={p.at} class={`recorded-item${timeTravel.at === p.at ? ' current' : ''}`} data-point={p.at}>
            <span class="recorded-label">{p.label}</span>
            <span class="muted"> · {formatInt(p.messages)} messages before it</span>
            {timeTravel.at === p.at ? (
              <span class="tag">showing</span>
            ) : (
              <button type="button" class="link" data-action="travel" onClick={() => store.timeTravel(p.at)}>
                Preview strategies here
              </button>
            )}
            {p.probes && (
              <details class="recorded-probes" data-section="recorded-probes">
                <summary>
                  Its summary: <ProbeRate score={p.probes} />
                </summary>
                <ProbeList probes={p.probes.probes} label={`Probes of compaction ${p.at}`} />
              </details>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}
