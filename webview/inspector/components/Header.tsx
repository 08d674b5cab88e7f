// The top of the panel: the session's name and size, the busy indicator and the panel's actions;
// for an inspected file, the read-only banner under it.
import type { InspectorSession } from '../../../src/protocol';
import { plural } from '../format';

export interface HeaderProps {
  session: InspectorSession;
  turns: number;
  busy: { busy: boolean; label?: string };
  onUndo(): void;
  onInspectFile(): void;
}

export function Header({ session, turns, busy, onUndo, onInspectFile }: HeaderProps) {
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
          <button type="button" class="secondary" data-action="undo" disabled={!session.canUndo || busy.busy} onClick={onUndo}>
            Undo last compaction
          </button>
        )}
        <button type="button" class="secondary" data-action="inspect-file" onClick={onInspectFile}>
          Inspect file…
        </button>
      </div>
    </header>
  );
}

export function ReadOnlyBanner({ source, onShowCurrent }: { source: string; onShowCurrent(): void }) {
  return (
    <div class="banner banner-readonly" role="region" aria-label="Read-only session">
      <span>
        Read-only: inspecting <strong data-field="readonly-source">{source}</strong>. Preview works; Apply and Undo are off.
      </span>
      <button type="button" data-action="show-current" onClick={onShowCurrent}>
        Back to current session
      </button>
    </div>
  );
}
