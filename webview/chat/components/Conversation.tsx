// The scrolling list of items. Follows the bottom while the user is there; otherwise offers a
// "Jump to latest" button instead of yanking the view away from what they are reading.
import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { ChatItem } from '../../../src/protocol';
import type { RestorePanel } from '../store';
import { ItemView } from './items';

const NEAR_BOTTOM_PX = 48;

export interface ConversationProps {
  items: readonly ChatItem[];
  busy: boolean;
  /** The session's pinned message ids (items are marked by their `messageId`). */
  pins?: ReadonlySet<string>;
  /** The prompts kept as instructions, by message id. */
  kept?: ReadonlySet<string>;
  /** The restore preview shown under a prompt. */
  restore?: RestorePanel | null;
  children?: ComponentChildren;
}

export function Conversation({ items, busy, pins, kept, restore = null, children }: ConversationProps) {
  const ref = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  const [away, setAway] = useState(false);

  useLayoutEffect(() => {
    const el = ref.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  });
  // Content also grows without a re-render of this list (a card opened, off-screen items measured
  // for the first time under content-visibility): stay at the bottom if we were there.
  useEffect(() => {
    const el = ref.current;
    const inner = el?.firstElementChild;
    if (!el || !inner || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => {
      if (stick.current) el.scrollTop = el.scrollHeight;
    });
    observer.observe(inner);
    return () => observer.disconnect();
  }, []);

  const onScroll = () => {
    const el = ref.current;
    if (!el) return;
    const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < NEAR_BOTTOM_PX;
    stick.current = atBottom;
    if (atBottom === away) setAway(!atBottom);
  };
  const jump = () => {
    const el = ref.current;
    if (!el) return;
    stick.current = true;
    setAway(false);
    el.scrollTop = el.scrollHeight;
  };

  // Retry is offered only on an error that ended the conversation (notices aside).
  let lastError: string | undefined;
  for (let i = items.length - 1; i >= 0; i--) {
    const it = items[i]!;
    if (it.kind === 'notice') continue;
    if (it.kind === 'error' && it.retryable) lastError = it.id;
    break;
  }

  // Undo is offered on the compaction it would undo: the last one not undone.
  const undoable = busy ? undefined : [...items].reverse().find((it) => it.kind === 'compaction' && !it.undone)?.id;

  return (
    <div class="conversation-wrap">
      <div ref={ref} class="conversation" role="region" aria-label="Conversation" tabIndex={0} onScroll={onScroll}>
        <div class="conversation-inner">
          {children}
          {items.map((item) => (
            <ItemView
              key={item.id}
              item={item}
              live={busy && (item.kind === 'assistant' || item.kind === 'thinking') && item.streaming}
              retry={!busy && item.id === lastError}
              pinned={isPinned(item, pins)}
              kept={item.kind === 'user' && item.messageId !== undefined && kept?.has(item.messageId) === true}
              restore={item.kind === 'user' && restore && restore.messageId === item.messageId ? restore : null}
              undoable={item.id === undoable}
            />
          ))}
        </div>
      </div>
      {away ? (
        <button type="button" class="jump button secondary" onClick={jump}>
          ↓ Jump to latest
        </button>
      ) : null}
    </div>
  );
}

/** Pinned: the host said so on the item, or its message is in the session's pinned set. */
function isPinned(item: ChatItem, pins: ReadonlySet<string> | undefined): boolean {
  if (item.kind !== 'user' && item.kind !== 'assistant') return false;
  return item.pinned === true || (item.messageId !== undefined && pins?.has(item.messageId) === true);
}
