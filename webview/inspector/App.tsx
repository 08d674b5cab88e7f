// The context inspector's layout: the header and banners, the messages column (timeline and detail)
// and the controls column (preview, strategies, replay, past compactions). Renders the store's
// snapshot; every user action is a store method the components call. It never computes compaction.
// The first session's first frame holds the header and the timeline; the rest follows once that is
// painted (afterPaint.ts).
import { useSnapshot } from '../shared/useSnapshot';
import { useFirstPaintDone } from './afterPaint';
import { ControlsColumn } from './components/ControlsColumn';
import { Banners, Header } from './components/Header';
import { LiveStrip } from './components/LiveStrip';
import { MessagesColumn } from './components/MessagesColumn';
import { Notices } from './components/Notices';
import { useStore } from './context';

export function App() {
  const store = useStore();
  const snapshot = useSnapshot(store);
  const { state, sessionIndex } = snapshot;
  const session = state.session;
  const painted = useFirstPaintDone(session !== null && sessionIndex !== null);

  if (!session || !sessionIndex) {
    return (
      <div class="app app-loading">
        <p class="muted" role="status">
          Waiting for the session…
        </p>
      </div>
    );
  }

  const planTitle = store.strategy(state.previewStrategy)?.title ?? state.previewStrategy ?? '';
  return (
    <div class={`app${session.readOnly ? ' read-only' : ''}`}>
      <Header session={session} turns={sessionIndex.turns} busy={state.busy} />
      <Banners session={session} />
      <LiveStrip />
      <Notices notices={state.notices} />
      <MessagesColumn session={session} index={sessionIndex} snapshot={snapshot} planTitle={planTitle} complete={painted} />
      {painted ? (
        <ControlsColumn session={session} snapshot={snapshot} planTitle={planTitle} />
      ) : (
        <aside class="side-col" aria-label="Compaction controls" aria-busy="true" />
      )}
    </div>
  );
}
