// The timeline's viewport as one hook: the scroller element, where it is scrolled and how tall it is,
// the rows' geometry (the split dividers, the archived history above the rows), which rows are in view,
// and scrolling to a row, which the timeline lends the store (the minimap and "Show the split point"
// scroll through it). The geometry's building blocks are in timelineHooks.
import type { RefObject } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { InspectorSession } from '../../../src/protocol';
import type { ArchiveItem } from '../archive';
import { useStore } from '../context';
import type { PlanIndex, SessionIndex } from '../derive';
import { rowAt, ROW_HEIGHT, scrollTopFor, visibleRange, type Layout } from '../layout';
import { useAnchoredLayout, useArchive, useClientHeight, useSessionStart, type SetExpanded } from './timelineHooks';

/** How many rows are rendered either side of the ones in view. */
export const OVERSCAN = 8;

export interface TimelineViewport {
  readonly scroller: RefObject<HTMLDivElement>;
  readonly scrollTop: number;
  /** The scroller's height. */
  readonly height: number;
  readonly layout: Layout;
  /** The archived history's items, and which of its contexts are expanded. */
  readonly archive: ArchiveItem[];
  readonly setExpanded: SetExpanded;
  /** The rows to render, start..end-1: the rows in view and the overscan. */
  readonly start: number;
  readonly end: number;
  /** The first row at least partly in view. */
  readonly first: number;
  /** The scroller scrolled (its own scroll event). */
  scrolled(top: number): void;
  scrollToIndex(index: number, align?: 'nearest' | 'center'): void;
}

export function useTimelineViewport(
  session: InspectorSession,
  index: SessionIndex,
  planIndex: PlanIndex | null,
  /** False for the first frame: no overscan (the rows either side are out of view anyway). */
  complete = true,
): TimelineViewport {
  const store = useStore();
  const scroller = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const height = useClientHeight(scroller);
  const n = session.rows.length;
  const [archive, setExpanded] = useArchive(session.archived);
  const layout = useAnchoredLayout(n, index, planIndex, archive.length * ROW_HEIGHT, scroller, setScrollTop);

  // Another session, file or point in time starts the scroll position over.
  const sessionKey = `${session.sessionId}\u0000${session.source}\u0000${session.timeTravel?.at ?? ''}`;
  useSessionStart(scroller, sessionKey, store.savedScrollTop, (top) => {
    setExpanded((s) => (s.size === 0 ? s : new Set()));
    setScrollTop(top);
  });

  const [start, end] = visibleRange(layout, scrollTop, height, complete ? OVERSCAN : 0);
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

  return { scroller, scrollTop, height, layout, archive, setExpanded, start, end, first, scrolled: setScrollTop, scrollToIndex };
}
