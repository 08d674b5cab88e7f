// The side column: the preview showing (what it does, what it loses), the strategies with their
// parameters, the replay of an inspected file, time travel's points and the past compactions.
import type { InspectorSession } from '../../../src/protocol';
import type { InspectorSnapshot } from '../store';
import { CompactionHistory } from './CompactionHistory';
import { LossSection, PlanSummary } from './PlanSummary';
import { ReplayPanel } from './ReplayChart';
import { StrategyPanel } from './StrategyPanel';
import { RecordedCompactions } from './TimeTravel';

export interface ControlsColumnProps {
  session: InspectorSession;
  snapshot: InspectorSnapshot;
  /** The previewed strategy's title. */
  planTitle: string;
}

export function ControlsColumn({ session, snapshot, planTitle }: ControlsColumnProps) {
  const { state, inputs, highlighted } = snapshot;
  const travel = session.timeTravel;
  const showPlanPanel = state.previewStrategy !== null || state.plan !== null || state.planError !== null;
  const pending = state.pendingRequestId !== null;
  return (
    <aside class="side-col" aria-label="Compaction controls">
      {showPlanPanel && (
        <PlanSummary plan={state.plan} title={planTitle} pending={pending} stale={state.planStale} error={state.planError} />
      )}
      {showPlanPanel && state.plan && <LossSection plan={state.plan} />}
      <StrategyPanel
        strategies={session.strategies}
        inputs={inputs}
        readOnly={session.readOnly}
        busy={state.busy.busy}
        previewStrategy={state.previewStrategy}
        plan={state.plan}
        pending={pending}
        highlighted={highlighted}
      />
      <ReplayPanel session={session} replay={state.replay} busy={state.busy.busy} />
      {travel && <RecordedCompactions timeTravel={travel} />}
      {/* A recording's compactions are its agent's (listed above), not Splitpoint's. */}
      {!(session.readOnly && travel && session.compactions.length === 0) && (
        <CompactionHistory compactions={session.compactions} canCheck={!session.readOnly && (travel?.at ?? null) === null} />
      )}
    </aside>
  );
}
