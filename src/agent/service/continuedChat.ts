// What the chat shows of a session continued from another agent's recording ("Continue in Splitpoint"):
// the recorded compactions as dividers, then the current context as the chat would have shown it live
// (the prompts a person typed, the model's text and thinking, tool cards with their results), then the
// notices that say where it came from. Artefacts and summaries stay out of the chat (the inspector shows
// them); the model's history is the imported context, whatever the chat shows.
import { join } from 'node:path';
import { blocksOf, toolResultText, type CompactionRecord, type Message, type ToolResultBlock, type ToolUseBlock } from '../../core';
import type { ChatItem } from '../../protocol';
import { ChatLog } from '../projections/chatLog';
import { ChatProjector } from '../projections/chatProjector';

/** The chat log file of a session in the store's folder (as SessionScope opens it). */
export function chatLogPath(sessionsDir: string, sessionId: string): string {
  return join(sessionsDir, `${sessionId.replace(/[^A-Za-z0-9_-]/g, '_')}.chat.json`);
}

/** The chat items of `messages`, in order: what a person typed, the model's text and thinking, tool cards. */
export function chatItemsOf(messages: readonly Message[]): ChatItem[] {
  const items: ChatItem[] = [];
  const tools = new Map<string, Extract<ChatItem, { kind: 'tool' }>>();
  messages.forEach((m, i) => {
    if (m.synthetic || m.artefact) return;
    const id = (part: string, k: number) => `cont_${i}_${part}${k}`;
    blocksOf(m).forEach((b, k) => {
      if (b.type === 'text') {
        const text = String(b.text ?? '');
        if (text.trim() === '') return;
        if (m.role === 'user') items.push({ kind: 'user', id: id('u', k), text, messageId: m.id });
        else items.push({ kind: 'assistant', id: id('a', k), text, streaming: false, messageId: m.id });
      } else if (b.type === 'thinking' && m.role === 'assistant') {
        const text = String(b.thinking ?? '');
        if (text.trim() !== '') items.push({ kind: 'thinking', id: id('t', k), text, streaming: false });
      } else if (b.type === 'tool_use') {
        const use = b as ToolUseBlock;
        if (tools.has(use.id)) return;
        const card: Extract<ChatItem, { kind: 'tool' }> = {
          kind: 'tool',
          id: use.id,
          name: use.name,
          input: prettyJson(use.input),
          status: 'cancelled',
        };
        tools.set(use.id, card);
        items.push(card);
      } else if (b.type === 'tool_result') {
        const result = b as ToolResultBlock;
        const card = tools.get(result.tool_use_id);
        if (!card) return;
        card.status = result.is_error ? 'error' : 'done';
        card.output = toolResultText(result);
        if (result.is_error) card.isError = true;
      }
    });
  });
  return items;
}

export interface ContinuedChat {
  /** The current context as recorded (what the chat shows). */
  messages: readonly Message[];
  /** The session's history (what the model is sent; the truncated badges are read from it). */
  history: readonly Message[];
  /** The compaction records of the recorded compactions, oldest first. */
  compactions: readonly CompactionRecord[];
  /** Shown last, in order. */
  notices: readonly string[];
}

/** Write the chat log of a continued session (dividers, conversation, notices), as SessionScope will load it. */
export function writeContinuedChat(file: string, chat: ContinuedChat): void {
  const log = new ChatLog(file);
  const projector = new ChatProjector(log, () => chat.history);
  try {
    for (const r of chat.compactions) projector.compacted(r);
    for (const item of chatItemsOf(chat.messages)) log.upsert(item);
    for (const n of chat.notices) projector.notice(n);
  } finally {
    projector.dispose();
    log.dispose(); // writes the file
  }
}

function prettyJson(v: unknown): string {
  try {
    return JSON.stringify(v, null, 2) ?? '';
  } catch {
    return String(v);
  }
}
