// The message timeline: a virtualized listbox, oldest message on top. Only the rows in view (plus a
// few either side) are in the DOM; split points are labelled dividers between rows; the tail-start
// pointers are marked on their rows. This file is the listbox (scrolling, keyboard, clicks); a row is
// TimelineRow, a divider SplitDivider, the geometry's hooks timelineHooks.
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { InspectorSession, PlanView } from '../../../src/protocol';
import { formatInt } from '../../shared/format';
import { useStore } from '../context';
import type { PlanIndex, SessionIndex } from '../derive';
import { gapTop, rowAt, ROW_HEIGHT, scrollTopFor, totalHeight, visibleRange } from '../layout';
import { ArchivedHistory } from './ArchivedHistory';
import { CacheBoundaryMarker } from './CacheBoundary';
import { SplitDivider } from './SplitDivider';
import { splitKey } from './SplitHere';
import { useAnchoredLayout, useArchive, useClientHeight, useSessionStart, type SetExpanded } from './timelineHooks';
import { rowItems } from './TimelineRow';

const OVERSCAN = 8;

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
}

export function Timeline({ session, index, plan, planIndex, planTitle, selected, detailId }: TimelineProps) {
  const store = useStore();
  const rows = session.rows;
  const scroller = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const height = useClientHeight(scroller);
  const n = rows.length;
  const [archive, setExpanded] = useArchive(session.archived);
  const layout = useAnchoredLayout(n, index, planIndex, archive.length * ROW_HEIGHT, scroller, setScrollTop);

  // Another session, file or point in time starts the scroll position over.
  const sessionKey = `${session.sessionId}\u0000${session.source}\u0000${session.timeTravel?.at ?? ''}`;
  useSessionStart(scroller, sessionKey, store.savedScrollTop, (top) => {
    setExpanded(() => new Set());
    setScrollTop(top);
  });

  const [start, end] = visibleRange(layout, scrollTop, height, OVERSCAN);
  const first = rowAt(layout, scrollTop);
  const last = rowAt(layout, scrollTop + height - 1);
  useEffect(() => store.viewportChanged({ scrollTop, first, last }), [scrollTop, first, last]);

  const scrollToIndex = (i: number, align: 'nearest' | 'center' = 'nearest') => {
    const el = scroller.current;
    if (!el || n === 0) return;
    const next = scrollTopFor(layout, Math.min(n - 1, Math.max(0, i)), align, el.scrollTop, el.clientHeight);
    if (next !== el.scrollTop) {
      el.scrollTop = next;
      setScrollTop(el.scrollTop);
    }
  };
  useLayoutEffect(
    () =>
      store.viewport.attach({
        scrollToIndex,
        scrollToFraction: (f: number) => scrollToIndex(Math.round(f * (n - 1)), 'center'),
      }),
    [store, layout, n],
  );

  // Keyboard moves keep the selected row in view.
  const keyMoved = useRef(false);
  useLayoutEffect(() => {
    if (keyMoved.current && selected >= 0) scrollToIndex(selected);
    keyMoved.current = false;
  }, [selected]);

  const onKeyDown = (e: KeyboardEvent) => {
    if (n === 0) return;
    if (splitKey(e, selected, (i) => rows[i] && store.splitHere(rows[i].id))) return;
    if (e.key === 'Enter' || e.key === ' ') {
      if (selected >= 0) {
        e.preventDefault();
        store.open(selected);
      }
      return;
    }
    const page = Math.max(1, Math.floor(height / ROW_HEIGHT) - 1);
    const target = keyTarget(e.key, selected, first, n, page);
    if (target === null) return;
    e.preventDefault();
    const next = Math.min(n - 1, Math.max(0, target));
    keyMoved.current = true;
    if (next === selected) scrollToIndex(next);
    store.select(next);
  };

  const onClick = (e: MouseEvent) => {
    if (!archivedClick(e, setExpanded, store.openArchived)) rowClick(e, store);
  };

  const onFocus = () => {
    if (selected < 0 && n > 0) store.select(first);
  };

  const activeId = selected >= 0 && selected < n ? `sp-row-${selected}` : undefined;

  return (
    <div
      ref={scroller}
      class="timeline"
      role="listbox"
      tabIndex={0}
      aria-label={`Conversation timeline, ${formatInt(n)} messages, oldest first`}
      aria-activedescendant={activeId}
      data-count={n}
      onKeyDown={onKeyDown}
      onClick={onClick}
      onFocus={onFocus}
      onScroll={(e) => setScrollTop((e.currentTarget as HTMLDivElement).scrollTop)}
    >
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
        {rowItems(rows, layout, start, end, index, planIndex, selected)}
        <CacheBoundaryMarker boundary={index.cacheBoundary} rows={rows} layout={layout} />
      </div>
      {n === 0 && <div class="timeline-empty">No messages yet.</div>}
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

/** Where a navigation key moves the selection (before clamping to the rows), or null for other keys. */
function keyTarget(key: string, cur: number, first: number, n: number, page: number): number | null {
  const from = cur < 0 ? first : cur;
  switch (key) {
    case 'ArrowDown':
      return cur < 0 ? first : cur + 1;
    case 'ArrowUp':
      return cur < 0 ? first : cur - 1;
    case 'Home':
      return 0;
    case 'End':
      return n - 1;
    case 'PageDown':
      return from + page;
    case 'PageUp':
      return from - page;
    default:
      return null;
  }
}
