// Checks of what the host sends the chat. The host is trusted, but a malformed message must not
// take the view down: each parser checks the shape the store relies on, and answers null otherwise.
import type { ChatItem, ChatState, ContextMeter, HostToChat, PendingEdit, RestoreFileView } from '../../src/protocol';

const isPendingEdit = (v: unknown): v is PendingEdit => {
  const r = v as Record<string, unknown> | null;
  return (
    typeof r === 'object' && r !== null && typeof r.toolUseId === 'string' && typeof r.path === 'string' && typeof r.title === 'string'
  );
};

const SINCE = new Set(['created', 'deleted', 'modified']);
const isRestoreFile = (v: unknown): v is RestoreFileView => {
  const r = v as Record<string, unknown> | null;
  return typeof r === 'object' && r !== null && typeof r.path === 'string' && SINCE.has(r.since as string);
};

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
  return (
    typeof r.used === 'number' &&
    typeof r.window === 'number' &&
    (r.threshold === null || typeof r.threshold === 'number') &&
    (r.cache === undefined || isCacheMeter(r.cache))
  );
}

const USAGE_FIELDS = ['read', 'write', 'uncached', 'output', 'costUSD'] as const;

function isCallUsage(v: unknown, extra: readonly string[] = []): boolean {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  return [...USAGE_FIELDS, ...extra].every((k) => typeof r[k] === 'number' && Number.isFinite(r[k]) && (r[k] as number) >= 0);
}

function isCacheMeter(v: unknown): v is ContextMeter['cache'] {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  return (r.caching === 'off' || r.caching === '5m' || r.caching === '1h') && isCallUsage(r.last) && isCallUsage(r.session, ['calls']);
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
    case 'proposals':
      return Array.isArray(m.items) && m.items.every(isPendingEdit) ? { type: 'proposals', items: m.items as PendingEdit[] } : null;
    case 'restorePlan':
      return typeof m.messageId === 'string' &&
        (m.files === null || (Array.isArray(m.files) && m.files.every(isRestoreFile))) &&
        (m.error === undefined || typeof m.error === 'string')
        ? (m as unknown as HostToChat)
        : null;
    case 'files':
      return Array.isArray(m.files) && m.files.every((f) => typeof f === 'string') && typeof m.truncated === 'boolean'
        ? { type: 'files', files: m.files as string[], truncated: m.truncated }
        : null;
    default:
      return null;
  }
}
