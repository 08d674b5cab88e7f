// The context inspector: renders what the host sends (session, plans, details) and posts the user's
// intents back (preview, apply, undo, show a message, open a transcript). It never computes compaction.
import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from 'preact/hooks';
import type { HostToInspector, StrategyView } from '../../src/protocol';
import { CompactionHistory } from './components/CompactionHistory';
import { DetailPane } from './components/DetailPane';
import { Minimap } from './components/Minimap';
import { PlanSummary } from './components/PlanSummary';
import { StrategyPanel } from './components/StrategyPanel';
import { Timeline, type TimelineApi, type ViewportInfo } from './components/Timeline';
import { UsageBar } from './components/UsageBar';
import { indexPlan, indexSession } from './derive';
import { fmtInt, KIND_LABEL, KIND_ORDER } from './format';
import { checkParams, type ParamInputs } from './params';
import { initialState, readPersisted, reduce, type PersistedState } from './state';
import { ViewportStore } from './viewport';
import type { HostChannel } from './vscode';

/** Parameter edits re-run a showing preview after this pause. */
export const REPREVIEW_DELAY_MS = 250;

const HOST_TYPES = new Set(['session', 'plan', 'planError', 'detail', 'busy', 'notice']);

function isHostMessage(v: unknown): v is HostToInspector {
  return typeof v === 'object' && v !== null && HOST_TYPES.has((v as { type?: unknown }).type as string);
}

export function App({ host }: { host: HostChannel }) {
  const [state, dispatch] = useReducer(reduce, initialState);
  const persisted = useRef<PersistedState>(readPersisted(host.getState()));
  const [inputs, setInputs] = useState<ParamInputs>(persisted.current.params);
  const inputsRef = useRef(inputs);
  inputsRef.current = inputs;
  const stateRef = useRef(state);
  stateRef.current = state;
  const [highlighted, setHighlighted] = useState<string | null>(persisted.current.strategy);
  const timeline = useRef<TimelineApi | null>(null);
  const viewport = useMemo(() => new ViewportStore(), []);

  const persistTimer = useRef<number | undefined>(undefined);
  const persist = useCallback(
    (patch: Partial<PersistedState>, now = true) => {
      persisted.current = { ...persisted.current, ...patch };
      window.clearTimeout(persistTimer.current);
      if (now) host.setState(persisted.current);
      else persistTimer.current = window.setTimeout(() => host.setState(persisted.current), 150);
    },
    [host],
  );

  useEffect(() => {
    const onMessage = (e: MessageEvent) => {
      if (isHostMessage(e.data)) dispatch({ type: 'host', message: e.data });
    };
    window.addEventListener('message', onMessage);
    host.post({ type: 'ready' });
    return () => window.removeEventListener('message', onMessage);
  }, [host]);

  const session = state.session;
  const sIndex = useMemo(() => (session ? indexSession(session) : null), [session]);
  const pIndex = useMemo(() => (state.plan && sIndex && session ? indexPlan(state.plan, sIndex, session.rows.length) : null), [state.plan, sIndex, session]);

  const strategyOf = (name: string | null): StrategyView | undefined => stateRef.current.session?.strategies.find((s) => s.name === name);

  const preview = useCallback(
    (name: string) => {
      const s = strategyOf(name);
      if (!s) return;
      const check = checkParams(inputsRef.current, s);
      if (!check.ok) return;
      const requestId = persisted.current.nextRequestId;
      persist({ nextRequestId: requestId + 1, strategy: name });
      setHighlighted(name);
      dispatch({ type: 'previewRequested', requestId, strategy: name });
      host.post({ type: 'preview', requestId, strategy: name, params: check.values });
    },
    [host, persist],
  );

  const repreviewTimer = useRef<number | undefined>(undefined);
  const schedulePreview = useCallback(
    (name: string) => {
      window.clearTimeout(repreviewTimer.current);
      repreviewTimer.current = window.setTimeout(() => {
        if (stateRef.current.previewStrategy === name) preview(name);
      }, REPREVIEW_DELAY_MS);
    },
    [preview],
  );

  // The history grew while a preview was showing: refresh it.
  useEffect(() => {
    if (state.sessionChange === 'append' && state.previewStrategy) schedulePreview(state.previewStrategy);
  }, [state.sessionSeq]);

  // Restore the selected row after a reload, once the session is there.
  const restoredSelection = useRef(false);
  useEffect(() => {
    if (!session || restoredSelection.current) return;
    restoredSelection.current = true;
    const id = persisted.current.selectedId;
    const i = id ? session.rows.findIndex((r) => r.id === id) : -1;
    if (i >= 0) dispatch({ type: 'select', index: i });
  }, [session]);

  const onInput = (strategy: string, param: string, raw: string) => {
    const next = { ...inputsRef.current, [strategy]: { ...inputsRef.current[strategy], [param]: raw } };
    inputsRef.current = next;
    setInputs(next);
    setHighlighted(strategy);
    persist({ params: next, strategy });
    if (stateRef.current.previewStrategy === strategy) schedulePreview(strategy);
  };

  const onReset = (strategy: string) => {
    const next = { ...inputsRef.current };
    delete next[strategy];
    inputsRef.current = next;
    setInputs(next);
    persist({ params: next });
    if (stateRef.current.previewStrategy === strategy) schedulePreview(strategy);
  };

  const onApply = (strategy: string, focus?: string) => {
    const s = strategyOf(strategy);
    if (!s || stateRef.current.session?.readOnly) return;
    const check = checkParams(inputsRef.current, s);
    if (!check.ok) return;
    host.post({ type: 'apply', strategy, params: check.values, ...(focus ? { focus } : {}) });
  };

  const onSelect = useCallback(
    (index: number) => {
      dispatch({ type: 'select', index });
      const id = stateRef.current.session?.rows[index]?.id ?? null;
      persist({ selectedId: id }, false);
    },
    [persist],
  );

  const onOpen = useCallback(
    (index: number) => {
      const row = stateRef.current.session?.rows[index];
      if (!row) return;
      dispatch({ type: 'detailRequested', id: row.id, index });
      persist({ selectedId: row.id }, false);
      host.post({ type: 'showMessage', id: row.id });
    },
    [host, persist],
  );

  const onViewport = useCallback(
    (info: ViewportInfo) => {
      viewport.set(info);
      persist({ scrollTop: info.scrollTop }, false);
    },
    [viewport, persist],
  );

  const clearPreview = () => {
    window.clearTimeout(repreviewTimer.current);
    dispatch({ type: 'clearPreview' });
  };

  if (!session || !sIndex) {
    return (
      <div class="app app-loading">
        <p class="muted" role="status">
          Waiting for the session…
        </p>
      </div>
    );
  }

  const planTitle = strategyOf(state.previewStrategy)?.title ?? state.previewStrategy ?? '';
  const detailRow = state.detailId !== null ? (session.rows[sIndex.indexById.get(state.detailId) ?? -1] ?? null) : null;
  const showPlanPanel = state.previewStrategy !== null || state.plan !== null || state.planError !== null;

  return (
    <div class={`app${session.readOnly ? ' read-only' : ''}`}>
      <header class="toolbar">
        <div class="toolbar-title">
          <h1>{session.title || 'Session'}</h1>
          <span class="muted" data-field="source">
            {session.source}
            {' · '}
            {fmtInt(session.rows.length)} messages · {fmtInt(sIndex.turns)} turns
          </span>
        </div>
        {state.busy.busy && (
          <span class="busy" role="status" data-field="busy">
            <span class="spinner" aria-hidden="true" />
            {state.busy.label ?? 'Working…'}
          </span>
        )}
        <div class="toolbar-actions">
          {!session.readOnly && (
            <button type="button" class="secondary" data-action="undo" disabled={!session.canUndo || state.busy.busy} onClick={() => host.post({ type: 'undo' })}>
              Undo last compaction
            </button>
          )}
          <button type="button" class="secondary" data-action="inspect-file" onClick={() => host.post({ type: 'inspectFile' })}>
            Inspect file…
          </button>
        </div>
      </header>

      {session.readOnly && (
        <div class="banner banner-readonly" role="region" aria-label="Read-only session">
          <span>
            Read-only: inspecting <strong data-field="readonly-source">{session.source}</strong>. Preview works; Apply and Undo are off.
          </span>
          <button type="button" data-action="show-current" onClick={() => host.post({ type: 'showCurrent' })}>
            Back to current session
          </button>
        </div>
      )}

      {state.notices.length > 0 && (
        <div class="notices">
          {state.notices.map((n) => (
            <div key={n.id} class={`notice notice-${n.level}`} role={n.level === 'error' ? 'alert' : 'status'}>
              <span>{n.message}</span>
              <button type="button" class="icon" aria-label="Dismiss" onClick={() => dispatch({ type: 'dismissNotice', id: n.id })}>
                ✕
              </button>
            </div>
          ))}
        </div>
      )}

      <main class="main-col">
        <UsageBar usage={session.usage} />
        <Minimap rows={session.rows} index={sIndex} planIndex={pIndex} viewport={viewport} onSeek={(f) => timeline.current?.scrollToFraction(f)} />
        <ul class="legend kind-legend" aria-label="Message kinds">
          {KIND_ORDER.map((k) => (
            <li key={k}>
              <span class={`legend-swatch kind-${k}`} aria-hidden="true" />
              {KIND_LABEL[k]}
            </li>
          ))}
          <li>
            <span class="legend-marker legend-split-current" aria-hidden="true" />
            split (current)
          </li>
          <li>
            <span class="legend-marker legend-split-preview" aria-hidden="true" />
            split (preview)
          </li>
        </ul>
        <Timeline
          rows={session.rows}
          sessionKey={`${session.sessionId}\u0000${session.source}`}
          index={sIndex}
          plan={state.plan}
          planIndex={pIndex}
          planTitle={planTitle}
          selected={state.selected}
          initialScrollTop={persisted.current.scrollTop}
          apiRef={timeline}
          onSelect={onSelect}
          onOpen={onOpen}
          onViewport={onViewport}
        />
        <DetailPane row={detailRow} detailId={state.detailId} detail={state.detail} onClose={() => dispatch({ type: 'closeDetail' })} />
      </main>

      <aside class="side-col" aria-label="Compaction controls">
        {showPlanPanel && (
          <PlanSummary
            plan={state.plan}
            title={planTitle}
            pending={state.pendingRequestId !== null}
            stale={state.planStale}
            error={state.planError}
            onClear={clearPreview}
            onJump={() => pIndex?.splitIndex != null && timeline.current?.scrollToIndex(Math.min(pIndex.splitIndex, session.rows.length - 1), 'center')}
          />
        )}
        <StrategyPanel
          strategies={session.strategies}
          inputs={inputs}
          readOnly={session.readOnly}
          busy={state.busy.busy}
          previewStrategy={state.previewStrategy}
          plan={state.plan}
          pending={state.pendingRequestId !== null}
          highlighted={highlighted}
          onInput={onInput}
          onReset={onReset}
          onPreview={preview}
          onApply={onApply}
        />
        <CompactionHistory compactions={session.compactions} onOpenTranscript={(path) => host.post({ type: 'openTranscript', path })} />
      </aside>
    </div>
  );
}

