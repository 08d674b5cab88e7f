// The input box. Enter sends, Shift+Enter inserts a newline. The user may type while the agent is
// busy; Send is then replaced by Stop (Escape in the box also stops), and Enter keeps the draft.
// `@` opens a fuzzy picker of the workspace's files (arrows, Enter or Tab to pick, Escape to close):
// a picked file becomes a chip and its content goes with the prompt. Pasted or dropped images
// (PNG, JPEG, GIF, WebP, at most 5 MB each) are shown as thumbnails and sent as image blocks.
import { useEffect, useRef, useState } from 'preact/hooks';
import { useStore } from '../context';
import type { ChatSnapshot } from '../store';
import { AttachmentList } from './Attachments';
import { useImages, useMentions } from './composerHooks';
import { MENTION_PICKER_ID, mentionOptionId, MentionPicker } from './MentionPicker';

export function Composer({ busy, compacting, files }: { busy: boolean; compacting: boolean; files: ChatSnapshot['files'] }) {
  const store = useStore();
  const [text, setText] = useState(store.ui.draft);
  const [hint, setHint] = useState('');
  const m = useMentions(files, store.listFiles, setHint);
  const img = useImages(setHint);
  const box = useRef<HTMLTextAreaElement>(null);

  useEffect(() => store.onFocusInput(() => box.current?.focus()), [store]);
  useEffect(() => {
    if (!busy) setHint('');
  }, [busy]);

  const update = (v: string) => {
    setText(v);
    store.setDraft(v);
  };
  const pick = (path: string) => {
    const next = m.picked(text, path);
    const el = box.current;
    if (!next || !el) return;
    update(next.text);
    requestAnimationFrame(() => el.setSelectionRange(next.caret, next.caret));
  };
  const send = () => {
    if (!text.trim() && img.images.length === 0) return;
    if (busy) {
      setHint('The agent is still working: wait, or press Stop, then send.');
      return;
    }
    store.send(text, m.mentions, img.images);
    setText('');
    m.clear();
    img.clear();
    setHint('');
  };
  const stop = store.stop;
  const pickerOpen = m.picker !== null;

  return (
    <div class="composer">
      {pickerOpen ? (
        <MentionPicker
          results={m.results}
          active={m.active}
          loading={files === null}
          truncated={files?.truncated ?? false}
          onPick={pick}
          onHover={m.setActive}
        />
      ) : null}
      <AttachmentList
        files={m.mentions}
        images={img.images.map((i) => `data:${i.mediaType};base64,${i.data}`)}
        onRemoveFile={m.remove}
        onRemoveImage={img.remove}
      />
      <div
        class="composer-box"
        onDragOver={(e) => {
          if (e.dataTransfer?.types.includes('Files')) e.preventDefault();
        }}
        onDrop={(e) => {
          const dropped = [...(e.dataTransfer?.files ?? [])];
          if (dropped.length === 0) return;
          e.preventDefault();
          void img.add(dropped);
        }}
      >
        <textarea
          ref={box}
          class="composer-input"
          rows={2}
          value={text}
          placeholder={
            busy
              ? 'The agent is working… you can type your next message'
              : 'Ask Splitpoint… (@ to attach a file, paste an image; Enter to send, Shift+Enter for a new line)'
          }
          aria-label="Message"
          aria-describedby={hint ? 'composer-hint' : undefined}
          aria-controls={pickerOpen ? MENTION_PICKER_ID : undefined}
          aria-autocomplete="list"
          aria-activedescendant={pickerOpen && m.results.length > 0 ? mentionOptionId(m.active) : undefined}
          onInput={(e) => {
            const el = e.currentTarget;
            update(el.value);
            m.typed(el.value, el.selectionStart ?? el.value.length);
          }}
          onPaste={(e) => {
            const pasted = [...(e.clipboardData?.files ?? [])].filter((f) => f.type.startsWith('image/'));
            if (pasted.length === 0) return;
            e.preventDefault();
            void img.add(pasted);
          }}
          onKeyDown={(e) => {
            if (!e.isComposing && m.key(e.key, pick)) {
              e.preventDefault();
            } else if (e.key === 'Enter' && !e.shiftKey && !e.altKey && !e.isComposing && e.keyCode !== 229) {
              e.preventDefault();
              send();
            } else if (e.key === 'Escape' && busy) {
              e.preventDefault();
              stop();
            }
          }}
          onBlur={m.close}
        />
        <SendOrStop busy={busy} compacting={compacting} canSend={!!text.trim() || img.images.length > 0} send={send} stop={stop} />
      </div>
      {hint ? (
        <div id="composer-hint" class="composer-hint">
          {hint}
        </div>
      ) : null}
    </div>
  );
}

function SendOrStop(p: { busy: boolean; compacting: boolean; canSend: boolean; send: () => void; stop: () => void }) {
  return p.busy ? (
    <button type="button" class="button stop" aria-label={p.compacting ? 'Stop compaction' : 'Stop the agent'} onClick={p.stop}>
      <span class="stop-square" aria-hidden="true" />
      Stop
    </button>
  ) : (
    <button type="button" class="button primary send" aria-label="Send message" disabled={!p.canSend} onClick={p.send}>
      Send
    </button>
  );
}
