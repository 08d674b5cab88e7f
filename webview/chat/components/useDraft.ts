// The composer's draft: the text in the box, kept in the store's UI state as it is typed (so it
// survives the view being hidden and shown again).
import { useState } from 'preact/hooks';
import { useStore } from '../context';

export interface Draft {
  readonly text: string;
  /** The user changed the text. */
  update(text: string): void;
  /** The draft was sent (the store has already cleared its copy). */
  clear(): void;
}

export function useDraft(): Draft {
  const store = useStore();
  const [text, setText] = useState(store.ui.draft);
  return {
    text,
    update(next) {
      setText(next);
      store.setDraft(next);
    },
    clear: () => setText(''),
  };
}
