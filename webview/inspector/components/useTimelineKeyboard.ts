// The timeline's keyboard and focus: the arrows, Page Up / Page Down, Home and End move the selection
// (keeping the selected row in view), Enter or Space opens the selected row, Shift+S splits there, and
// focusing the timeline with nothing selected selects the first row in view.
import { useLayoutEffect, useRef } from 'preact/hooks';
import type { MessageRow } from '../../../src/protocol';
import { useStore } from '../context';
import { ROW_HEIGHT } from '../layout';
import { splitKey } from './SplitHere';
import type { TimelineViewport } from './useTimelineViewport';

export interface TimelineKeyboard {
  onKeyDown(e: KeyboardEvent): void;
  onFocus(): void;
}

export function useTimelineKeyboard(rows: readonly MessageRow[], selected: number, view: TimelineViewport): TimelineKeyboard {
  const store = useStore();
  const n = rows.length;
  const { first, height, scrollToIndex } = view;

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

  const onFocus = () => {
    if (selected < 0 && n > 0) store.select(first);
  };

  return { onKeyDown, onFocus };
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
