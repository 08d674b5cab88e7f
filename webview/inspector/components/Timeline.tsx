// The message timeline: a virtualized listbox, oldest message on top. Only the rows in view (plus a
// few either side) are in the DOM; split points are labelled dividers between rows; the tail-start
// pointers are marked on their rows.
import type { RefObject } from 'preact';
import { useEffect, useImperativeHandle, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { ArchivedSegment, MessageRow, PlanView } from '../../../src/protocol';
import { archiveItems, type ArchiveItem } from '../archive';
import { barScale, type PlanIndex, type SessionIndex } from '../derive';
import { fmtInt, fmtTokens, KIND_LABEL } from '../format';
import { gapTop, makeLayout, rowAt, rowTop, ROW_HEIGHT, totalHeight, visibleRange, type Gap, type Layout } from '../layout';
import { ArchivedHistory } from './ArchivedHistory';
import { CacheBoundaryMarker } from './CacheBoundary';
import { PinMarker } from './RowActions';
import { ServerMarker } from './ServerMarker';
import { splitKey } from './SplitHere';

const OVERSCAN = 8;

export interface TimelineApi {
  scrollToIndex(index: number, align?: 'nearest' | 'center'): void;
  scrollToFraction(fraction: number): void;
  focus(): void;
}

export interface ViewportInfo {
  scrollTop: number;
  /** First and last row (inclusive) at least partly in view. */
  first: number;
  last: number;
}

export interface TimelineProps {
  rows: readonly MessageRow[];
  /** Changes when another session (or file) is shown: the scroll position starts over. */
  sessionKey: string;
  index: SessionIndex;
  plan: PlanView | null;
  planIndex: PlanIndex | null;
  planTitle: string;
  selected: number;
  initialScrollTop: number;
  apiRef: RefObject<TimelineApi | null>;
  onSelect(index: number): void;
  onOpen(index: number): void;
  onViewport(info: ViewportInfo): void;
  /** Contexts replaced by recorded compactions, drawn (greyed, collapsed by default) above the rows. */
  archived?: readonly ArchivedSegment[];
  /** The message whose detail shows (archived rows are marked by it; they have no selection of their own). */
  detailId?: string | null;
  onOpenArchived?(id: string): void;
  /** Shift+S on the focused row: "compact everything before this" (absent: not offered). */
  onSplitHere?(index: number): void;
}

export function Timeline(p: TimelineProps) {
  const { rows, index, plan, planIndex } = p;
  const scroller = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const height = useClientHeight(scroller);
  const n = rows.length;
  const [archive, setExpanded] = useArchive(p.archived);
  const layout = useAnchoredLayout(n, index, planIndex, archive.length * ROW_HEIGHT, scroller, setScrollTop);

  useSessionStart(scroller, p.sessionKey, p.initialScrollTop, (top) => {
    setExpanded(() => new Set());
    setScrollTop(top);
  });

  const [start, end] = visibleRange(layout, scrollTop, height, OVERSCAN);
  const first = rowAt(layout, scrollTop);
  const last = rowAt(layout, scrollTop + height - 1);
  useEffect(() => p.onViewport({ scrollTop, first, last }), [scrollTop, first, last]);

  const scrollToIndex = (i: number, align: 'nearest' | 'center' = 'nearest') => {
    const el = scroller.current;
    if (!el || n === 0) return;
    const next = scrollTopFor(layout, Math.min(n - 1, Math.max(0, i)), align, el.scrollTop, el.clientHeight);
    if (next !== el.scrollTop) {
      el.scrollTop = next;
      setScrollTop(el.scrollTop);
    }
  };
  useImperativeHandle(
    p.apiRef,
    () => ({
      scrollToIndex,
      scrollToFraction: (f: number) => scrollToIndex(Math.round(f * (n - 1)), 'center'),
      focus: () => scroller.current?.focus(),
    }),
    [layout, n],
  );

  // Keyboard moves keep the selected row in view.
  const keyMoved = useRef(false);
  useLayoutEffect(() => {
    if (keyMoved.current && p.selected >= 0) scrollToIndex(p.selected);
    keyMoved.current = false;
  }, [p.selected]);

  const onKeyDown = (e: KeyboardEvent) => {
    if (n === 0) return;
    const cur = p.selected;
    if (splitKey(e, cur, p.onSplitHere)) return;
    if (e.key === 'Enter' || e.key === ' ') {
      if (cur >= 0) {
        e.preventDefault();
        p.onOpen(cur);
      }
      return;
    }
    const page = Math.max(1, Math.floor(height / ROW_HEIGHT) - 1);
    const target = keyTarget(e.key, cur, first, n, page);
    if (target === null) return;
    e.preventDefault();
    const next = Math.min(n - 1, Math.max(0, target));
    keyMoved.current = true;
    if (next === cur) scrollToIndex(next);
    p.onSelect(next);
  };

  const onClick = (e: MouseEvent) => {
    if (!archivedClick(e, setExpanded, p.onOpenArchived)) rowClick(e, p);
  };

  const onFocus = () => {
    if (p.selected < 0 && n > 0) p.onSelect(first);
  };

  const items = rowItems(rows, layout, start, end, index, planIndex, p.selected);
  const activeId = p.selected >= 0 && p.selected < n ? `sp-row-${p.selected}` : undefined;

  return (
    <div
      ref={scroller}
      class="timeline"
      role="listbox"
      tabIndex={0}
      aria-label={`Conversation timeline, ${fmtInt(n)} messages, oldest first`}
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
            detailId={p.detailId ?? null}
          />
        )}
        {layout.gaps.map((g, k) => (
          <SplitDivider
            key={g.kind}
            gap={g}
            top={gapTop(layout, k)}
            below={rows[g.index]}
            plan={g.kind === 'preview' ? plan : null}
            planTitle={p.planTitle}
          />
        ))}
        {items}
        <CacheBoundaryMarker boundary={index.cacheBoundary} rows={rows} layout={layout} />
      </div>
      {n === 0 && <div class="timeline-empty">No messages yet.</div>}
    </div>
  );
}

/** The <Row> elements of rows start..end-1 (the rows in view plus the overscan). */
function rowItems(
  rows: readonly MessageRow[],
  layout: Layout,
  start: number,
  end: number,
  index: SessionIndex,
  planIndex: PlanIndex | null,
  selected: number,
) {
  const n = rows.length;
  const items = [];
  for (let i = start; i < end; i++) {
    items.push(
      <Row key={rows[i].id} row={rows[i]} top={rowTop(layout, i)} size={n} index={index} planIndex={planIndex} selected={i === selected} />,
    );
  }
  return items;
}

/** A click in the archived history: a header toggles its context, an archived row opens its detail. */
/** A click on a row selects it and opens its detail. */
function rowClick(e: MouseEvent, p: Pick<TimelineProps, 'onSelect' | 'onOpen'>): void {
  const target = (e.target as Element | null)?.closest?.('[data-index]');
  if (!target) return;
  const i = Number(target.getAttribute('data-index'));
  if (!Number.isInteger(i)) return;
  p.onSelect(i);
  p.onOpen(i);
}

function archivedClick(e: MouseEvent, setExpanded: SetExpanded, open?: (id: string) => void): boolean {
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
    open?.(row.getAttribute('data-archived-id')!);
    return true;
  }
  return false;
}

/** A new session starts at the top (the archived history collapsed); the first one restores the persisted position. */
function useSessionStart(
  scroller: RefObject<HTMLDivElement>,
  sessionKey: string,
  initialScrollTop: number,
  started: (top: number) => void,
) {
  const firstSession = useRef(true);
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    el.scrollTop = firstSession.current ? initialScrollTop : 0;
    firstSession.current = false;
    started(el.scrollTop);
  }, [sessionKey]);
}

type SetExpanded = (f: (s: ReadonlySet<number>) => ReadonlySet<number>) => void;

/** The archived history's items; which contexts are expanded (none at first, none again for another session). */
function useArchive(archived: readonly ArchivedSegment[] | undefined): [ArchiveItem[], SetExpanded] {
  const [expanded, setExpanded] = useState<ReadonlySet<number>>(new Set());
  const items = useMemo(() => archiveItems(archived ?? [], expanded), [archived, expanded]);
  return [items, setExpanded];
}

/** The scroller's height, kept up to date as the panel resizes. */
function useClientHeight(scroller: RefObject<HTMLDivElement>): number {
  const [height, setHeight] = useState(400);
  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    setHeight(el.clientHeight || 400);
    const ro = new ResizeObserver(() => setHeight(el.clientHeight || 400));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  return height;
}

/** The rows' geometry with the split dividers; keeps the rows in view still when a divider appears or goes above them. */
function useAnchoredLayout(
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

/** The scroll position that shows row `i` (centred, or scrolled just into view), within the content. */
function scrollTopFor(layout: Layout, i: number, align: 'nearest' | 'center', scrollTop: number, h: number): number {
  const top = rowTop(layout, i);
  let next = scrollTop;
  if (align === 'center') next = top - h / 2 + ROW_HEIGHT / 2;
  else if (top < scrollTop) next = top;
  else if (top + ROW_HEIGHT > scrollTop + h) next = top + ROW_HEIGHT - h;
  return Math.max(0, Math.min(next, totalHeight(layout) - h));
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

interface SplitDividerProps {
  gap: Gap;
  top: number;
  /** The row right after the divider, if any. */
  below: MessageRow | undefined;
  plan: PlanView | null;
  planTitle: string;
}

function SplitDivider({ gap, top, below, plan, planTitle }: SplitDividerProps) {
  let label: string;
  if (gap.kind === 'current') {
    label =
      below?.kind === 'summary'
        ? 'Split point · current history: the summary below stands for the archived history'
        : below?.kind === 'placeholder'
          ? 'Split point · current history: earlier messages were archived'
          : 'Split point · current history: the tail starts below';
  } else if (plan) {
    const archived = plan.archivedIds.length;
    label =
      archived === 0
        ? `Split point · preview (${planTitle}): nothing archived`
        : `Split point · preview (${planTitle}): ${fmtInt(archived)} archived${plan.needsSummary ? ' → new summary here' : ''}`;
  } else {
    label = 'Split point · preview';
  }
  return (
    <div
      class={`split-divider split-${gap.kind}`}
      data-marker={`${gap.kind}-split`}
      data-split-index={gap.index}
      aria-hidden="true"
      style={{ top: `${top}px` }}
    >
      <span class="split-line" />
      <span class="split-label">{label}</span>
    </div>
  );
}

interface RowProps {
  row: MessageRow;
  top: number;
  size: number;
  index: SessionIndex;
  planIndex: PlanIndex | null;
  selected: boolean;
}

function Row({ row, top, size, index, planIndex, selected }: RowProps) {
  const i = row.index;
  const archived = planIndex?.archived.has(row.id) ?? false;
  const kept = planIndex ? planIndex.kept.has(row.id) : false;
  const willTruncate = planIndex?.truncated.get(row.id);
  const isCurrentTail = index.tailIndex === i;
  const isPreviewTail = planIndex?.tailIndex === i;
  const turnStart = row.kind === 'user-prompt';
  const cls = [
    'row',
    `kind-${row.kind}`,
    row.turn >= 0 && row.turn % 2 === 1 ? 'band' : '',
    turnStart ? 'turn-start' : '',
    selected ? 'selected' : '',
    archived ? 'archived' : '',
    kept ? 'kept' : '',
    willTruncate ? 'will-truncate' : '',
    row.truncated ? 'truncated' : '',
    row.pinned ? 'pinned' : '',
  ]
    .filter(Boolean)
    .join(' ');

  const scale = barScale(row.tokens, index.maxTokens);
  const ghost = row.truncated ? barScale(row.truncated.originalTokens, index.maxTokens) : 0;
  // A tool call's preview starts with the tool name already; a result's does not.
  const tools = row.kind === 'tool-result' && row.tools && row.tools.length > 0 ? `${row.tools.join(', ')} · ` : '';

  const label = [
    `#${i}`,
    row.pinned ? `${KIND_LABEL[row.kind]}, pinned` : KIND_LABEL[row.kind],
    fmtTokens(row.tokens),
    row.truncated ? `truncated, original ${fmtTokens(row.truncated.originalTokens)}` : '',
    archived ? 'archived in preview' : kept ? 'kept in preview' : '',
    willTruncate ? `truncated in preview to ${fmtTokens(willTruncate.tokens)}` : '',
    isCurrentTail ? 'current tail start' : '',
    isPreviewTail ? 'preview tail start' : '',
    index.splitIndex === i ? 'first message after the current split point' : '',
    planIndex?.splitIndex === i ? 'first message after the preview split point' : '',
    `${tools}${row.preview}`,
  ]
    .filter(Boolean)
    .join(', ');

  return (
    <div
      id={`sp-row-${i}`}
      class={cls}
      role="option"
      aria-selected={selected}
      aria-posinset={i + 1}
      aria-setsize={size}
      aria-label={label}
      data-index={i}
      data-id={row.id}
      data-kind={row.kind}
      style={{ top: `${top}px` }}
    >
      <span class="gutter" aria-hidden="true">
        {isCurrentTail && (
          <span class="pointer pointer-current" title="Tail start (current history)">
            ▶
          </span>
        )}
        {isPreviewTail && (
          <span class="pointer pointer-preview" title="Tail start (preview)">
            ▷
          </span>
        )}
      </span>
      <span class="idx" aria-hidden="true">
        {i}
      </span>
      <span class="kind" aria-hidden="true">
        <span class="swatch" />
        <span class="kind-label">{KIND_LABEL[row.kind]}</span>
      </span>
      <span class="bar-track" aria-hidden="true">
        {ghost > 0 && <span class="bar-ghost" style={{ width: `${ghost * 100}%` }} />}
        <span class="bar" style={{ width: `${Math.max(scale * 100, 1.5)}%` }} />
      </span>
      <span class="tok" aria-hidden="true">
        {fmtInt(row.tokens)}
      </span>
      <span class="preview" aria-hidden="true">
        {row.kind === 'summary' && <span class="expand">▸ </span>}
        {tools && <span class="tools">{tools}</span>}
        {row.preview}
      </span>
      <span class="badges" aria-hidden="true">
        {row.pinned && <PinMarker />}
        {row.server && <ServerMarker server={row.server} />}
        {row.truncated && (
          <span
            class="badge badge-truncated"
            title={`Micro-compacted: the model sees ${fmtTokens(row.tokens)} instead of ${fmtTokens(row.truncated.originalTokens)}`}
          >
            <span class="badge-words">truncated · </span>original {fmtInt(row.truncated.originalTokens)} tok
          </span>
        )}
        {willTruncate && (
          <span class="badge badge-will-truncate" data-marker="preview-truncated">
            <span class="badge-words">preview: truncated </span>→ {fmtInt(willTruncate.tokens)} tok
          </span>
        )}
        {isCurrentTail && (
          <span class="badge badge-tail-current" data-marker="current-tail">
            tail start
          </span>
        )}
        {isPreviewTail && (
          <span class="badge badge-tail-preview" data-marker="preview-tail">
            tail start · preview
          </span>
        )}
      </span>
    </div>
  );
}
