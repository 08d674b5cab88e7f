// The cache boundary in the timeline: a line under the last message of the prefix the last model call
// read from the prompt cache (at the top when only the system prompt and tools were read). It overlays
// the rows (takes no space); its tooltip says how many tokens were read and how the place was found.
import { useMemo } from 'preact/hooks';
import type { CacheBoundaryView, MessageRow } from '../../../src/protocol';
import { formatInt } from '../../shared/format';
import { rowTop, ROW_HEIGHT, type Layout } from '../layout';

export interface CacheBoundaryProps {
  boundary: CacheBoundaryView | undefined;
  rows: readonly MessageRow[];
  layout: Layout;
}

export function cacheBoundaryTitle(b: CacheBoundaryView): string {
  const where =
    b.source === 'breakpoint'
      ? 'exactly where an earlier call’s request ended (its cache breakpoint)'
      : 'estimated from the rows’ token counts (no earlier call’s request matches the read)';
  const what = b.afterId === null ? 'the system prompt and tools only' : 'everything above this line';
  return `Cache boundary: the last call read ${formatInt(b.readTokens)} tokens from the prompt cache, ${what}. Placed ${where}.`;
}

export function CacheBoundaryMarker({ boundary, rows, layout }: CacheBoundaryProps) {
  // Found once per session, not on every scroll.
  const afterId = boundary?.afterId ?? null;
  const i = useMemo(() => (afterId === null ? -1 : rows.findIndex((r) => r.id === afterId)), [rows, afterId]);
  if (!boundary) return null;
  if (boundary.afterId !== null && i < 0) return null;
  const top = i < 0 ? (rows.length > 0 ? rowTop(layout, 0) : 0) : rowTop(layout, i) + ROW_HEIGHT;
  const title = cacheBoundaryTitle(boundary);
  return (
    <div
      class={`cache-boundary cache-${boundary.source}`}
      data-marker="cache-boundary"
      data-after={boundary.afterId ?? ''}
      data-source={boundary.source}
      role="note"
      aria-label={title}
      title={title}
      style={{ top: `${top - 1}px` }}
    >
      <span class="cache-boundary-label">
        cached ↑ {formatInt(boundary.readTokens)} tok{boundary.source === 'estimate' ? ' (est.)' : ''}
      </span>
    </div>
  );
}
