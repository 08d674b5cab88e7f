// The top of the panel: the session's name and size, the busy indicator and the panel's actions;
// for an inspected file, the read-only banner under it.
import type { InspectorSession } from '../../../src/protocol';
import { plural } from '../../shared/format';
import { useStore } from '../context';
import { travelPoint as shownTravelPoint } from '../derive';
import { TimeTravelBanner } from './TimeTravel';

export interface HeaderProps {
  session: InspectorSession;
  turns: number;
  busy: { busy: boolean; label?: string };
}

export function Header({ session, turns, busy }: HeaderProps) {
  const store = useStore();
  return (
    <header class="toolbar">
      <div class="toolbar-title">
        <h1>{session.title || 'Session'}</h1>
        <span class="muted" data-field="source">
          {session.source}
          {' · '}
          {plural(session.rows.length, 'message')} · {plural(turns, 'turn')}
        </span>
      </div>
      {busy.busy && (
        <span class="busy" role="status" data-field="busy">
          <span class="spinner" aria-hidden="true" />
          {busy.label ?? 'Working…'}
        </span>
      )}
      <div class="toolbar-actions">
        {!session.readOnly && (
          <button type="button" class="secondary" data-action="undo" disabled={!session.canUndo || busy.busy} onClick={store.undo}>
            Undo last compaction
          </button>
        )}
        <button type="button" class="secondary" data-action="inspect-file" onClick={store.inspectFile}>
          Inspect file…
        </button>
      </div>
    </header>
  );
}

/** Under the header: "read-only" for an inspected file, and which past context time travel shows. */
export function Banners({ session }: { session: InspectorSession }) {
  const travelPoint = shownTravelPoint(session);
  if (!session.readOnly && !travelPoint) return null;
  return (
    <div class="banners">
      {session.readOnly && !(travelPoint && session.source === 'Current session') && <ReadOnlyBanner source={session.source} />}
      {travelPoint && <TimeTravelBanner point={travelPoint} />}
    </div>
  );
}

function ReadOnlyBanner({ source }: { source: string }) {
  const store = useStore();
  return (
    <div class="banner banner-readonly" role="region" aria-label="Read-only session">
      <span>
        Read-only: inspecting <strong data-field="readonly-source">{source}</strong>. Preview works; Apply and Undo are off.
      </span>
      <button type="button" data-action="show-current" onClick={store.showCurrent}>
        Back to current session
      </button>
    </div>
  );
}
