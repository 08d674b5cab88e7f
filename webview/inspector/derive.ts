// Lookups computed once per session and once per plan (never per row render).
import type { CacheBoundaryView, InspectorSession, MessageRow, PlanView, RowKind, TimeTravelPoint } from '../../src/protocol';
import { archivedRowsById } from './archive';

export interface SessionIndex {
  /** Row of each id (built on first use: a first paint does not need it). */
  readonly indexById: ReadonlyMap<string, number>;
  /** Largest row size, original sizes of truncated rows included (bars are relative to it). */
  readonly maxTokens: number;
  /** Row of the current history's tail-start pointer, if it is among the rows. */
  readonly tailIndex: number | null;
  /**
   * Where the current history's split point sits: before its latest summary / placeholder (the summary
   * sits at the split point), else before the tail-start row; null when the history was never cut.
   */
  readonly splitIndex: number | null;
  /** Number of turns (genuine user prompts). */
  readonly turns: number;
  /** Rows of the archived history (recorded compactions), by id, with the compaction that archived them. */
  readonly archived: Map<string, { row: MessageRow; compaction: number }>;
  /** Up to where the last call was served from the prompt cache (the timeline's marker). */
  readonly cacheBoundary?: CacheBoundaryView;
}

/**
 * The session's lookups. `grown`: the index of the session shown before, when this one only appended
 * rows to it (the same ids, in the same order; state.ts's sessionChange 'append' or 'same'): its row
 * map, if it was built, is extended rather than built again (a followed session grows on every call).
 */
export function indexSession(session: InspectorSession, grown?: SessionIndex | null): SessionIndex {
  const rows = session.rows;
  const before = grown instanceof SessionLookups ? grown : undefined;
  // The rows a grown session kept are the same messages (ids, kinds and stored sizes: sessionChange),
  // so what they contribute is the previous index's; only the appended rows are read.
  let maxTokens = before?.maxTokens ?? 1;
  let lastSynthetic = before?.lastSynthetic ?? -1;
  let turns = before?.turns ?? 0;
  for (let i = before ? before.ids.length : 0; i < rows.length; i++) {
    const r = rows[i];
    const size = r.truncated ? Math.max(r.tokens, r.truncated.originalTokens) : r.tokens;
    if (size > maxTokens) maxTokens = size;
    if (r.kind === 'summary' || r.kind === 'placeholder') lastSynthetic = i;
    if (r.turn + 1 > turns) turns = r.turn + 1;
  }
  const ids = new RowIds(rows, before?.ids);
  const tailIndex = session.tailStartId !== null ? ids.find(session.tailStartId) : null;
  const splitIndex = lastSynthetic >= 0 ? lastSynthetic : tailIndex !== null && tailIndex > 0 ? tailIndex : null;
  return new SessionLookups(ids, lastSynthetic, {
    maxTokens,
    tailIndex,
    splitIndex,
    turns,
    archived: archivedRowsById(session.archived),
    cacheBoundary: session.usage.cacheBoundary,
  });
}

type SessionFigures = Omit<SessionIndex, 'indexById'>;

class SessionLookups implements SessionIndex {
  readonly maxTokens: number;
  readonly tailIndex: number | null;
  readonly splitIndex: number | null;
  readonly turns: number;
  readonly archived: Map<string, { row: MessageRow; compaction: number }>;
  readonly cacheBoundary?: CacheBoundaryView;

  constructor(
    readonly ids: RowIds,
    /** The last summary or placeholder row (-1: none). */
    readonly lastSynthetic: number,
    figures: SessionFigures,
  ) {
    this.maxTokens = figures.maxTokens;
    this.tailIndex = figures.tailIndex;
    this.splitIndex = figures.splitIndex;
    this.turns = figures.turns;
    this.archived = figures.archived;
    if (figures.cacheBoundary) this.cacheBoundary = figures.cacheBoundary;
  }

  get indexById(): ReadonlyMap<string, number> {
    return this.ids.map();
  }
}

/** Row ids to row indexes: a map built on first use, or the previous session's map extended by the appended rows. */
class RowIds {
  private built: Map<string, number> | undefined;
  /** Rows indexed. */
  readonly length: number;

  constructor(
    private readonly rows: readonly MessageRow[],
    from: RowIds | undefined,
  ) {
    this.length = rows.length;
    // The previous session's rows are a prefix of these: its map, if built, is taken over (that session
    // is not shown any more) and gets the appended rows.
    if (from?.built) this.built = extend(from.built, rows, from.rows.length);
  }

  map(): Map<string, number> {
    return (this.built ??= extend(new Map(), this.rows, 0));
  }

  /** The row of `id`, or null; without building the map (searching from the end, where the tail start is). */
  find(id: string): number | null {
    if (this.built) return this.built.get(id) ?? null;
    for (let i = this.rows.length - 1; i >= 0; i--) if (this.rows[i].id === id) return i;
    return null;
  }
}

/** The past context time travel shows (undefined: the current context). */
export function travelPoint(session: InspectorSession): TimeTravelPoint | undefined {
  const travel = session.timeTravel;
  return travel && travel.at !== null ? travel.points.find((p) => p.at === travel.at) : undefined;
}

export interface PlanIndex {
  archived: Set<string>;
  kept: Set<string>;
  truncated: Map<string, { tokens: number; originalTokens: number }>;
  /** Row of the preview's tail-start pointer, if it is among the rows. */
  tailIndex: number | null;
  /** Where the preview's split divider goes (null for a no-op plan). */
  splitIndex: number | null;
}

export function indexPlan(plan: PlanView, session: SessionIndex, rowCount: number): PlanIndex {
  const truncated = new Map<string, { tokens: number; originalTokens: number }>();
  for (const t of plan.truncated) truncated.set(t.id, { tokens: t.tokens, originalTokens: t.originalTokens });
  const tailIndex = plan.tailStartId !== null ? (session.indexById.get(plan.tailStartId) ?? null) : null;
  return {
    archived: new Set(plan.archivedIds),
    kept: new Set(plan.keptIds),
    truncated,
    tailIndex: plan.noop ? null : tailIndex,
    splitIndex: plan.noop ? null : Math.min(rowCount, Math.max(0, plan.splitIndex)),
  };
}

/** Bar width (0..1): square root of the share of the largest message, so small ones stay visible. */
export function barScale(tokens: number, maxTokens: number): number {
  if (tokens <= 0 || maxTokens <= 0) return 0;
  return Math.min(1, Math.sqrt(tokens / maxTokens));
}

export interface Bucket {
  start: number;
  end: number;
  tokens: number;
  /** Kind carrying most of the bucket's tokens. */
  kind: RowKind;
  /** A turn starts inside the bucket at an odd turn (for the alternating band). */
  band: boolean;
}

/** The minimap's columns: `count` contiguous groups of rows (one row each for short sessions). */
export function bucketize(rows: readonly MessageRow[], count: number): Bucket[] {
  const n = rows.length;
  const b = Math.min(n, count);
  const out: Bucket[] = [];
  const byKind = new Map<RowKind, number>();
  for (let k = 0; k < b; k++) {
    const start = Math.floor((k * n) / b);
    const end = Math.floor(((k + 1) * n) / b);
    byKind.clear();
    let tokens = 0;
    for (let i = start; i < end; i++) {
      const r = rows[i];
      tokens += r.tokens;
      byKind.set(r.kind, (byKind.get(r.kind) ?? 0) + r.tokens + 1);
    }
    let kind: RowKind = rows[start].kind;
    let best = -1;
    for (const [k2, t] of byKind) {
      if (t > best) {
        best = t;
        kind = k2;
      }
    }
    out.push({ start, end, tokens, kind, band: rows[start].turn % 2 === 1 });
  }
  return out;
}

/** Share (0..1) of each bucket's rows that the plan archives. */
export function archivedShare(buckets: readonly Bucket[], rows: readonly MessageRow[], archived: ReadonlySet<string>): number[] {
  return buckets.map((bk) => {
    let a = 0;
    for (let i = bk.start; i < bk.end; i++) if (archived.has(rows[i].id)) a++;
    return bk.end > bk.start ? a / (bk.end - bk.start) : 0;
  });
}

function extend(map: Map<string, number>, rows: readonly MessageRow[], from: number): Map<string, number> {
  for (let i = from; i < rows.length; i++) map.set(rows[i].id, i);
  return map;
}
