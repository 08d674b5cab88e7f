// The chat view's model. Host messages are applied in order as they arrive (cheap: deltas are only
// buffered), and the view is told to re-render at most once per animation frame. Snapshots are
// immutable: an item object changes identity only when that item changed, so memoized item
// components skip everything else.
import type { ChatItem, ChatState, ContextMeter, HostToChat } from '../../src/protocol';
import { frameScheduler } from '../shared/frame';

export interface ChatSnapshot {
  readonly chat: ChatState;
  /** Something to show: saved state or the host's state. */
  readonly hydrated: boolean;
  /** The host has sent its state since this page loaded. */
  readonly live: boolean;
  /** What the live region should announce (seq changes with every announcement). */
  readonly announcement: { readonly text: string; readonly seq: number };
}

/** View-only state that survives hide/show alongside the items. */
export interface UiState {
  draft: string;
  /** Per-card open/closed choices the user made (absent: the card's default). */
  expanded: Record<string, boolean>;
}

export const EMPTY_CHAT: ChatState = {
  sessionId: '',
  title: '',
  items: [],
  busy: false,
  compacting: false,
  context: { used: 0, window: 0, threshold: null },
  hasApiKey: true,
  model: '',
  trusted: true,
};

export class ChatStore {
  private chat: ChatState;
  private items: ChatItem[] = [];
  private readonly index = new Map<string, number>();
  /** Streaming text not yet folded into its item, in arrival order per id. */
  private readonly pending = new Map<string, string>();
  private readonly listeners = new Set<() => void>();
  private readonly focusListeners = new Set<() => void>();
  private readonly uiListeners = new Set<() => void>();
  private snapshot: ChatSnapshot;
  private hydrated: boolean;
  private live = false;
  private announcement = { text: '', seq: 0 };
  private readonly frame = frameScheduler(() => this.flush());
  readonly ui: UiState;

  constructor(saved?: { chat: ChatState; ui?: Partial<UiState> }) {
    this.chat = saved?.chat ?? EMPTY_CHAT;
    this.hydrated = saved !== undefined;
    this.ui = { draft: saved?.ui?.draft ?? '', expanded: { ...(saved?.ui?.expanded ?? {}) } };
    this.setItems(this.chat.items);
    this.snapshot = this.buildSnapshot();
  }

  getSnapshot = (): ChatSnapshot => this.snapshot;

  subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  };

  /** Called when view-only state (draft, expanded cards) changes; nothing re-renders for it. */
  onUiChange(fn: () => void): () => void {
    this.uiListeners.add(fn);
    return () => this.uiListeners.delete(fn);
  }

  onFocusInput(fn: () => void): () => void {
    this.focusListeners.add(fn);
    return () => this.focusListeners.delete(fn);
  }

  apply(msg: HostToChat): void {
    if (msg.type === 'delta') {
      if (msg.text) {
        this.pending.set(msg.id, (this.pending.get(msg.id) ?? '') + msg.text);
        this.frame.schedule();
      }
      return;
    }
    if (msg.type === 'focusInput') {
      for (const fn of this.focusListeners) fn();
      return;
    }
    // Everything else is ordered after the deltas that came before it.
    this.foldDeltas();
    switch (msg.type) {
      case 'state': {
        const sameSession = msg.state.sessionId === this.chat.sessionId;
        this.chat = msg.state;
        this.setItems(msg.state.items);
        if (!sameSession) this.ui.expanded = {};
        this.hydrated = this.live = true;
        break;
      }
      case 'item':
        this.upsert(msg.item);
        break;
      case 'busy':
        if (msg.busy !== this.chat.busy || msg.compacting !== this.chat.compacting) {
          if (msg.compacting && !this.chat.compacting) this.announce('Compacting context…');
          else if (msg.busy && !this.chat.busy) this.announce('Working…');
          else if (!msg.busy && !msg.compacting) this.announce('Done.');
        }
        this.chat = { ...this.chat, busy: msg.busy, compacting: msg.compacting };
        break;
      case 'context':
        this.chat = { ...this.chat, context: msg.context };
        break;
    }
    this.frame.schedule();
  }

  /** Renders pending changes now (tests and unload). */
  flushNow(): void {
    this.frame.flushNow();
  }

  setDraft(text: string): void {
    this.ui.draft = text;
    for (const fn of this.uiListeners) fn();
  }

  setExpanded(id: string, open: boolean): void {
    this.ui.expanded[id] = open;
    for (const fn of this.uiListeners) fn();
  }

  private flush(): void {
    this.foldDeltas();
    this.snapshot = this.buildSnapshot();
    for (const fn of this.listeners) fn();
  }

  private buildSnapshot(): ChatSnapshot {
    return {
      chat: { ...this.chat, items: this.items.slice() },
      hydrated: this.hydrated,
      live: this.live,
      announcement: this.announcement,
    };
  }

  private setItems(items: readonly ChatItem[]): void {
    this.items = [];
    this.index.clear();
    this.pending.clear();
    for (const item of items) if (isItem(item)) this.upsert(item, false);
  }

  private upsert(item: ChatItem, announce = true): void {
    const at = this.index.get(item.id);
    const before = at === undefined ? undefined : this.items[at];
    if (at === undefined) {
      this.index.set(item.id, this.items.length);
      this.items.push(item);
    } else {
      this.items[at] = item;
    }
    if (!announce) return;
    if (item.kind === 'tool' && item.status === 'awaiting-approval' && !(before?.kind === 'tool' && before.status === 'awaiting-approval')) {
      this.announce(`Tool ${item.name} needs your approval.`);
    } else if (item.kind === 'error' && before === undefined) {
      this.announce(`Error: ${item.message}`);
    } else if (item.kind === 'compaction' && before === undefined) {
      this.announce(`Context compacted from ${item.tokensBefore} to ${item.tokensAfter} tokens.`);
    }
  }

  private foldDeltas(): void {
    if (this.pending.size === 0) return;
    for (const [id, text] of this.pending) {
      const at = this.index.get(id);
      if (at === undefined) {
        // Text for an item we have not been told about: show it rather than lose it.
        this.upsert({ kind: 'assistant', id, text, streaming: true }, false);
        continue;
      }
      const item = this.items[at]!;
      switch (item.kind) {
        case 'assistant':
        case 'thinking':
        case 'user':
          this.items[at] = { ...item, text: item.text + text };
          break;
        case 'tool':
          this.items[at] = { ...item, output: (item.output ?? '') + text };
          break;
        default:
          break;
      }
    }
    this.pending.clear();
  }

  private announce(text: string): void {
    this.announcement = { text, seq: this.announcement.seq + 1 };
  }
}

export function isItem(v: unknown): v is ChatItem {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  return typeof r.id === 'string' && typeof r.kind === 'string' && ITEM_KINDS.has(r.kind);
}

const ITEM_KINDS = new Set(['user', 'assistant', 'thinking', 'tool', 'compaction', 'error', 'notice']);

export function isContextMeter(v: unknown): v is ContextMeter {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  return typeof r.used === 'number' && typeof r.window === 'number' && (r.threshold === null || typeof r.threshold === 'number');
}

export function isChatState(v: unknown): v is ChatState {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  return typeof r.sessionId === 'string' && Array.isArray(r.items) && typeof r.busy === 'boolean' && isContextMeter(r.context) && typeof r.hasApiKey === 'boolean';
}

/**
 * A host message, or null. The host is trusted, but a malformed message must not take the view
 * down: check the shape each branch relies on.
 */
export function parseHostToChat(v: unknown): HostToChat | null {
  if (typeof v !== 'object' || v === null) return null;
  const m = v as Record<string, unknown>;
  switch (m.type) {
    case 'state':
      return isChatState(m.state) ? (m as unknown as HostToChat) : null;
    case 'item':
      return isItem(m.item) ? (m as unknown as HostToChat) : null;
    case 'delta':
      return typeof m.id === 'string' && typeof m.text === 'string' ? (m as unknown as HostToChat) : null;
    case 'busy':
      return typeof m.busy === 'boolean' && typeof m.compacting === 'boolean' ? (m as unknown as HostToChat) : null;
    case 'context':
      return isContextMeter(m.context) ? (m as unknown as HostToChat) : null;
    case 'focusInput':
      return { type: 'focusInput' };
    default:
      return null;
  }
}
