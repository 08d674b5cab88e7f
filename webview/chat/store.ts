// The chat view's model. Host messages are applied in order as they arrive (cheap: deltas are only
// buffered), and the view is told to re-render at most once per animation frame. Snapshots are
// immutable: an item object changes identity only when that item changed, so memoized item
// components skip everything else. Each user action is a method here: components call it, it posts
// the intent to the host and updates what the view keeps.
import type {
  ChatItem,
  ChatState,
  ChatToHost,
  HostToChat,
  ImageAttachment,
  InstructionInfo,
  PendingEdit,
  ProbeAction,
  RestoreFileView,
  TodoItem,
} from '../../src/protocol';
import { frameScheduler } from '../shared/frame';
import type { WebviewStore } from '../shared/storeContext';
import { isItem } from './hostMessages';

export interface ChatSnapshot {
  readonly chat: ChatState;
  /** Something to show: saved state or the host's state. */
  readonly hydrated: boolean;
  /** The host has sent its state since this page loaded. */
  readonly live: boolean;
  /** What the live region should announce (seq changes with every announcement). */
  readonly announcement: { readonly text: string; readonly seq: number };
  /** The session's pinned message ids, as the host last said (a new set when they change). */
  readonly pins: ReadonlySet<string>;
  /** Edits waiting for approval, as the host last said. */
  readonly proposals: readonly PendingEdit[];
  /** The restore preview shown under a prompt (by its message id), while the user decides. */
  readonly restore: RestorePanel | null;
  /** The workspace files the @-mention picker offers (null: not asked for yet). */
  readonly files: { readonly list: readonly string[]; readonly truncated: boolean } | null;
  /** The session's task list (the agent's todo tool, the user's edits), as the host last said. */
  readonly todo: readonly TodoItem[];
  /** The standing instructions in force (the header), and whether the files are only listed (untrusted, not allowed). */
  readonly instructions: readonly InstructionInfo[];
  readonly instructionsListedOnly: boolean;
  /** The prompts kept as instructions, by message id (a new set when they change). */
  readonly kept: ReadonlySet<string>;
}

export interface RestorePanel {
  messageId: string;
  /** null: waiting for the host. */
  files: readonly RestoreFileView[] | null;
  error?: string;
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

export class ChatStore implements WebviewStore<ChatSnapshot, HostToChat> {
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
  private pins: ReadonlySet<string> = new Set();
  private proposals: readonly PendingEdit[] = [];
  private restore: RestorePanel | null = null;
  private files: ChatSnapshot['files'] = null;
  private todo: readonly TodoItem[] = [];
  private instructions: readonly InstructionInfo[] = [];
  private instructionsListedOnly = false;
  private kept: ReadonlySet<string> = new Set();
  private readonly frame = frameScheduler(() => this.flush());
  readonly ui: UiState;

  constructor(
    private readonly post: (message: ChatToHost) => void,
    saved?: { chat: ChatState; ui?: Partial<UiState> },
  ) {
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

  // --- User actions: each posts its intent to the host. -------------------------------------

  /** Tells the host the view is listening; it answers with 'state'. */
  ready = (): void => this.post({ type: 'ready' });

  /** Sends a prompt (with @-mentioned files and images, if any); the draft it came from is cleared. */
  send = (text: string, mentions: readonly string[] = [], images: readonly ImageAttachment[] = []): void => {
    this.post({
      type: 'send',
      text,
      ...(mentions.length ? { mentions: [...mentions] } : {}),
      ...(images.length ? { images: images.map((i) => ({ mediaType: i.mediaType, data: i.data })) } : {}),
    });
    this.setDraft('');
  };

  /** The @-mention picker opened: ask the host for the workspace's files (answered with 'files'). */
  listFiles = (): void => this.post({ type: 'listFiles' });

  stop = (): void => this.post({ type: 'stop' });

  /** `alwaysAllow`: an MCP tool the user allows from now on. */
  approve = (toolUseId: string, alwaysAllow = false): void =>
    this.post({ type: 'approve', toolUseId, ...(alwaysAllow ? { alwaysAllow } : {}) });

  /** Rejects a tool call, with the reason the user typed (if any). */
  reject = (toolUseId: string, reason?: string): void => {
    const r = reason?.trim();
    this.post(r ? { type: 'reject', toolUseId, reason: r } : { type: 'reject', toolUseId });
  };

  retry = (): void => this.post({ type: 'retry' });

  newChat = (): void => this.post({ type: 'newChat' });

  setApiKey = (): void => this.post({ type: 'setApiKey' });

  /** Compacts now, with what the summary should keep (if the user said). */
  compact = (focus?: string): void => {
    const f = focus?.trim();
    this.post(f ? { type: 'compact', focus: f } : { type: 'compact' });
  };

  openInspector = (): void => this.post({ type: 'openInspector' });

  openTranscript = (path: string): void => this.post({ type: 'openTranscript', path });

  /** Pins a session message (kept verbatim by every compaction); the host answers with the pins. */
  pin = (messageId: string): void => this.post({ type: 'pin', id: messageId });

  unpin = (messageId: string): void => this.post({ type: 'unpin', id: messageId });

  /** The user edited the task list: the whole new list goes to the host (shown at once; the host confirms). */
  setTodo = (items: readonly TodoItem[]): void => {
    this.todo = items.map((t) => ({ ...t }));
    this.post({ type: 'setTodo', items: this.todo.map((t) => ({ ...t })) });
    this.frame.schedule();
  };

  /** Send the workspace's instruction files although it is not trusted (the host remembers it for this workspace). */
  allowInstructions = (): void => this.post({ type: 'allowInstructions' });

  /** "Keep as instruction": the prompt joins the session's standing instructions (the host answers with the list). */
  keepAsInstruction = (messageId: string): void => this.post({ type: 'keepAsInstruction', messageId });

  removeInstruction = (messageId: string): void => this.post({ type: 'removeInstruction', messageId });

  /** Opens a pending edit in VS Code's diff editor. */
  openDiff = (toolUseId: string): void => this.post({ type: 'openDiff', toolUseId });

  /** Asks what restoring the files to before a prompt would change; the panel waits for the answer. */
  previewRestore = (messageId: string): void => {
    this.restore = { messageId, files: null };
    this.post({ type: 'previewRestore', messageId });
    this.frame.schedule();
  };

  openRestoreDiff = (messageId: string, path: string): void => this.post({ type: 'openRestoreDiff', messageId, path });

  /** Restores the previewed files; the panel closes when the host answers. */
  restoreFiles = (messageId: string): void => this.post({ type: 'restoreFiles', messageId });

  cancelRestore = (): void => {
    this.restore = null;
    this.frame.schedule();
  };

  undoCompaction = (): void => this.post({ type: 'undoCompaction' });

  /** "Check this compaction": the host asks the probes and answers with the result card. */
  checkCompaction = (compactionId: string): void => this.post({ type: 'checkCompaction', compactionId });

  /** An action of a check's card on one missed probe. */
  probeAction = (checkId: string, probeId: string, action: ProbeAction): void =>
    this.post({ type: 'probeAction', checkId, probeId, action });

  /** Opens the model picker (a QuickPick on the host). */
  pickModel = (): void => this.post({ type: 'pickModel' });

  // --- Host messages and view-only state. --------------------------------------------------

  receive(msg: HostToChat): void {
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
      case 'pins': {
        const added = msg.ids.filter((id) => !this.pins.has(id)).length;
        const removed = [...this.pins].filter((id) => !msg.ids.includes(id)).length;
        if (added > 0 && removed === 0) this.announce(added === 1 ? 'Message pinned.' : `${added} messages pinned.`);
        else if (removed > 0 && added === 0) this.announce(removed === 1 ? 'Message unpinned.' : `${removed} messages unpinned.`);
        this.pins = new Set(msg.ids);
        break;
      }
      case 'proposals':
        this.proposals = msg.items;
        break;
      case 'todo':
        this.todo = msg.items;
        break;
      case 'instructions': {
        const kept = new Set(msg.items.flatMap((i) => (i.kind === 'chat' && i.messageId ? [i.messageId] : [])));
        if (kept.size > this.kept.size) this.announce('Kept as an instruction: sent with every request.');
        else if (kept.size < this.kept.size) this.announce('No longer kept as an instruction.');
        this.instructions = msg.items;
        this.instructionsListedOnly = msg.listedOnly;
        this.kept = kept;
        break;
      }
      case 'files':
        this.files = { list: msg.files, truncated: msg.truncated };
        break;
      case 'restorePlan':
        if (msg.files === null && !msg.error) this.restore = null;
        else this.restore = { messageId: msg.messageId, files: msg.files, ...(msg.error ? { error: msg.error } : {}) };
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
      pins: this.pins,
      proposals: this.proposals,
      restore: this.restore,
      files: this.files,
      todo: this.todo,
      instructions: this.instructions,
      instructionsListedOnly: this.instructionsListedOnly,
      kept: this.kept,
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
    if (
      item.kind === 'tool' &&
      item.status === 'awaiting-approval' &&
      !(before?.kind === 'tool' && before.status === 'awaiting-approval')
    ) {
      this.announce(`Tool ${item.name} needs your approval.`);
    } else if (item.kind === 'error' && before === undefined) {
      this.announce(`Error: ${item.message}`);
    } else if (item.kind === 'probes' && item.status !== 'running' && before?.kind === 'probes' && before.status === 'running') {
      this.announce(
        item.status === 'done' ? `Compaction check: ${item.correct} of ${item.total} answered correctly.` : `Compaction check failed.`,
      );
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
