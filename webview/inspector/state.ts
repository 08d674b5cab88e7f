// The inspector's state and how host messages change it. Pure: no DOM, no posting (the store does that).
import type { HostToInspector, InspectorSession, MessageDetail, MessageRow, PlanView, ReplayView } from '../../src/protocol';

export interface Notice {
  id: number;
  level: 'info' | 'error';
  message: string;
}

/** How the last 'session' message related to the one before it. */
export type SessionChange = 'none' | 'new' | 'append' | 'same' | 'rewrite';

export interface InspectorState {
  session: InspectorSession | null;
  /** Bumped on every 'session' message. */
  sessionSeq: number;
  sessionChange: SessionChange;
  /** The latest accepted plan (only the answer to `latestRequestId` is accepted). */
  plan: PlanView | null;
  /** The history grew since `plan` was computed; a fresh preview is on its way. */
  planStale: boolean;
  latestRequestId: number;
  /** Request id still waiting for its answer. */
  pendingRequestId: number | null;
  /** The strategy whose preview is showing or pending (null: no preview). */
  previewStrategy: string | null;
  planError: string | null;
  /** Focused / selected row index (-1: none). */
  selected: number;
  /** Id whose detail was asked for, and the detail once it came. */
  detailId: string | null;
  detail: MessageDetail | null;
  busy: { busy: boolean; label?: string };
  notices: Notice[];
  noticeSeq: number;
  /** The replay of the inspected file (kept while that file is shown). */
  replay: ReplayView | null;
}

export const initialState: InspectorState = {
  session: null,
  sessionSeq: 0,
  sessionChange: 'none',
  plan: null,
  planStale: false,
  latestRequestId: 0,
  pendingRequestId: null,
  previewStrategy: null,
  planError: null,
  selected: -1,
  detailId: null,
  detail: null,
  busy: { busy: false },
  notices: [],
  noticeSeq: 0,
  replay: null,
};

export type Action =
  | { type: 'host'; message: HostToInspector }
  | { type: 'previewRequested'; requestId: number; strategy: string }
  | { type: 'clearPreview' }
  | { type: 'select'; index: number }
  | { type: 'detailRequested'; id: string; index: number }
  /** An archived row (recorded compaction) opened: no selection, it is not in the context shown. */
  | { type: 'archivedDetailRequested'; id: string }
  | { type: 'closeDetail' }
  | { type: 'dismissNotice'; id: number };

const MAX_NOTICES = 4;

export function reduce(state: InspectorState, action: Action): InspectorState {
  switch (action.type) {
    case 'host':
      return reduceHost(state, action.message);
    case 'previewRequested':
      return {
        ...state,
        latestRequestId: Math.max(state.latestRequestId, action.requestId),
        pendingRequestId: action.requestId,
        previewStrategy: action.strategy,
        planError: null,
      };
    case 'clearPreview':
      return { ...state, plan: null, planStale: false, pendingRequestId: null, previewStrategy: null, planError: null };
    case 'select':
      return { ...state, selected: clampIndex(state, action.index) };
    case 'detailRequested':
      return {
        ...state,
        selected: clampIndex(state, action.index),
        detailId: action.id,
        detail: state.detail?.id === action.id ? state.detail : null,
      };
    case 'archivedDetailRequested':
      return { ...state, detailId: action.id, detail: state.detail?.id === action.id ? state.detail : null };
    case 'closeDetail':
      return { ...state, detailId: null, detail: null };
    case 'dismissNotice':
      return { ...state, notices: state.notices.filter((n) => n.id !== action.id) };
  }
}

function clampIndex(state: InspectorState, index: number): number {
  const n = state.session?.rows.length ?? 0;
  return n === 0 ? -1 : Math.min(n - 1, Math.max(0, index));
}

function reduceHost(state: InspectorState, m: HostToInspector): InspectorState {
  switch (m.type) {
    case 'session':
      return receiveSession(state, m.session);
    case 'plan':
      // Only the answer to the latest request counts: an older one is stale whatever its order.
      if (m.plan.requestId !== state.latestRequestId || state.previewStrategy === null) return state;
      return { ...state, plan: m.plan, planStale: false, pendingRequestId: null, planError: null, previewStrategy: m.plan.strategy };
    case 'planError':
      if (m.requestId !== state.latestRequestId || state.previewStrategy === null) return state;
      return { ...state, pendingRequestId: null, planError: m.message };
    case 'detail':
      return m.detail.id === state.detailId ? { ...state, detail: m.detail } : state;
    case 'busy':
      return { ...state, busy: { busy: m.busy, ...(m.label ? { label: m.label } : {}) } };
    case 'replay':
      return state.session?.source === m.replay.source ? { ...state, replay: m.replay } : state;
    case 'notice': {
      const id = state.noticeSeq + 1;
      return { ...state, noticeSeq: id, notices: [...state.notices, { id, level: m.level, message: m.message }].slice(-MAX_NOTICES) };
    }
  }
}

/** Classify a new session against the one shown: another session, appended messages, or a rewrite. */
export function sessionChange(prev: InspectorSession | null, next: InspectorSession): SessionChange {
  if (!prev || prev.sessionId !== next.sessionId || prev.source !== next.source || prev.readOnly !== next.readOnly) return 'new';
  // Another point in time (time travel) shows another context.
  if ((prev.timeTravel?.at ?? null) !== (next.timeTravel?.at ?? null)) return 'new';
  // A compaction or an undo adds a record; a rewrite may also keep every id (micro-compact applied)
  // and change only what the messages hold.
  if (prev.compactions.length !== next.compactions.length) return 'rewrite';
  const a = prev.rows;
  const b = next.rows;
  if (b.length < a.length) return 'rewrite';
  // Sizes are compared before micro-compaction: a growing history micro-compacts more of its older
  // results (what the model sees shrinks), which is not a rewrite of the history.
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x.id !== y.id || x.kind !== y.kind || stored(x) !== stored(y)) return 'rewrite';
  }
  return b.length === a.length ? 'same' : 'append';
}

/**
 * The session, with the strategies of the one shown before when they did not change (the host sends
 * them with every session; the same array lets their panel skip drawing them again).
 */
function keepStrategies(prev: InspectorSession | null, next: InspectorSession): InspectorSession {
  if (!prev || prev.strategies === next.strategies || JSON.stringify(prev.strategies) !== JSON.stringify(next.strategies)) return next;
  return { ...next, strategies: prev.strategies };
}

/** A row's size as the session stores it (before micro-compaction). */
function stored(r: MessageRow): number {
  return r.truncated ? r.truncated.originalTokens : r.tokens;
}

function receiveSession(state: InspectorState, received: InspectorSession): InspectorState {
  const change = sessionChange(state.session, received);
  const session = keepStrategies(state.session, received);
  // A replay belongs to the file it ran on (time travel in that file keeps it).
  const replay = state.replay?.source === session.source && session.readOnly ? state.replay : null;
  const base = { ...state, session, sessionSeq: state.sessionSeq + 1, sessionChange: change, replay };
  if (change === 'same' || change === 'append') {
    // The rows the preview was computed from are all still there: keep it (the store refreshes it on append).
    return { ...base, planStale: change === 'append' && state.plan !== null ? true : state.planStale };
  }
  // Another session, or a rewritten history (compaction applied, undone): the preview no longer applies.
  const keep = change === 'rewrite' && state.detailId !== null ? session.rows.findIndex((r) => r.id === state.detailId) : -1;
  const selectedId = state.session && state.selected >= 0 ? state.session.rows[state.selected]?.id : undefined;
  const selected = change === 'rewrite' && selectedId !== undefined ? session.rows.findIndex((r) => r.id === selectedId) : -1;
  return {
    ...base,
    plan: null,
    planStale: false,
    pendingRequestId: null,
    previewStrategy: null,
    planError: null,
    selected,
    detailId: keep >= 0 ? state.detailId : null,
    detail: keep >= 0 ? state.detail : null,
  };
}

/** What survives a reload of the webview (VS Code's getState/setState). */
export interface PersistedState {
  v: 1;
  /** Strategy last worked with (its card is highlighted). */
  strategy: string | null;
  /** Parameter inputs as typed, per strategy (only the edited ones). */
  params: Record<string, Record<string, string>>;
  scrollTop: number;
  selectedId: string | null;
  /** Request ids keep growing across reloads so a late answer from before one is never taken as fresh. */
  nextRequestId: number;
}

export function readPersisted(raw: unknown): PersistedState {
  const empty: PersistedState = { v: 1, strategy: null, params: {}, scrollTop: 0, selectedId: null, nextRequestId: 1 };
  if (typeof raw !== 'object' || raw === null) return empty;
  const r = raw as Partial<PersistedState>;
  const params: PersistedState['params'] = {};
  if (typeof r.params === 'object' && r.params !== null) {
    for (const [name, values] of Object.entries(r.params)) {
      if (typeof values !== 'object' || values === null) continue;
      const clean: Record<string, string> = {};
      for (const [k, v] of Object.entries(values)) if (typeof v === 'string') clean[k] = v;
      params[name] = clean;
    }
  }
  return {
    v: 1,
    strategy: typeof r.strategy === 'string' ? r.strategy : null,
    params,
    scrollTop: typeof r.scrollTop === 'number' && Number.isFinite(r.scrollTop) ? Math.max(0, r.scrollTop) : 0,
    selectedId: typeof r.selectedId === 'string' ? r.selectedId : null,
    nextRequestId:
      typeof r.nextRequestId === 'number' && Number.isSafeInteger(r.nextRequestId) && r.nextRequestId > 0 ? r.nextRequestId : 1,
  };
}
