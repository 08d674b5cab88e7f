// The context inspector's layout: renders the store's snapshot (session, plan, detail) and hands the
// user's actions to the store, which posts them to the host. It never computes compaction.
import { useRef } from 'preact/hooks';
import { useSnapshot } from '../shared/useSnapshot';
import { CompactionHistory } from './components/CompactionHistory';
import { DetailPane } from './components/DetailPane';
import { Header, ReadOnlyBanner } from './components/Header';
import { KindLegend } from './components/KindLegend';
import { Minimap } from './components/Minimap';
import { Notices } from './components/Notices';
import { LossSection, PlanSummary } from './components/PlanSummary';
import { ReplayPanel } from './components/ReplayChart';
import { currentSessionActions, type RowAction } from './components/RowActions';
import { splitHereActions } from './components/SplitHere';
import { StrategyPanel } from './components/StrategyPanel';
import { ContextSelector, RecordedCompactions, TimeTravelBanner } from './components/TimeTravel';
import { Timeline, type TimelineApi } from './components/Timeline';
import { UsageBar } from './components/UsageBar';
import type { InspectorStore } from './store';

export function App({ store }: { store: InspectorStore }) {
  const { state, sessionIndex: sIndex, planIndex: pIndex, inputs, highlighted } = useSnapshot(store);
  const timeline = useRef<TimelineApi | null>(null);
  const session = state.session;

  if (!session || !sIndex) {
    return (
      <div class="app app-loading">
        <p class="muted" role="status">
          Waiting for the session…
        </p>
      </div>
    );
  }

  const planTitle = store.strategy(state.previewStrategy)?.title ?? state.previewStrategy ?? '';
  const shownRow = state.detailId !== null ? (session.rows[sIndex.indexById.get(state.detailId) ?? -1] ?? null) : null;
  const archivedRow = state.detailId !== null && !shownRow ? sIndex.archived.get(state.detailId) : undefined;
  const detailRow = shownRow ?? archivedRow?.row ?? null;
  const travel = session.timeTravel;
  const travelPoint = travel && travel.at !== null ? travel.points.find((p) => p.at === travel.at) : undefined;
  const showPlanPanel = state.previewStrategy !== null || state.plan !== null || state.planError !== null;
  // Pins are the current session's: offered on its rows only (not a recording's, not a past context's).
  const rowActions: RowAction[] = shownRow && !session.readOnly && !travelPoint ? currentSessionActions(shownRow, store) : [];
  // Split here previews on any row (Apply is refused for a recording or a past context).
  if (shownRow) rowActions.push(...splitHereActions(shownRow, store.splitWithSummary(), store.splitHere, store.toggleSplitSummary));
  const summaryLedger = shownRow ? session.compactions.find((c) => c.syntheticId === shownRow.id)?.ledger : undefined;
  const jumpToSplit = () =>
    pIndex?.splitIndex != null && timeline.current?.scrollToIndex(Math.min(pIndex.splitIndex, session.rows.length - 1), 'center');

  return (
    <div class={`app${session.readOnly ? ' read-only' : ''}`}>
      <Header session={session} turns={sIndex.turns} busy={state.busy} onUndo={store.undo} onInspectFile={store.inspectFile} />
      {(session.readOnly || travelPoint) && (
        <div class="banners">
          {session.readOnly && !(travelPoint && session.source === 'Current session') && (
            <ReadOnlyBanner source={session.source} onShowCurrent={store.showCurrent} />
          )}
          {travelPoint && <TimeTravelBanner point={travelPoint} onBack={() => store.timeTravel(null)} />}
        </div>
      )}
      <Notices notices={state.notices} onDismiss={store.dismissNotice} />

      <main class="main-col">
        {travel && <ContextSelector timeTravel={travel} onChange={store.timeTravel} />}
        <UsageBar usage={session.usage} />
        <Minimap
          rows={session.rows}
          index={sIndex}
          planIndex={pIndex}
          viewport={store.viewport}
          onSeek={(f) => timeline.current?.scrollToFraction(f)}
        />
        <KindLegend />
        <Timeline
          rows={session.rows}
          sessionKey={`${session.sessionId}\u0000${session.source}\u0000${travel?.at ?? ''}`}
          index={sIndex}
          plan={state.plan}
          planIndex={pIndex}
          planTitle={planTitle}
          selected={state.selected}
          initialScrollTop={store.savedScrollTop}
          apiRef={timeline}
          onSelect={store.select}
          onOpen={store.open}
          onSplitHere={(i) => session.rows[i] && store.splitHere(session.rows[i].id, store.splitWithSummary())}
          onViewport={store.viewportChanged}
          archived={session.archived}
          detailId={state.detailId}
          onOpenArchived={store.openArchived}
        />
        <DetailPane
          row={detailRow}
          detailId={state.detailId}
          detail={state.detail}
          archivedBy={archivedRow?.compaction}
          actions={rowActions}
          ledger={summaryLedger}
          onClose={store.closeDetail}
        />
      </main>

      <aside class="side-col" aria-label="Compaction controls">
        {showPlanPanel && (
          <PlanSummary
            plan={state.plan}
            title={planTitle}
            pending={state.pendingRequestId !== null}
            stale={state.planStale}
            error={state.planError}
            onClear={store.clearPreview}
            onJump={jumpToSplit}
          />
        )}
        {showPlanPanel && state.plan && <LossSection plan={state.plan} />}
        <StrategyPanel
          strategies={session.strategies}
          inputs={inputs}
          readOnly={session.readOnly}
          busy={state.busy.busy}
          previewStrategy={state.previewStrategy}
          plan={state.plan}
          pending={state.pendingRequestId !== null}
          highlighted={highlighted}
          onInput={store.setParam}
          onReset={store.resetParams}
          onPreview={store.preview}
          onApply={store.apply}
        />
        <ReplayPanel session={session} replay={state.replay} busy={state.busy.busy} onReplay={store.replay} />
        {travel && <RecordedCompactions timeTravel={travel} onTravel={store.timeTravel} />}
        {/* A recording's compactions are its agent's (listed above), not Splitpoint's. */}
        {!(session.readOnly && travel && session.compactions.length === 0) && (
          <CompactionHistory compactions={session.compactions} onOpenTranscript={store.openTranscript} />
        )}
      </aside>
    </div>
  );
}
