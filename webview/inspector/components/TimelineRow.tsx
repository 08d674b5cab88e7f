// One message of the timeline: its kind, size bar, preview text and badges (pinned, truncated, what the
// previewed plan does to it, the tail-start pointers), and the one aria-label that says all of it.
// A row re-renders only when what it shows changed: a followed session is sent again on every call,
// with every row a new object, and the rows in view are then mostly the same messages.
import { Component, h } from 'preact';
import type { MessageRow, ServerContextView } from '../../../src/protocol';
import { formatInt, formatTokens } from '../../shared/format';
import { barScale, type PlanIndex, type SessionIndex } from '../derive';
import { KIND_LABEL } from '../kinds';
import { rowTop, type Layout } from '../layout';
import { PinMarker } from './RowActions';
import { ServerMarker } from './ServerMarker';

/** The rows start..end-1 of rows start..end-1 (the rows in view plus the overscan). */
export function rowItems(
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
    const row = rows[i];
    items.push(
      h(MemoRow, {
        key: row.id,
        row,
        top: rowTop(layout, i),
        size: n,
        maxTokens: index.maxTokens,
        f: rowFacts(row, index, planIndex),
        selected: i === selected,
      }),
    );
  }
  return items;
}

interface TimelineRowProps {
  row: MessageRow;
  top: number;
  size: number;
  /** The session's largest row (bars are relative to it). */
  maxTokens: number;
  f: RowFacts;
  selected: boolean;
}

/** What the row is, in the current history and in the previewed plan. */
interface RowFacts {
  archived: boolean;
  kept: boolean;
  willTruncate: { tokens: number; originalTokens: number } | undefined;
  isCurrentTail: boolean;
  isPreviewTail: boolean;
  /** The current history's / the preview's split point sits just before this row. */
  currentSplit: boolean;
  previewSplit: boolean;
  /** A tool result's tool names, as its preview's prefix ('' for other rows). */
  tools: string;
}

function rowFacts(row: MessageRow, index: SessionIndex, planIndex: PlanIndex | null): RowFacts {
  return {
    archived: planIndex?.archived.has(row.id) ?? false,
    kept: planIndex ? planIndex.kept.has(row.id) : false,
    willTruncate: planIndex?.truncated.get(row.id),
    isCurrentTail: index.tailIndex === row.index,
    isPreviewTail: planIndex?.tailIndex === row.index,
    currentSplit: index.splitIndex === row.index,
    previewSplit: planIndex?.splitIndex === row.index,
    // A tool call's preview starts with the tool name already; a result's does not.
    tools: row.kind === 'tool-result' && row.tools && row.tools.length > 0 ? `${row.tools.join(', ')} · ` : '',
  };
}

/** TimelineRow, drawn again only when a prop or what its row shows changed (not when only the row object is new). */
class MemoRow extends Component<TimelineRowProps> {
  override shouldComponentUpdate(next: TimelineRowProps): boolean {
    const p = this.props;
    return !(
      p.top === next.top &&
      p.size === next.size &&
      p.maxTokens === next.maxTokens &&
      p.selected === next.selected &&
      sameFacts(p.f, next.f) &&
      sameRow(p.row, next.row)
    );
  }
  override render() {
    return h(TimelineRow, this.props);
  }
}

function sameFacts(a: RowFacts, b: RowFacts): boolean {
  const x = a.willTruncate;
  const y = b.willTruncate;
  return (
    a.archived === b.archived &&
    a.kept === b.kept &&
    (x === y || (x !== undefined && y !== undefined && x.tokens === y.tokens && x.originalTokens === y.originalTokens)) &&
    a.isCurrentTail === b.isCurrentTail &&
    a.isPreviewTail === b.isPreviewTail &&
    a.currentSplit === b.currentSplit &&
    a.previewSplit === b.previewSplit &&
    a.tools === b.tools
  );
}

/** The same message, showing the same (every field TimelineRow reads). */
function sameRow(a: MessageRow, b: MessageRow): boolean {
  if (a === b) return true;
  const t = a.truncated;
  const u = b.truncated;
  return (
    a.id === b.id &&
    a.index === b.index &&
    a.kind === b.kind &&
    a.tokens === b.tokens &&
    a.turn === b.turn &&
    a.preview === b.preview &&
    a.pinned === b.pinned &&
    (t === u ||
      (t !== undefined &&
        u !== undefined &&
        t.tokens === u.tokens &&
        t.originalTokens === u.originalTokens &&
        (t.superseded ?? []).join('\n') === (u.superseded ?? []).join('\n'))) &&
    sameServer(a.server, b.server)
  );
}

function sameServer(a: ServerContextView | undefined, b: ServerContextView | undefined): boolean {
  return (
    a === b ||
    (a !== undefined &&
      b !== undefined &&
      a.strategy === b.strategy &&
      a.clearedToolUses === b.clearedToolUses &&
      a.clearedInputTokens === b.clearedInputTokens &&
      a.compaction === b.compaction)
  );
}

type Truncation = NonNullable<MessageRow['truncated']>;

/** "truncated", or what superseded the results: "superseded (src/a.ts was read again in call 57)". */
function truncatedWords(t: Truncation): string {
  return t.superseded ? `superseded (${t.superseded.join('; ')})` : 'truncated';
}

function truncatedTitle(tokens: number, t: Truncation): string {
  const sees = `Micro-compacted: the model sees ${formatTokens(tokens)} instead of ${formatTokens(t.originalTokens)}`;
  return t.superseded ? `${sees}. Superseded: ${t.superseded.join('; ')}` : sees;
}

function rowClass(row: MessageRow, f: RowFacts, selected: boolean): string {
  return [
    'row',
    `kind-${row.kind}`,
    row.turn >= 0 && row.turn % 2 === 1 ? 'band' : '',
    row.kind === 'user-prompt' ? 'turn-start' : '',
    selected ? 'selected' : '',
    f.archived ? 'archived' : '',
    f.kept ? 'kept' : '',
    f.willTruncate ? 'will-truncate' : '',
    row.truncated ? 'truncated' : '',
    row.pinned ? 'pinned' : '',
  ]
    .filter(Boolean)
    .join(' ');
}

/** Everything the row shows, as one sentence for a screen reader. */
function rowLabel(row: MessageRow, f: RowFacts): string {
  const i = row.index;
  return [
    `#${i}`,
    row.pinned ? `${KIND_LABEL[row.kind]}, pinned` : KIND_LABEL[row.kind],
    formatTokens(row.tokens),
    row.truncated ? `${truncatedWords(row.truncated)}, original ${formatTokens(row.truncated.originalTokens)}` : '',
    f.archived ? 'archived in preview' : f.kept ? 'kept in preview' : '',
    f.willTruncate ? `truncated in preview to ${formatTokens(f.willTruncate.tokens)}` : '',
    f.isCurrentTail ? 'current tail start' : '',
    f.isPreviewTail ? 'preview tail start' : '',
    f.currentSplit ? 'first message after the current split point' : '',
    f.previewSplit ? 'first message after the preview split point' : '',
    `${f.tools}${row.preview}`,
  ]
    .filter(Boolean)
    .join(', ');
}

function TimelineRow({ row, top, size, maxTokens, f, selected }: TimelineRowProps) {
  const i = row.index;
  const scale = barScale(row.tokens, maxTokens);
  const ghost = row.truncated ? barScale(row.truncated.originalTokens, maxTokens) : 0;
  return (
    <div
      id={`sp-row-${i}`}
      class={rowClass(row, f, selected)}
      role="option"
      aria-selected={selected}
      aria-posinset={i + 1}
      aria-setsize={size}
      aria-label={rowLabel(row, f)}
      data-index={i}
      data-id={row.id}
      data-kind={row.kind}
      style={{ top: `${top}px` }}
    >
      <span class="gutter" aria-hidden="true">
        {f.isCurrentTail && (
          <span class="pointer pointer-current" title="Tail start (current history)">
            ▶
          </span>
        )}
        {f.isPreviewTail && (
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
        {formatInt(row.tokens)}
      </span>
      <span class="preview" aria-hidden="true">
        {row.kind === 'summary' && <span class="expand">▸ </span>}
        {f.tools && <span class="tools">{f.tools}</span>}
        {row.preview}
      </span>
      <RowBadges row={row} f={f} />
    </div>
  );
}

function RowBadges({ row, f }: { row: MessageRow; f: RowFacts }) {
  return (
    <span class="badges" aria-hidden="true">
      {row.pinned && <PinMarker />}
      {row.server && <ServerMarker server={row.server} />}
      {row.truncated && (
        <span
          class="badge badge-truncated"
          data-marker={row.truncated.superseded ? 'superseded' : undefined}
          title={truncatedTitle(row.tokens, row.truncated)}
        >
          <span class="badge-words">{row.truncated.superseded ? 'superseded' : 'truncated'} · </span>original{' '}
          {formatInt(row.truncated.originalTokens)} tok
        </span>
      )}
      {f.willTruncate && (
        <span class="badge badge-will-truncate" data-marker="preview-truncated">
          <span class="badge-words">preview: truncated </span>→ {formatInt(f.willTruncate.tokens)} tok
        </span>
      )}
      {f.isCurrentTail && (
        <span class="badge badge-tail-current" data-marker="current-tail">
          tail start
        </span>
      )}
      {f.isPreviewTail && (
        <span class="badge badge-tail-preview" data-marker="preview-tail">
          tail start · preview
        </span>
      )}
    </span>
  );
}
