// The message timeline: a virtualized listbox, oldest message on top. Only the rows in view (plus a
// few either side) are in the DOM; split points are labelled dividers between rows; the tail-start
// pointers are marked on their rows. This file is the listbox (its attributes and clicks) and what
// it holds; its scrolling is useTimelineViewport, its keyboard useTimelineKeyboard, a row
// TimelineRow, a divider SplitDivider.
import type { InspectorSession, PlanView } from '../../../src/protocol';
import { formatInt } from '../../shared/format';
import { useStore } from '../context';
import type { PlanIndex, SessionIndex } from '../derive';
import { gapTop, ROW_HEIGHT, totalHeight } from '../layout';
import { ArchivedHistory } from './ArchivedHistory';
import { CacheBoundaryMarker } from './CacheBoundary';
import { SplitDivider } from './SplitDivider';
import type { SetExpanded } from './timelineHooks';
import { rowItems } from './TimelineRow';
import { useTimelineKeyboard } from './useTimelineKeyboard';
import { OVERSCAN, useTimelineViewport, type TimelineViewport } from './useTimelineViewport';

export interface TimelineProps {
  /** Its rows; the archived history of recorded compactions is drawn (greyed, collapsed) above them. */
  session: InspectorSession;
  index: SessionIndex;
  plan: PlanView | null;
  planIndex: PlanIndex | null;
  planTitle: string;
  selected: number;
  /** The message whose detail shows (archived rows are marked by it; they have no selection of their own). */
  detailId: string | null;
  /** False for the first frame: only the rows in view (none either side). */
  complete: boolean;
}

export function Timeline(props: TimelineProps) {
  const { session, selected } = props;
  const store = useStore();
  const n = session.rows.length;
  const view = useTimelineViewport(session, props.index, props.planIndex, props.complete);
  const keyboard = useTimelineKeyboard(session.rows, selected, view);

  const onClick = (e: MouseEvent) => {
    if (!archivedClick(e, view.setExpanded, store.openArchived)) rowClick(e, store);
  };

  return (
    <div
      ref={view.scroller}
      class="timeline"
      role="listbox"
      tabIndex={0}
      aria-label={`Conversation timeline, ${formatInt(n)} messages, oldest first`}
      aria-activedescendant={selected >= 0 && selected < n ? `sp-row-${selected}` : undefined}
      data-count={n}
      onKeyDown={keyboard.onKeyDown}
      onClick={onClick}
      onFocus={keyboard.onFocus}
      onScroll={(e) => view.scrolled((e.currentTarget as HTMLDivElement).scrollTop)}
    >
      <TimelineContent {...props} view={view} />
      {n === 0 && <div class="timeline-empty">No messages yet.</div>}
    </div>
  );
}

/** What scrolls: the archived history, the split dividers, the rows in view and the cache boundary. */
function TimelineContent({
  session,
  index,
  plan,
  planIndex,
  planTitle,
  selected,
  detailId,
  view,
}: TimelineProps & { view: TimelineViewport }) {
  const { layout, scrollTop, height, archive } = view;
  const rows = session.rows;
  return (
    <div class="timeline-content" role="presentation" style={{ height: `${totalHeight(layout)}px` }}>
      {archive.length > 0 && (
        <ArchivedHistory
          items={archive}
          from={scrollTop - OVERSCAN * ROW_HEIGHT}
          to={scrollTop + height + OVERSCAN * ROW_HEIGHT}
          maxTokens={index.maxTokens}
          detailId={detailId}
        />
      )}
      {layout.gaps.map((g, k) => (
        <SplitDivider
          key={g.kind}
          gap={g}
          top={gapTop(layout, k)}
          below={rows[g.index]}
          plan={g.kind === 'preview' ? plan : null}
          planTitle={planTitle}
        />
      ))}
      {rowItems(rows, layout, view.start, view.end, index, planIndex, selected)}
      <CacheBoundaryMarker boundary={index.cacheBoundary} rows={rows} layout={layout} />
    </div>
  );
}

/** A click on a row selects it and opens its detail. */
function rowClick(e: MouseEvent, store: { select(index: number): void; open(index: number): void }): void {
  const target = (e.target as Element | null)?.closest?.('[data-index]');
  if (!target) return;
  const i = Number(target.getAttribute('data-index'));
  if (!Number.isInteger(i)) return;
  store.select(i);
  store.open(i);
}

/** A click in the archived history: a header toggles its context, an archived row opens its detail. */
function archivedClick(e: MouseEvent, setExpanded: SetExpanded, open: (id: string) => void): boolean {
  const el = e.target as Element | null;
  const toggle = el?.closest?.('[data-archive-toggle]');
  if (toggle) {
    const k = Number(toggle.getAttribute('data-archive-toggle'));
    setExpanded((s) => {
      const next = new Set(s);
      if (!next.delete(k)) next.add(k);
      return next;
    });
    return true;
  }
  const row = el?.closest?.('[data-archived-id]');
  if (row) {
    open(row.getAttribute('data-archived-id')!);
    return true;
  }
  return false;
}
