// The archived history drawn above the current context: for each recorded compaction (oldest
// first) a header that expands or collapses the context it replaced (collapsed by default), that
// context's rows when expanded, and a marker for the compaction itself. Every item is one row high.
import type { ArchivedSegment, MessageRow } from '../../src/protocol';

export type ArchiveItem =
  | { kind: 'header'; segment: ArchivedSegment; expanded: boolean }
  | { kind: 'row'; segment: ArchivedSegment; row: MessageRow }
  | { kind: 'marker'; segment: ArchivedSegment };

export function archiveItems(segments: readonly ArchivedSegment[], expanded: ReadonlySet<number>): ArchiveItem[] {
  const items: ArchiveItem[] = [];
  for (const segment of segments) {
    const open = expanded.has(segment.compaction.index);
    items.push({ kind: 'header', segment, expanded: open });
    if (open) for (const row of segment.rows) items.push({ kind: 'row', segment, row });
    items.push({ kind: 'marker', segment });
  }
  return items;
}

/** Archived rows by id (the detail pane shows them too). */
export function archivedRowsById(segments: readonly ArchivedSegment[] | undefined): Map<string, { row: MessageRow; compaction: number }> {
  const out = new Map<string, { row: MessageRow; compaction: number }>();
  for (const s of segments ?? []) for (const row of s.rows) out.set(row.id, { row, compaction: s.compaction.index });
  return out;
}
