// Entry point of the chat sidebar webview. Renders the saved state at once (so a view that was
// hidden and shown again is never blank), then tells the host it is ready; the host answers with
// 'state'. Host messages are applied as they arrive and rendered once per animation frame.
import type { ChatItem, ChatState, ChatToHost } from '../../src/protocol';
import { connectHost } from '../shared/host';
import { mountWebview } from '../shared/mount';
import { throttle } from '../shared/throttle';
import { App } from './App';
import { chatContext } from './context';
import { isChatState, parseHostToChat } from './hostMessages';
import { ChatStore, type UiState } from './store';

interface SavedState {
  v: 1;
  chat: ChatState;
  ui: UiState;
}

/** The saved copy is for an instant first paint; the host's 'state' is the truth. Keep it small. */
const SAVED_MAX_ITEMS = 500;
const SAVED_MAX_OUTPUT = 20_000;

function toSaved(store: ChatStore): SavedState {
  const { chat } = store.getSnapshot();
  const items = chat.items.slice(-SAVED_MAX_ITEMS).map((it): ChatItem =>
    it.kind === 'tool' && it.output !== undefined && it.output.length > SAVED_MAX_OUTPUT
      ? {
          ...it,
          output: `${it.output.slice(0, SAVED_MAX_OUTPUT)}\n… (${it.output.length - SAVED_MAX_OUTPUT} more characters when the session reloads)`,
        }
      : it,
  );
  const keep = new Set(items.map((i) => i.id));
  const expanded = Object.fromEntries(Object.entries(store.ui.expanded).filter(([id]) => keep.has(id)));
  return { v: 1, chat: { ...chat, items }, ui: { draft: store.ui.draft, expanded } };
}

function readSaved(v: unknown): { chat: ChatState; ui: UiState } | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const s = v as Partial<SavedState>;
  if (s.v !== 1 || !isChatState(s.chat)) return undefined;
  const ui = typeof s.ui === 'object' && s.ui !== null ? s.ui : { draft: '', expanded: {} };
  return {
    chat: s.chat,
    ui: {
      draft: typeof ui.draft === 'string' ? ui.draft : '',
      expanded: typeof ui.expanded === 'object' && ui.expanded ? ui.expanded : {},
    },
  };
}

const host = connectHost<ChatToHost>();
const store = new ChatStore(host.post, readSaved(host.getState()));

const save = throttle(() => host.setState(toSaved(store)), 250);
store.subscribe(save);
store.onUiChange(save);
window.addEventListener('pagehide', () => save.flush());
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'hidden') save.flush();
});

mountWebview({ host, store, context: chatContext, App, parse: parseHostToChat });
