// The input box. Enter sends, Shift+Enter inserts a newline. The user may type while the agent is
// busy; Send is then replaced by Stop (Escape in the box also stops), and Enter keeps the draft.
import { useEffect, useRef, useState } from 'preact/hooks';
import { useStore } from '../context';

export function Composer({ busy, compacting }: { busy: boolean; compacting: boolean }) {
  const store = useStore();
  const [text, setText] = useState(store.ui.draft);
  const [hint, setHint] = useState('');
  const box = useRef<HTMLTextAreaElement>(null);

  useEffect(() => store.onFocusInput(() => box.current?.focus()), [store]);
  useEffect(() => {
    if (!busy) setHint('');
  }, [busy]);

  const update = (v: string) => {
    setText(v);
    store.setDraft(v);
  };
  const send = () => {
    if (!text.trim()) return;
    if (busy) {
      setHint('The agent is still working: wait, or press Stop, then send.');
      return;
    }
    store.send(text);
    setText('');
  };
  const stop = store.stop;

  return (
    <div class="composer">
      <div class="composer-box">
        <textarea
          ref={box}
          class="composer-input"
          rows={2}
          value={text}
          placeholder={
            busy ? 'The agent is working… you can type your next message' : 'Ask Splitpoint… (Enter to send, Shift+Enter for a new line)'
          }
          aria-label="Message"
          aria-describedby={hint ? 'composer-hint' : undefined}
          onInput={(e) => update(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey && !e.altKey && !e.isComposing && e.keyCode !== 229) {
              e.preventDefault();
              send();
            } else if (e.key === 'Escape' && busy) {
              e.preventDefault();
              stop();
            }
          }}
        />
        {busy ? (
          <button type="button" class="button stop" aria-label={compacting ? 'Stop compaction' : 'Stop the agent'} onClick={stop}>
            <span class="stop-square" aria-hidden="true" />
            Stop
          </button>
        ) : (
          <button type="button" class="button primary send" aria-label="Send message" disabled={!text.trim()} onClick={send}>
            Send
          </button>
        )}
      </div>
      {hint ? (
        <div id="composer-hint" class="composer-hint">
          {hint}
        </div>
      ) : null}
    </div>
  );
}
