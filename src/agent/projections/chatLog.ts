// What the chat shows, kept apart from what the model remembers: compaction shortens the model's
// history, never the user's view of the conversation. Persisted beside the session (debounced,
// atomic) so a window reload shows the same conversation.
import { readFileSync } from 'node:fs';
import type { ChatItem } from '../../protocol';
import { Emitter, writeFileAtomic } from '../../core';

export type ChatLogChange = { kind: 'item'; item: ChatItem } | { kind: 'delta'; id: string; text: string } | { kind: 'reset' };

/** Cap on what one tool card keeps of a tool's output (the full output is in the session). */
export const MAX_CARD_OUTPUT = 20_000;

export class ChatLog {
  private items: ChatItem[] = [];
  private index = new Map<string, number>();
  private saveTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly changed = new Emitter<ChatLogChange>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly file: string | undefined) {}

  /** Load the saved chat (a missing or unreadable file gives an empty chat). */
  static load(file: string): ChatLog {
    const log = new ChatLog(file);
    try {
      const items = JSON.parse(readFileSync(file, 'utf8')) as ChatItem[];
      if (Array.isArray(items)) {
        // A reload interrupts whatever was streaming or waiting.
        log.items = items.map((i) => settle(i));
        log.items.forEach((i, n) => log.index.set(i.id, n));
      }
    } catch {
      // Missing or unreadable: start empty; the model's history is in the session file regardless.
    }
    return log;
  }

  all(): ChatItem[] {
    return [...this.items];
  }

  get(id: string): ChatItem | undefined {
    const i = this.index.get(id);
    return i === undefined ? undefined : this.items[i];
  }

  /** Insert or replace an item by id. */
  upsert(item: ChatItem): void {
    const capped = capItem(item);
    const i = this.index.get(item.id);
    if (i === undefined) {
      this.index.set(item.id, this.items.length);
      this.items.push(capped);
    } else {
      this.items[i] = capped;
    }
    this.changed.fire({ kind: 'item', item: capped });
    this.scheduleSave();
  }

  /** Append streamed text to an assistant or thinking item, or live output to a tool card. */
  appendText(id: string, text: string): void {
    const i = this.index.get(id);
    if (i === undefined) return;
    const item = this.items[i];
    if (item.kind === 'tool') this.items[i] = { ...item, output: (item.output ?? '') + text };
    else if (item.kind === 'assistant' || item.kind === 'thinking') this.items[i] = { ...item, text: item.text + text };
    else return;
    this.changed.fire({ kind: 'delta', id, text });
    this.scheduleSave();
  }

  update<K extends ChatItem['kind']>(id: string, kind: K, patch: Partial<Extract<ChatItem, { kind: K }>>): void {
    const item = this.get(id);
    if (!item || item.kind !== kind) return;
    this.upsert({ ...item, ...patch } as ChatItem);
  }

  clear(): void {
    this.items = [];
    this.index.clear();
    this.changed.fire({ kind: 'reset' });
    this.scheduleSave();
  }

  /** Write now (also called on dispose). */
  flush(): void {
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    if (this.file) writeFileAtomic(this.file, JSON.stringify(this.items));
  }

  private scheduleSave(): void {
    if (!this.file || this.saveTimer) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      try {
        this.flush();
      } catch {
        // The next change retries; the session file (the model's history) is written separately.
      }
    }, 500);
  }

  dispose(): void {
    try {
      this.flush();
    } finally {
      this.changed.dispose();
    }
  }
}

function settle(item: ChatItem): ChatItem {
  if ((item.kind === 'assistant' || item.kind === 'thinking') && item.streaming) return { ...item, streaming: false };
  if (item.kind === 'tool' && (item.status === 'running' || item.status === 'awaiting-approval')) return { ...item, status: 'cancelled' };
  if (item.kind === 'probes' && item.status === 'running')
    return { ...item, status: 'failed', error: 'The check was interrupted (reload).' };
  return item;
}

function capItem(item: ChatItem): ChatItem {
  if (item.kind === 'tool' && item.output && item.output.length > MAX_CARD_OUTPUT) {
    const dropped = item.output.length - MAX_CARD_OUTPUT;
    return { ...item, output: `${item.output.slice(0, MAX_CARD_OUTPUT)}\n[… ${dropped} more characters not shown]` };
  }
  return item;
}
