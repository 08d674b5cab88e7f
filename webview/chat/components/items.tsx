// One component per conversation item kind (tool calls are in ToolCard.tsx). All text from the host
// is rendered as text, except assistant markdown, which goes through the sanitizer.
import { AttachmentList } from './Attachments';
import { memo } from '../../shared/memo';
import { useState } from 'preact/hooks';
import type { ChatItem } from '../../../src/protocol';
import { domId, formatInt, plural } from '../../shared/format';
import { Markdown } from '../../shared/MarkdownView';
import { useStore } from '../context';
import type { RestorePanel } from '../store';
import { RestoreButton, RestorePreview } from './FileReview';
import { KeepButton } from './Instructions';
import { PinButton } from './PinButton';
import { CheckCompaction, ProbeCard } from './ProbeCard';
import { ToolCard } from './ToolCard';

type Of<K extends ChatItem['kind']> = Extract<ChatItem, { kind: K }>;

export interface ItemProps {
  item: ChatItem;
  /** The item is streaming and the agent is still busy (shows the cursor). */
  live: boolean;
  /** This is the error a Retry would retry. */
  retry: boolean;
  /** The session message this item shows is pinned. */
  pinned?: boolean;
  /** A prompt kept as a standing instruction. */
  kept?: boolean;
  /** A prompt: its restore preview, while shown. A compaction: the one Undo would undo. */
  restore?: RestorePanel | null;
  undoable?: boolean;
}

/** Re-renders only when its own item (or its flags) changed. */
export const ItemView = memo(function ItemView({
  item,
  live,
  retry,
  pinned = false,
  kept = false,
  restore = null,
  undoable = false,
}: ItemProps) {
  switch (item.kind) {
    case 'user':
      return <UserMessage item={item} pinned={pinned} kept={kept} restore={restore} />;
    case 'assistant':
      return <AssistantMessage item={item} live={live} pinned={pinned} />;
    case 'thinking':
      return <ThinkingBlock item={item} live={live} />;
    case 'tool':
      return <ToolCard item={item} />;
    case 'compaction':
      return <CompactionDivider item={item} undoable={undoable} />;
    case 'probes':
      return <ProbeCard item={item} />;
    case 'error':
      return <ErrorItem item={item} retry={retry} />;
    case 'notice':
      return <p class="item notice">{item.message}</p>;
    default:
      return null;
  }
});

function UserMessage({ item, pinned, kept, restore }: { item: Of<'user'>; pinned: boolean; kept: boolean; restore: RestorePanel | null }) {
  return (
    <article
      class={`item user${pinned ? ' is-pinned' : ''}`}
      aria-label={pinned ? 'You (pinned)' : 'You'}
      id={item.messageId ? domId('msg', item.messageId) : undefined}
      tabIndex={item.messageId ? -1 : undefined}
    >
      <div class="who" aria-hidden="true">
        You
      </div>
      {item.messageId ? <KeepButton messageId={item.messageId} kept={kept} /> : null}
      {item.messageId ? <PinButton messageId={item.messageId} pinned={pinned} who="your" /> : null}
      <div class="user-text">{item.text}</div>
      <AttachmentList files={item.files ?? []} images={item.images ?? []} />
      {item.checkpoint && item.messageId && !restore ? <RestoreButton messageId={item.messageId} /> : null}
      {restore ? <RestorePreview panel={restore} /> : null}
    </article>
  );
}

function AssistantMessage({ item, live, pinned }: { item: Of<'assistant'>; live: boolean; pinned: boolean }) {
  return (
    <article
      class={`item assistant${live ? ' streaming' : ''}${pinned ? ' is-pinned' : ''}`}
      aria-label={pinned ? 'Splitpoint (pinned)' : 'Splitpoint'}
      aria-busy={live}
      id={item.messageId ? domId('msg', item.messageId) : undefined}
      tabIndex={item.messageId ? -1 : undefined}
    >
      {item.messageId && !item.streaming ? <PinButton messageId={item.messageId} pinned={pinned} who="the assistant’s" /> : null}
      <Markdown text={item.text} streaming={item.streaming} />
      {live ? <span class="cursor" aria-hidden="true" /> : null}
    </article>
  );
}

function ThinkingBlock({ item, live }: { item: Of<'thinking'>; live: boolean }) {
  const store = useStore();
  const [open, setOpen] = useState(() => store.ui.expanded[item.id] ?? false);
  const bodyId = domId('thinking', item.id);
  return (
    <article class="item thinking" aria-label="Thinking">
      <button
        type="button"
        class="thinking-toggle"
        aria-expanded={open}
        aria-controls={bodyId}
        onClick={() => {
          store.setExpanded(item.id, !open);
          setOpen(!open);
        }}
      >
        <span class="chevron" aria-hidden="true">
          {open ? '▾' : '▸'}
        </span>
        {live ? 'Thinking…' : 'Thought'}
        <span class="muted"> · {plural(item.text.length, 'char')}</span>
      </button>
      {open ? (
        <div id={bodyId} class="thinking-text">
          {item.text}
        </div>
      ) : null}
    </article>
  );
}

function CompactionDivider({ item, undoable }: { item: Of<'compaction'>; undoable: boolean }) {
  const store = useStore();
  return (
    <section class={`item compaction${item.undone ? ' undone' : ''}`} aria-label="Compaction">
      <div class="compaction-line">
        <span class="compaction-text">
          {item.undone ? 'Compaction undone: ' : 'Compacted: '}
          {formatInt(item.tokensBefore)} → {formatInt(item.tokensAfter)} tokens · {item.strategy} · {item.trigger}
          {item.archivedCount > 0 ? ` · ${plural(item.archivedCount, 'message')} archived` : ''} ·{' '}
        </span>
        <button
          type="button"
          class="link-button"
          title={item.transcriptPath}
          aria-label={`Open transcript ${item.transcriptPath}`}
          onClick={() => store.openTranscript(item.transcriptPath)}
        >
          Open transcript
        </button>
        {undoable ? (
          <>
            {' · '}
            <button
              type="button"
              class="link-button"
              title="Bring the history back from this compaction's transcript"
              onClick={store.undoCompaction}
            >
              Undo compaction
            </button>
          </>
        ) : null}
        {item.check && !item.undone && !item.check.offer ? (
          <>
            {' · '}
            <CheckCompaction compactionId={item.id} check={item.check} />
          </>
        ) : null}
      </div>
      {item.check && !item.undone && item.check.offer ? <CheckCompaction compactionId={item.id} check={item.check} /> : null}
    </section>
  );
}

function ErrorItem({ item, retry }: { item: Of<'error'>; retry: boolean }) {
  const store = useStore();
  return (
    <div class="item error-item">
      <span class="error-icon" aria-hidden="true">
        ⚠
      </span>
      <span class="error-message">{item.message}</span>
      {retry ? (
        <button type="button" class="button secondary" onClick={store.retry}>
          Retry
        </button>
      ) : null}
    </div>
  );
}
