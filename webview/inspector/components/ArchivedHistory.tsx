// The archived part of the timeline: the contexts that recorded compactions replaced (greyed,
// collapsed by default, expandable) and a marker per compaction (who compacted, the trigger, the
// tokens it recorded before, its summary). Only the items in view are rendered.
import type { ArchiveItem } from '../archive';
import { barScale } from '../derive';
import { formatInt, formatTokens, plural } from '../../shared/format';
import { KIND_LABEL } from '../kinds';
import { ROW_HEIGHT } from '../layout';
import { probeRateText } from './ProbeList';

export interface ArchivedHistoryProps {
  items: readonly ArchiveItem[];
  /** The part of the timeline in view (pixels), overscan included. */
  from: number;
  to: number;
  maxTokens: number;
  detailId: string | null;
}

export function ArchivedHistory({ items, from, to, maxTokens, detailId }: ArchivedHistoryProps) {
  const first = Math.max(0, Math.floor(from / ROW_HEIGHT));
  const last = Math.min(items.length, Math.ceil(to / ROW_HEIGHT));
  const out = [];
  for (let k = first; k < last; k++)
    out.push(<Item key={itemKey(items[k])} item={items[k]} top={k * ROW_HEIGHT} maxTokens={maxTokens} detailId={detailId} />);
  return <>{out}</>;
}

function itemKey(item: ArchiveItem): string {
  const n = item.segment.compaction.index;
  return item.kind === 'row' ? `a${n}-${item.row.id}` : `${item.kind}-${n}`;
}

function Item({ item, top, maxTokens, detailId }: { item: ArchiveItem; top: number; maxTokens: number; detailId: string | null }) {
  const c = item.segment.compaction;
  const style = { top: `${top}px` };
  if (item.kind === 'header') {
    const tokens = item.segment.rows.reduce((n, r) => n + r.tokens, 0);
    const what = `${plural(c.archivedCount, 'message')} (${formatInt(tokens)} tok, o200k)`;
    const label = `${item.expanded ? 'Hide' : 'Show'} the ${what} that compaction ${c.index} replaced`;
    return (
      <button
        type="button"
        class={`archive-header${item.expanded ? ' expanded' : ''}`}
        data-archive-toggle={c.index}
        aria-expanded={item.expanded}
        style={style}
        title={label}
      >
        <span class="archive-chevron" aria-hidden="true">
          {item.expanded ? '▾' : '▸'}
        </span>
        <span class="archive-title">Archived before compaction {c.index}</span>
        <span class="muted">
          {plural(c.archivedCount, 'message')} · {formatTokens(tokens)} · {item.expanded ? 'click to collapse' : 'click to expand'}
        </span>
      </button>
    );
  }
  if (item.kind === 'marker') {
    const pre = c.preTokens !== null ? `${formatInt(c.preTokens)} tokens recorded before` : 'tokens before not recorded';
    return (
      <div
        class="archive-marker"
        data-marker="recorded-compaction"
        data-compaction={c.index}
        style={style}
        title={`${c.agent} compacted here (${c.trigger}) at line ${c.line}. Summary: ${c.summaryPreview}`}
      >
        <span class="archive-marker-line" aria-hidden="true" />
        <span class="archive-marker-label">
          Compaction {c.index} · {c.agent} · <span class="tag">{c.trigger}</span> · {pre} · summary {formatTokens(c.summaryTokens)} below
          {c.probes && (
            <>
              {' · '}
              <span class="probe-rate" data-stat="probes" data-answerable={c.probes.answerable} data-total={c.probes.total}>
                {probeRateText(c.probes)}
              </span>
            </>
          )}
        </span>
      </div>
    );
  }
  const r = item.row;
  const tools = r.kind === 'tool-result' && r.tools && r.tools.length > 0 ? `${r.tools.join(', ')} · ` : '';
  return (
    <div
      class={`row history-row kind-${r.kind}${detailId === r.id ? ' selected' : ''}`}
      data-archived-id={r.id}
      data-compaction={c.index}
      data-kind={r.kind}
      style={style}
      title={`Archived by compaction ${c.index}: #${r.index} ${KIND_LABEL[r.kind]}, ${formatTokens(r.tokens)}`}
    >
      <span class="gutter" aria-hidden="true" />
      <span class="idx">{r.index}</span>
      <span class="kind">
        <span class="swatch" />
        <span class="kind-label">{KIND_LABEL[r.kind]}</span>
      </span>
      <span class="bar-track">
        <span class="bar" style={{ width: `${Math.max(barScale(r.tokens, maxTokens) * 100, 1.5)}%` }} />
      </span>
      <span class="tok">{formatInt(r.tokens)}</span>
      <span class="preview">
        {tools && <span class="tools">{tools}</span>}
        {r.preview}
      </span>
      <span class="badges" />
    </div>
  );
}
