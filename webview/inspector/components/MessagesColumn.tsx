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
  /**
   * Everything is drawn. False for the first session's first frame: the rows in view without the ones
   * either side, the minimap without its columns (afterPaint.ts).
   */
  complete: boolean;
}

export function MessagesColumn({ session, index, snapshot, planTitle, complete }: MessagesColumnProps) {
  const { state, planIndex } = snapshot;
  return (
    <main class="main-col">
      {session.timeTravel && <ContextSelector timeTravel={session.timeTravel} />}
      <UsageBar usage={session.usage} />
      <Minimap rows={session.rows} index={index} planIndex={planIndex} columns={complete} />
      <KindLegend />
      <Timeline
        session={session}
        index={index}
        plan={state.plan}
        planIndex={planIndex}
        planTitle={planTitle}
        selected={state.selected}
        detailId={state.detailId}
        complete={complete}
      />
      <SelectedMessage session={session} index={index} detailId={state.detailId} detail={state.detail} />
    </main>
  );
}
