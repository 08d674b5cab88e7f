// The whole session at a glance: one column per group of messages (height by tokens, colour by the
// kind carrying most of them), the split points and tail-start pointers, and the timeline's viewport.
// Clicking or dragging scrolls the timeline there (the listbox itself is the keyboard route).
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { MessageRow } from '../../../src/protocol';
import { archivedShare, bucketize, type PlanIndex, type SessionIndex } from '../derive';
import { formatInt } from '../../shared/format';
import { useStore } from '../context';

const MAX_COLUMNS = 240;

export interface MinimapProps {
  rows: readonly MessageRow[];
  index: SessionIndex;
  planIndex: PlanIndex | null;
  /** Draw the columns (false: the box, the viewport and the markers only, for the first frame). */
  columns: boolean;
}

export function Minimap({ rows, index, planIndex, columns: drawColumns }: MinimapProps) {
  const store = useStore();
  const viewport = store.viewport;
  const n = rows.length;
  const buckets = useMemo(() => (drawColumns ? bucketize(rows, MAX_COLUMNS) : []), [rows, drawColumns]);
  const maxBucket = useMemo(() => buckets.reduce((m, b) => Math.max(m, b.tokens), 1), [buckets]);
  const shares = useMemo(() => (planIndex ? archivedShare(buckets, rows, planIndex.archived) : null), [buckets, rows, planIndex]);
  const columns = useMemo(
    () =>
      buckets.map((b, k) => {
        const share = shares?.[k] ?? 0;
        return (
          <div
            key={k}
            class={`mm-col kind-${b.kind}${b.band ? ' band' : ''}${share > 0 ? ' mm-archived' : ''}`}
            style={{ height: `${Math.max(8, Math.sqrt(b.tokens / maxBucket) * 100)}%`, opacity: share > 0 ? String(1 - 0.7 * share) : '' }}
          />
        );
      }),
    [buckets, maxBucket, shares],
  );

  const [vp, setVp] = useState(viewport.get());
  useEffect(() => viewport.subscribe(setVp), [viewport]);

  const box = useRef<HTMLDivElement>(null);
  const dragging = useRef(false);
  const seek = (e: PointerEvent) => {
    const el = box.current;
    if (!el) return;
    const r = el.getBoundingClientRect();
    store.seek(Math.min(1, Math.max(0, (e.clientX - r.left) / Math.max(1, r.width))));
  };

  if (n === 0) return null;
  const at = (i: number) => `${(i / n) * 100}%`;
  const markers: Array<{ key: string; cls: string; left: string; label: string }> = [];
  if (index.splitIndex !== null)
    markers.push({ key: 'current-split', cls: 'mm-split mm-current', left: at(index.splitIndex), label: 'split' });
  if (index.tailIndex !== null)
    markers.push({ key: 'current-tail', cls: 'mm-tail mm-current', left: at(index.tailIndex + 0.5), label: 'tail' });
  if (planIndex?.splitIndex != null)
    markers.push({ key: 'preview-split', cls: 'mm-split mm-preview', left: at(planIndex.splitIndex), label: 'split' });
  if (planIndex?.tailIndex != null)
    markers.push({ key: 'preview-tail', cls: 'mm-tail mm-preview', left: at(planIndex.tailIndex + 0.5), label: 'tail' });

  const describe = [
    `${formatInt(n)} messages`,
    index.splitIndex !== null ? `current split before message ${index.splitIndex}` : '',
    planIndex?.splitIndex != null ? `preview split before message ${planIndex.splitIndex}` : '',
  ]
    .filter(Boolean)
    .join('; ');

  return (
    <div
      ref={box}
      class="minimap"
      role="img"
      aria-label={`Session overview: ${describe}`}
      onPointerDown={(e) => {
        dragging.current = true;
        (e.currentTarget as HTMLElement).setPointerCapture?.(e.pointerId);
        seek(e);
      }}
      onPointerMove={(e) => dragging.current && seek(e)}
      onPointerUp={() => (dragging.current = false)}
      onPointerCancel={() => (dragging.current = false)}
    >
      <div class="mm-cols">{columns}</div>
      <div class="mm-viewport" style={{ left: at(vp.first), width: `max(3px, ${((vp.last - vp.first + 1) / n) * 100}%)` }} />
      {markers.map((m) => (
        <div key={m.key} class={`mm-marker ${m.cls}`} data-marker={`mm-${m.key}`} style={{ left: m.left }}>
          <span class="mm-label">{m.label}</span>
        </div>
      ))}
    </div>
  );
}
