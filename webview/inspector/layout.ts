// Geometry of the virtual timeline: fixed-height rows, plus a labelled divider (a "gap") before the
// row where a split point sits. At most a couple of gaps, so positions are O(gaps) to compute. The
// rows may start below an `offset` (the archived history of recorded compactions, drawn above them).

export const ROW_HEIGHT = 24;
export const GAP_HEIGHT = 24;

export interface Gap {
  /** The divider sits before this row (0..rowCount). */
  index: number;
  kind: 'current' | 'preview';
}

export interface Layout {
  rowCount: number;
  /** Sorted by index; a current and a preview gap at the same index are stacked, current first. */
  gaps: Gap[];
  /** Height above the first row (0: the rows start at the top). */
  offset: number;
}

export function makeLayout(rowCount: number, gaps: Gap[], offset = 0): Layout {
  const sorted = gaps
    .filter((g) => g.index >= 0 && g.index <= rowCount)
    .sort((a, b) => a.index - b.index || (a.kind === b.kind ? 0 : a.kind === 'current' ? -1 : 1));
  return { rowCount, gaps: sorted, offset: Math.max(0, offset) };
}

/** Number of gaps placed before row `index`. */
function gapsBefore(layout: Layout, index: number): number {
  let k = 0;
  for (const g of layout.gaps) if (g.index <= index) k++;
  return k;
}

export function rowTop(layout: Layout, index: number): number {
  return layout.offset + index * ROW_HEIGHT + gapsBefore(layout, index) * GAP_HEIGHT;
}

/** Top of the k-th gap (in `layout.gaps` order). */
export function gapTop(layout: Layout, k: number): number {
  return layout.offset + layout.gaps[k].index * ROW_HEIGHT + k * GAP_HEIGHT;
}

export function totalHeight(layout: Layout): number {
  return layout.offset + layout.rowCount * ROW_HEIGHT + layout.gaps.length * GAP_HEIGHT;
}

/** The row at vertical offset `y` (the last row starting at or above it), clamped to the rows. */
export function rowAt(layout: Layout, y: number): number {
  if (layout.rowCount === 0) return 0;
  let i = Math.min(layout.rowCount - 1, Math.max(0, Math.floor((y - layout.offset) / ROW_HEIGHT)));
  while (i > 0 && rowTop(layout, i) > y) i--;
  while (i < layout.rowCount - 1 && rowTop(layout, i + 1) <= y) i++;
  return i;
}

/** Rows to render for a viewport, with `overscan` rows either side: [start, end). */
export function visibleRange(layout: Layout, scrollTop: number, height: number, overscan: number): [number, number] {
  if (layout.rowCount === 0) return [0, 0];
  const first = rowAt(layout, scrollTop);
  const last = rowAt(layout, scrollTop + Math.max(height, ROW_HEIGHT) - 1);
  return [Math.max(0, first - overscan), Math.min(layout.rowCount, last + 1 + overscan)];
}

/** The scroll position that shows row `i` (centred, or scrolled just into view), within the content. */
export function scrollTopFor(layout: Layout, i: number, align: 'nearest' | 'center', scrollTop: number, h: number): number {
  const top = rowTop(layout, i);
  let next = scrollTop;
  if (align === 'center') next = top - h / 2 + ROW_HEIGHT / 2;
  else if (top < scrollTop) next = top;
  else if (top + ROW_HEIGHT > scrollTop + h) next = top + ROW_HEIGHT - h;
  return Math.max(0, Math.min(next, totalHeight(layout) - h));
}
