// The input box. Enter sends, Shift+Enter inserts a newline. The user may type while the agent is
// busy; Send is then replaced by Stop (Escape in the box also stops), and Enter keeps the draft.
// `@` opens a fuzzy picker of the workspace's files (arrows, Enter or Tab to pick, Escape to close):
// a picked file becomes a chip and its content goes with the prompt. Pasted or dropped images
// (PNG, JPEG, GIF, WebP, at most 5 MB each) are shown as thumbnails and sent as image blocks.
// This file lays the composer out and sends; the draft, the picker and the images are hooks
// (useDraft, useMentionPicker, useImageAttachments).
import type { RefObject } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useStore } from '../context';
import type { ChatSnapshot } from '../store';
import { AttachmentList } from './Attachments';
import { MENTION_PICKER_ID, mentionOptionId, MentionPicker } from './MentionPicker';
import { useDraft, type Draft } from './useDraft';
import { useImageAttachments } from './useImageAttachments';
import { useMentionPicker, type MentionPickerState } from './useMentionPicker';

export function Composer({ busy, compacting, files }: { busy: boolean; compacting: boolean; files: ChatSnapshot['files'] }) {
  const store = useStore();
  const [hint, setHint] = useState('');
  const box = useRef<HTMLTextAreaElement>(null);
  const draft = useDraft();
  const picker = useMentionPicker(files, store.listFiles, draft, box, setHint);
  const img = useImageAttachments(setHint);

  useEffect(() => store.onFocusInput(() => box.current?.focus()), [store]);
  useEffect(() => {
    if (!busy) setHint('');
  }, [busy]);

  const canSend = !!draft.text.trim() || img.images.length > 0;
  const send = () => {
    if (!canSend) return;
    if (busy) {
      setHint('The agent is still working: wait, or press Stop, then send.');
      return;
    }
    store.send(draft.text, picker.mentions, img.images);
    draft.clear();
    picker.clear();
    img.clear();
    setHint('');
  };

  return (
    <div class="composer">
      {picker.open ? (
        <MentionPicker
          results={picker.results}
          active={picker.active}
          loading={files === null}
          truncated={files?.truncated ?? false}
          onPick={picker.pick}
          onHover={picker.setActive}
        />
      ) : null}
      <AttachmentList
        files={picker.mentions}
        images={img.images.map((i) => `data:${i.mediaType};base64,${i.data}`)}
        onRemoveFile={picker.remove}
        onRemoveImage={img.remove}
      />
      <div class="composer-box" onDragOver={img.onDragOver} onDrop={img.onDrop}>
        <MessageInput box={box} busy={busy} hinted={!!hint} draft={draft} picker={picker} onPaste={img.onPaste} send={send} />
        <SendOrStop busy={busy} compacting={compacting} canSend={canSend} send={send} stop={store.stop} />
      </div>
      {hint ? (
        <div id="composer-hint" class="composer-hint">
          {hint}
        </div>
      ) : null}
    </div>
  );
}

interface MessageInputProps {
  box: RefObject<HTMLTextAreaElement>;
  busy: boolean;
  /** A hint shows under the composer (the box is described by it). */
  hinted: boolean;
  draft: Draft;
  picker: MentionPickerState;
  onPaste: (e: ClipboardEvent) => void;
  send: () => void;
}

/** The textarea: typing follows the mention picker; the picker's keys first, then Enter sends and Escape stops. */
function MessageInput({ box, busy, hinted, draft, picker, onPaste, send }: MessageInputProps) {
  const store = useStore();
  const onKeyDown = (e: KeyboardEvent) => {
    if (!e.isComposing && picker.key(e.key)) {
      e.preventDefault();
    } else if (e.key === 'Enter' && !e.shiftKey && !e.altKey && !e.isComposing && e.keyCode !== 229) {
      e.preventDefault();
      send();
    } else if (e.key === 'Escape' && busy) {
      e.preventDefault();
      store.stop();
    }
  };
  return (
    <textarea
      ref={box}
      class="composer-input"
      rows={2}
      value={draft.text}
      placeholder={
        busy
          ? 'The agent is working… you can type your next message'
          : 'Ask Splitpoint… (@ to attach a file, paste an image; Enter to send, Shift+Enter for a new line)'
      }
      aria-label="Message"
      aria-describedby={hinted ? 'composer-hint' : undefined}
      aria-controls={picker.open ? MENTION_PICKER_ID : undefined}
      aria-autocomplete="list"
      aria-activedescendant={picker.open && picker.results.length > 0 ? mentionOptionId(picker.active) : undefined}
      onInput={(e) => {
        const el = e.currentTarget;
        draft.update(el.value);
        picker.typed(el.value, el.selectionStart ?? el.value.length);
      }}
      onPaste={onPaste}
      onKeyDown={onKeyDown}
      onBlur={picker.close}
    />
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
