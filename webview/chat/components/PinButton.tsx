// The pin toggle on a chat message: shown on hover and on keyboard focus (it is a real button in the
// tab order), and always while the message is pinned, where it is also the pin marker.
import { useStore } from '../context';

export function PinButton({ messageId, pinned, who }: { messageId: string; pinned: boolean; who: 'your' | 'the assistant’s' }) {
  const store = useStore();
  const label = pinned
    ? `Unpin ${who} message (it is kept verbatim by every compaction)`
    : `Pin ${who} message: keep it verbatim through every compaction`;
  return (
    <button
      type="button"
      class={`pin-button${pinned ? ' pinned' : ''}`}
      data-action={pinned ? 'unpin' : 'pin'}
      data-message-id={messageId}
      aria-pressed={pinned}
      aria-label={label}
      title={pinned ? 'Pinned: kept verbatim by every compaction. Click to unpin.' : 'Pin: keep verbatim through every compaction'}
      onClick={() => (pinned ? store.unpin(messageId) : store.pin(messageId))}
    >
      <PinGlyph />
      {pinned ? <span class="pin-words">Pinned</span> : null}
    </button>
  );
}

/** A pin drawn as SVG (no emoji font needed; decorative: the button carries the words). */
export function PinGlyph() {
  return (
    <svg class="pin-glyph" viewBox="0 0 16 16" width="12" height="12" fill="currentColor" aria-hidden="true" focusable="false">
      <path d="M10.5 1.5l4 4-1.2.6-2.1 2.1.4 3.2-1.1 1.1-2.9-2.9L4 13.2l-1.2.3.3-1.2 3.6-3.6-2.9-2.9 1.1-1.1 3.2.4 2.1-2.1z" />
    </svg>
  );
}
