// The main column: which context is shown (time travel), the window's usage, the minimap, the
// timeline of messages and the detail of the one opened.
import type { InspectorSession } from '../../../src/protocol';
import type { SessionIndex } from '../derive';
import type { InspectorSnapshot } from '../store';
import { SelectedMessage } from './DetailPane';
import { KindLegend } from './KindLegend';
import { Minimap } from './Minimap';
import { ContextSelector } from './TimeTravel';
import { Timeline } from './Timeline';
import { UsageBar } from './UsageBar';

export interface MessagesColumnProps {
  session: InspectorSession;
  index: SessionIndex;
  snapshot: InspectorSnapshot;
  /** The previewed strategy's title (the preview's split divider names it). */
  planTitle: string;
}

export function MessagesColumn({ session, index, snapshot, planTitle }: MessagesColumnProps) {
  const { state, planIndex } = snapshot;
  return (
    <main class="main-col">
      {session.timeTravel && <ContextSelector timeTravel={session.timeTravel} />}
      <UsageBar usage={session.usage} />
      <Minimap rows={session.rows} index={index} planIndex={planIndex} />
      <KindLegend />
      <Timeline
        session={session}
        index={index}
        plan={state.plan}
        planIndex={planIndex}
        planTitle={planTitle}
        selected={state.selected}
        detailId={state.detailId}
      />
      <SelectedMessage session={session} index={index} detailId={state.detailId} detail={state.detail} />
    </main>
  );
}
