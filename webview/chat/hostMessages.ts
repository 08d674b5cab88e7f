// Checks of what the host sends the chat. The host is trusted, but a malformed message must not
// take the view down: each parser checks the shape the store relies on, and answers null otherwise.
import type { ChatItem, ChatState, ContextMeter, HostToChat } from '../../src/protocol';

export function isItem(v: unknown): v is ChatItem {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  return (
    typeof r.id === 'string' &&
    typeof r.kind === 'string' &&
    ITEM_KINDS.has(r.kind) &&
    (r.messageId === undefined || typeof r.messageId === 'string') &&
    (r.pinned === undefined || typeof r.pinned === 'boolean')
  );
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
  return (
    typeof r.sessionId === 'string' &&
    Array.isArray(r.items) &&
    typeof r.busy === 'boolean' &&
    isContextMeter(r.context) &&
    typeof r.hasApiKey === 'boolean'
  );
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
    case 'pins':
      return Array.isArray(m.ids) && m.ids.every((id) => typeof id === 'string') ? { type: 'pins', ids: m.ids as string[] } : null;
    case 'focusInput':
      return { type: 'focusInput' };
    default:
      return null;
  }
}
