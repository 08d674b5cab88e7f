// The chat view: toolbar, context meter, conversation, status line and composer.
import { useSnapshot } from '../shared/useSnapshot';
import { useStore } from './context';
import type { ChatSnapshot } from './store';
import { Composer } from './components/Composer';
import { PendingEdits } from './components/FileReview';
import { ContextMeterView } from './components/ContextMeter';
import { Conversation } from './components/Conversation';
import { ApiKeyNeeded, RestrictedBanner, Welcome } from './components/EmptyState';
import { InstructionsHeader } from './components/Instructions';
import { TodoChecklist } from './components/TodoChecklist';
import { Toolbar } from './components/Toolbar';

export function App() {
  const snap = useSnapshot(useStore());
  const { chat } = snap;
  return (
    <div class={`app${chat.busy ? ' is-busy' : ''}`}>
      <Toolbar title={chat.title} model={chat.model} hasApiKey={chat.hasApiKey} compacting={chat.compacting} />
      <ContextMeterView context={chat.context} />
      <InstructionsHeader items={snap.instructions} listedOnly={snap.instructionsListedOnly} />
      {!chat.trusted ? <RestrictedBanner /> : null}
      <Conversation items={chat.items} busy={chat.busy} pins={snap.pins} kept={snap.kept} restore={snap.restore}>
        {!snap.hydrated ? <p class="loading">Loading…</p> : null}
        {snap.hydrated && !chat.hasApiKey ? <ApiKeyNeeded /> : null}
        {snap.hydrated && chat.hasApiKey && chat.items.length === 0 ? <Welcome model={chat.model} /> : null}
      </Conversation>
      {snap.todo.length > 0 ? <TodoChecklist items={snap.todo} /> : null}
      <PendingEdits items={snap.proposals} />
      <StatusLine busy={chat.busy} compacting={chat.compacting} announcement={snap.announcement} />
      <Composer busy={chat.busy} compacting={chat.compacting} files={snap.files} />
    </div>
  );
}

function StatusLine({
  busy,
  compacting,
  announcement,
}: {
  busy: boolean;
  compacting: boolean;
  announcement: ChatSnapshot['announcement'];
}) {
  const visible = compacting ? 'Compacting context…' : busy ? 'Working…' : '';
  return (
    <>
      <div class={`status-line${visible ? '' : ' idle'}`} aria-hidden="true">
        {visible ? (
          <>
            <span class="spinner" />
            {visible}
          </>
        ) : null}
      </div>
      <div class="sr-only" role="status" aria-live="polite" aria-atomic="true">
        <span key={announcement.seq}>{announcement.text}</span>
      </div>
    </>
  );
}
