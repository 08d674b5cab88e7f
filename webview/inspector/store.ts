// The inspector's model: what the host sent (reduced by state.ts, the pure state transition), the
// parameter inputs, the view state that survives a reload, and one method per user action. Each
// action posts its intent to the host and updates the state; components reach the store through
// context.ts, render the snapshot and call these methods. Imports no component.
import type { HostToInspector, InspectorSession, InspectorToHost, StrategyView } from '../../src/protocol';
import type { WebviewStore } from '../shared/storeContext';
import { indexPlan, indexSession, type PlanIndex, type SessionIndex } from './derive';
import { checkParams, SPLIT_AT, type ParamInputs } from './params';
import { initialState, reduce, type Action, type InspectorState, type PersistedState } from './state';
import { ViewportStore, type ViewportInfo } from './viewport';

/** Parameter edits re-run a showing preview after this pause. */
export const REPREVIEW_DELAY_MS = 250;

/** Scroll and selection changes are saved after this pause; everything else at once. */
const PERSIST_DELAY_MS = 150;

export interface InspectorSnapshot {
  readonly state: InspectorState;
  /** Lookups over the session's rows (null until a session came). */
  readonly sessionIndex: SessionIndex | null;
  /** Lookups over the showing plan. */
  readonly planIndex: PlanIndex | null;
  /** Parameter inputs as typed, per strategy (only the edited ones). */
  readonly inputs: ParamInputs;
  /** The strategy last worked with (its card is highlighted). */
  readonly highlighted: string | null;
}

/** What the store needs of the host connection. */
export interface InspectorHostPort {
  post(message: InspectorToHost): void;
  setState(state: PersistedState): void;
}

export class InspectorStore implements WebviewStore<InspectorSnapshot, HostToInspector> {
  /** The timeline's viewport; scrolling re-renders only the minimap, not the app. */
  readonly viewport = new ViewportStore();
  private snapshot: InspectorSnapshot;
  private readonly listeners = new Set<() => void>();
  private restoredSelection = false;
  /** "Split here": the message the split-at strategy plans at (null: its default, the latest prompt). */
  private splitAtId: string | null = null;
  private persistTimer: number | undefined;
  private repreviewTimer: number | undefined;

  constructor(
    private readonly host: InspectorHostPort,
    private persisted: PersistedState,
  ) {
    this.snapshot = { state: initialState, sessionIndex: null, planIndex: null, inputs: persisted.params, highlighted: persisted.strategy };
  }

  getSnapshot = (): InspectorSnapshot => this.snapshot;

  subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  };

  /** Where the timeline was scrolled to when the view state was last saved. */
  get savedScrollTop(): number {
    return this.persisted.scrollTop;
  }

  /** The strategy of that name in the current session. */
  strategy(name: string | null): StrategyView | undefined {
    return this.snapshot.state.session?.strategies.find((s) => s.name === name);
  }

  // --- Host messages -------------------------------------------------------------------------

  receive(message: HostToInspector): void {
    const before = this.snapshot.state;
    this.update({ type: 'host', message });
    if (message.type !== 'session') return;
    if (this.splitAtId !== null && !message.session.rows.some((r) => r.id === this.splitAtId)) this.splitAtId = null;
    const state = this.snapshot.state;
    // Time travel: the preview showing follows to the context now shown.
    if (before.previewStrategy && before.session && travelled(before.session, message.session)) this.preview(before.previewStrategy);
    // The history grew while a preview was showing: refresh it.
    if (state.sessionChange === 'append' && state.previewStrategy) this.schedulePreview(state.previewStrategy);
    // Restore the selected row after a reload, once the session is there.
    if (!this.restoredSelection) {
      this.restoredSelection = true;
      const id = this.persisted.selectedId;
      const i = id ? message.session.rows.findIndex((r) => r.id === id) : -1;
      if (i >= 0) this.update({ type: 'select', index: i });
    }
  }

  // --- User actions --------------------------------------------------------------------------

  /** Tells the host the view is listening; it answers with the session. */
  ready = (): void => this.host.post({ type: 'ready' });

  /** Asks the host for the plan of `name` with the parameters as typed (if they are valid). */
  preview = (name: string): void => {
    const s = this.strategy(name);
    if (!s) return;
    const check = checkParams(this.snapshot.inputs, s);
    if (!check.ok) return;
    const requestId = this.persisted.nextRequestId;
    this.persist({ nextRequestId: requestId + 1, strategy: name });
    this.setView({ highlighted: name });
    this.update({ type: 'previewRequested', requestId, strategy: name });
    this.host.post({ type: 'preview', requestId, strategy: name, params: check.values, ...this.splitAt(name) });
  };

  /**
   * "Compact everything before this": the split-at preview at message `id`, with or without an LLM
   * summary (default: as the toggle says).
   */
  splitHere = (id: string, withSummary = this.splitWithSummary()): void => {
    if (!this.strategy(SPLIT_AT) || !this.snapshot.state.session?.rows.some((r) => r.id === id)) return;
    this.splitAtId = id;
    const inputs = { ...this.snapshot.inputs, [SPLIT_AT]: { ...this.snapshot.inputs[SPLIT_AT], summarize: withSummary ? '1' : '0' } };
    this.setView({ inputs });
    this.persist({ params: inputs });
    this.preview(SPLIT_AT);
  };

  /** Whether "Split here" asks for an LLM summary (the split-at strategy's summarize parameter). */
  splitWithSummary = (): boolean => {
    const p = this.strategy(SPLIT_AT)?.params.find((x) => x.name === 'summarize');
    return (this.snapshot.inputs[SPLIT_AT]?.summarize ?? String(p?.value ?? 1)).trim() !== '0';
  };

  /** Flips "with an LLM summary"; a showing split-at preview follows. */
  toggleSplitSummary = (): void => this.setParam(SPLIT_AT, 'summarize', this.splitWithSummary() ? '0' : '1');

  /** The user typed in a parameter's input; a showing preview of that strategy follows after a pause. */
  setParam = (strategy: string, param: string, raw: string): void => {
    const inputs = { ...this.snapshot.inputs, [strategy]: { ...this.snapshot.inputs[strategy], [param]: raw } };
    this.setView({ inputs, highlighted: strategy });
    this.persist({ params: inputs, strategy });
    if (this.snapshot.state.previewStrategy === strategy) this.schedulePreview(strategy);
  };

  /** Back to the session's parameter values for `strategy`. */
  resetParams = (strategy: string): void => {
    const inputs = { ...this.snapshot.inputs };
    delete inputs[strategy];
    this.setView({ inputs });
    this.persist({ params: inputs });
    if (this.snapshot.state.previewStrategy === strategy) this.schedulePreview(strategy);
  };

  /** Asks the host to compact with `strategy` (never for a read-only session). */
  apply = (strategy: string, focus?: string): void => {
    const s = this.strategy(strategy);
    if (!s || this.snapshot.state.session?.readOnly) return;
    const check = checkParams(this.snapshot.inputs, s);
    if (!check.ok) return;
    this.host.post({ type: 'apply', strategy, params: check.values, ...(focus ? { focus } : {}), ...this.splitAt(strategy) });
  };

  clearPreview = (): void => {
    window.clearTimeout(this.repreviewTimer);
    this.update({ type: 'clearPreview' });
  };

  select = (index: number): void => {
    this.update({ type: 'select', index });
    const id = this.snapshot.state.session?.rows[index]?.id ?? null;
    this.persist({ selectedId: id }, false);
  };

  /** Shows a row's full text (the host sends the detail). */
  open = (index: number): void => {
    const row = this.snapshot.state.session?.rows[index];
    if (!row) return;
    this.update({ type: 'detailRequested', id: row.id, index });
    this.persist({ selectedId: row.id }, false);
    this.host.post({ type: 'showMessage', id: row.id });
  };

  /** Shows the full text of a row of the archived history (recorded compactions). */
  openArchived = (id: string): void => {
    this.update({ type: 'archivedDetailRequested', id });
    this.host.post({ type: 'showMessage', id });
  };

  /** A probe's source message: its row opened and scrolled to, or (archived by a recorded compaction) its detail. */
  showSource = (id: string): void => {
    const i = this.snapshot.sessionIndex?.indexById.get(id);
    if (i === undefined) return this.openArchived(id);
    this.open(i);
    this.viewport.scrollToIndex(i, 'center');
  };

  /** "Check this compaction": the host runs the command splitpoint.checkCompaction on it. */
  checkCompaction = (compactionId: string): void => this.host.post({ type: 'checkCompaction', compactionId });

  /** Shows (and previews on) the context as it stood just before past compaction `at`; null: the current context. */
  timeTravel = (at: number | null): void => this.host.post({ type: 'timeTravel', at });

  /** The minimap was clicked or dragged at `fraction` of the session: the timeline scrolls there. */
  seek = (fraction: number): void => this.viewport.scrollToFraction(fraction);

  /** "Show the split point": the timeline scrolls to where the preview splits. */
  jumpToSplit = (): void => {
    const split = this.snapshot.planIndex?.splitIndex;
    const rows = this.snapshot.state.session?.rows.length ?? 0;
    if (split != null && rows > 0) this.viewport.scrollToIndex(Math.min(split, rows - 1), 'center');
  };

  closeDetail = (): void => this.update({ type: 'closeDetail' });

  dismissNotice = (id: number): void => this.update({ type: 'dismissNotice', id });

  /** The timeline scrolled or resized. */
  viewportChanged = (info: ViewportInfo): void => {
    this.viewport.set(info);
    this.persist({ scrollTop: info.scrollTop }, false);
  };

  undo = (): void => this.host.post({ type: 'undo' });

  /** Pins a message of the current session (kept verbatim by every compaction); a showing preview follows. */
  pin = (id: string): void => this.pinIntent('pin', id);

  /** Unpins a message of the current session; a showing preview follows. */
  unpin = (id: string): void => this.pinIntent('unpin', id);

  /** "Keep as instruction" on an archived prompt of a ledger: it joins the session's standing instructions. */
  keepInstruction = (text: string): void => this.host.post({ type: 'keepInstruction', text });

  inspectFile = (): void => this.host.post({ type: 'inspectFile' });

  /** Replays the inspected file under the built-in configurations (the host answers with the chart's data). */
  replay = (): void => this.host.post({ type: 'replay' });

  /** Restores the files to before a prompt: the host shows the preview in the chat. */
  restoreFiles = (id: string): void => this.host.post({ type: 'restoreFiles', id });

  showCurrent = (): void => this.host.post({ type: 'showCurrent' });

  openTranscript = (path: string): void => this.host.post({ type: 'openTranscript', path });

  // --- Internals -----------------------------------------------------------------------------

  /** The chosen message, on split-at's preview and apply. */
  private splitAt(strategy: string): { splitAtId?: string } {
    return strategy === SPLIT_AT && this.splitAtId !== null ? { splitAtId: this.splitAtId } : {};
  }

  /** Pins are the current session's: never of a recording or a past context (read-only). */
  private pinIntent(type: 'pin' | 'unpin', id: string): void {
    const session = this.snapshot.state.session;
    if (!session || session.readOnly || (session.timeTravel?.at ?? null) !== null) return;
    if (!session.rows.some((r) => r.id === id)) return;
    this.host.post({ type, id });
    // The host refreshes the session with the new pins; a showing preview re-plans with them.
    const showing = this.snapshot.state.previewStrategy;
    if (showing) this.schedulePreview(showing);
  }

  private schedulePreview(name: string): void {
    window.clearTimeout(this.repreviewTimer);
    this.repreviewTimer = window.setTimeout(() => {
      if (this.snapshot.state.previewStrategy === name) this.preview(name);
    }, REPREVIEW_DELAY_MS);
  }

  private update(action: Action): void {
    const prev = this.snapshot;
    const state = reduce(prev.state, action);
    if (state === prev.state) return;
    const session = state.session;
    // A grown session (a followed one, on each call) extends the lookups of the one it grew from.
    const grown = state.sessionChange === 'append' || state.sessionChange === 'same' ? prev.sessionIndex : null;
    const sessionIndex = session === prev.state.session ? prev.sessionIndex : session ? indexSession(session, grown) : null;
    const planIndex =
      state.plan === prev.state.plan && sessionIndex === prev.sessionIndex
        ? prev.planIndex
        : state.plan && sessionIndex && session
          ? indexPlan(state.plan, sessionIndex, session.rows.length)
          : null;
    this.publish({ ...prev, state, sessionIndex, planIndex });
  }

  private setView(patch: Partial<Pick<InspectorSnapshot, 'inputs' | 'highlighted'>>): void {
    this.publish({ ...this.snapshot, ...patch });
  }

  private publish(next: InspectorSnapshot): void {
    this.snapshot = next;
    for (const fn of this.listeners) fn();
  }

  private persist(patch: Partial<PersistedState>, now = true): void {
    this.persisted = { ...this.persisted, ...patch };
    window.clearTimeout(this.persistTimer);
    if (now) this.host.setState(this.persisted);
    else this.persistTimer = window.setTimeout(() => this.host.setState(this.persisted), PERSIST_DELAY_MS);
  }
}

/** Same session, another point in time. */
function travelled(prev: InspectorSession, next: InspectorSession): boolean {
  return (
    prev.sessionId === next.sessionId && prev.source === next.source && (prev.timeTravel?.at ?? null) !== (next.timeTravel?.at ?? null)
  );
}
