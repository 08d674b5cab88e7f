// The timeline's stateful parts, each a hook: the split dividers' geometry (keeping the rows in view
// still when a divider moves above them), the scroller's height, the archived history's expanded
// contexts, and where a session starts scrolled.
import type { RefObject } from 'preact';
import { useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { ArchivedSegment } from '../../../src/protocol';
import { archiveItems, type ArchiveItem } from '../archive';
import type { PlanIndex, SessionIndex } from '../derive';
import { makeLayout, rowAt, rowTop, type Gap, type Layout } from '../layout';

/** A new session starts at the top (the archived history collapsed); the first one restores the persisted position. */
export function useSessionStart(
  scroller: RefObject<HTMLDivElement>,
  sessionKey: string,
  initialScrollTop: number,
  started: (top: number) => void,
) {
  const firstSession = useRef(true);
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const top = firstSession.current ? initialScrollTop : 0;
    // A timeline just mounted is at the top, collapsed: nothing to start over, and no need to lay the
    // page out now, before its first frame.
    const fresh = firstSession.current && top === 0;
    firstSession.current = false;
    if (fresh) return;
    el.scrollTop = top;
    started(el.scrollTop);
  }, [sessionKey]);
}

export type SetExpanded = (f: (s: ReadonlySet<number>) => ReadonlySet<number>) => void;

/** The archived history's items; which contexts are expanded (none at first, none again for another session). */
export function useArchive(archived: readonly ArchivedSegment[] | undefined): [ArchiveItem[], SetExpanded] {
  const [expanded, setExpanded] = useState<ReadonlySet<number>>(new Set());
  const items = useMemo(() => archiveItems(archived ?? [], expanded), [archived, expanded]);
  return [items, setExpanded];
}

/**
 * The scroller's height, kept up to date as the panel resizes. Observed from the first frame on: the
 * observer reports the height once that frame is laid out, before it is painted, so the first paint
 * already has the rows that fill the timeline (and nothing lays the page out early to read it).
 */
export function useClientHeight(scroller: RefObject<HTMLDivElement>): number {
  const [height, setHeight] = useState(400);
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setHeight(el.clientHeight || 400));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  return height;
}

/** The rows' geometry with the split dividers; keeps the rows in view still when a divider appears or goes above them. */
export function useAnchoredLayout(
  n: number,
  index: SessionIndex,
  planIndex: PlanIndex | null,
  offset: number,
  scroller: RefObject<HTMLDivElement>,
  setScrollTop: (top: number) => void,
): Layout {
  const layout = useMemo(() => {
    const gaps: Gap[] = [];
    if (index.splitIndex !== null) gaps.push({ index: index.splitIndex, kind: 'current' });
    if (planIndex?.splitIndex != null) gaps.push({ index: planIndex.splitIndex, kind: 'preview' });
    return makeLayout(n, gaps, offset);
  }, [n, index, planIndex, offset]);

  const prevLayout = useRef<Layout>(layout);
  useLayoutEffect(() => {
    const el = scroller.current;
    const before = prevLayout.current;
    prevLayout.current = layout;
    // Only rows are anchored: a header clicked in the archived history stays where it was.
    if (!el || before === layout || before.rowCount !== layout.rowCount || el.scrollTop < before.offset) return;
    const anchor = rowAt(before, el.scrollTop);
    const delta = rowTop(layout, anchor) - rowTop(before, anchor);
    if (delta !== 0 && anchor > 0) {
      el.scrollTop += delta;
      setScrollTop(el.scrollTop);
    }
  }, [layout]);
  return layout;
}
