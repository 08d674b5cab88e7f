// Checks of what the host sends the chat. The host is trusted, but a malformed message must not
// take the view down: each parser checks the shape the store relies on, and answers null otherwise.
import {
  isMemberOf,
  parseByType,
  type CacheMeter,
  type ChatItem,
  type ChatState,
  type ContextMeter,
  type HostToChat,
  type InstructionInfo,
  type PendingEdit,
  type ProbeCheckItem,
  type ProbeCheckOffer,
  type ProbeFollowView,
  type ProbeKindView,
  type ProbeMissView,
  type RawMessage,
  type RestoreFileView,
  type TodoItem,
  type ValidatorsByType,
} from '../../src/protocol';

const isTodoStatus = isMemberOf<TodoItem['status']>({ pending: true, in_progress: true, done: true });
const isTodoItem = (v: unknown): v is TodoItem => {
  const r = v as Record<string, unknown> | null;
  return typeof r === 'object' && r !== null && typeof r.id === 'string' && typeof r.text === 'string' && isTodoStatus(r.status);
};

const isInstructionKind = isMemberOf<InstructionInfo['kind']>({ file: true, setting: true, chat: true });
const isInstructionInfo = (v: unknown): v is InstructionInfo => {
  const r = v as Record<string, unknown> | null;
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.name === 'string' &&
    isInstructionKind(r.kind) &&
    typeof r.sent === 'boolean' &&
    typeof r.truncated === 'boolean' &&
    typeof r.chars === 'number' &&
    typeof r.originalChars === 'number' &&
    (r.messageId === undefined || typeof r.messageId === 'string')
  );
};

const isPendingEdit = (v: unknown): v is PendingEdit => {
  const r = v as Record<string, unknown> | null;
  return (
    typeof r === 'object' && r !== null && typeof r.toolUseId === 'string' && typeof r.path === 'string' && typeof r.title === 'string'
  );
};

const isSince = isMemberOf<RestoreFileView['since']>({ created: true, deleted: true, modified: true });
const isRestoreFile = (v: unknown): v is RestoreFileView => {
  const r = v as Record<string, unknown> | null;
  return typeof r === 'object' && r !== null && typeof r.path === 'string' && isSince(r.since);
};

export function isItem(v: unknown): v is ChatItem {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  return (
    typeof r.id === 'string' &&
    isItemKind(r.kind) &&
    (r.messageId === undefined || typeof r.messageId === 'string') &&
    (r.pinned === undefined || typeof r.pinned === 'boolean') &&
    (r.kind !== 'probes' || isProbeCard(r)) &&
    (r.kind !== 'compaction' || r.check === undefined || isCheckOffer(r.check))
  );
}

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;
const isProbeKind = isMemberOf<ProbeKindView>({ artifact: true, recall: true, decision: true, continuation: true });
const isVerdict = isMemberOf<ProbeMissView['verdict']>({ wrong: true, unanswered: true, uncertain: true });
const isCheckStatus = isMemberOf<ProbeCheckItem['status']>({ running: true, done: true, failed: true });

function isCheckOffer(v: unknown): v is ProbeCheckOffer {
  const r = v as Record<string, unknown> | null;
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.model === 'string' &&
    isNum(r.probes) &&
    isNum(r.inputTokens) &&
    isNum(r.estimateUSD) &&
    typeof r.offer === 'boolean'
  );
}

function isMiss(v: unknown): v is ProbeMissView {
  const r = v as Record<string, unknown> | null;
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.probeId === 'string' &&
    isProbeKind(r.kind) &&
    typeof r.question === 'string' &&
    Array.isArray(r.expected) &&
    r.expected.every((e) => typeof e === 'string') &&
    typeof r.answer === 'string' &&
    isVerdict(r.verdict) &&
    (r.sourceId === null || typeof r.sourceId === 'string') &&
    (r.done === undefined || r.done === 'pinned' || r.done === 'added')
  );
}

/** A check's card: the fields the card renders, each of its shape (the model's answers are text the card sanitizes). */
function isProbeCard(r: Record<string, unknown>): boolean {
  const byKind = r.byKind as Record<string, { correct?: unknown; total?: unknown }> | null;
  return (
    typeof r.compactionId === 'string' &&
    typeof r.model === 'string' &&
    isCheckStatus(r.status) &&
    (r.error === undefined || typeof r.error === 'string') &&
    isNum(r.correct) &&
    isNum(r.total) &&
    typeof byKind === 'object' &&
    byKind !== null &&
    Object.keys(byKind).length === 4 &&
    Object.entries(byKind).every(([k, n]) => isProbeKind(k) && isNum(n?.correct) && isNum(n?.total)) &&
    Array.isArray(r.missed) &&
    r.missed.every(isMiss) &&
    (r.costUSD === undefined || isNum(r.costUSD)) &&
    (r.undoable === undefined || typeof r.undoable === 'boolean') &&
    (r.followed === undefined || (Array.isArray(r.followed) && r.followed.every(isFollow)))
  );
}

function isFollow(v: unknown): v is ProbeFollowView {
  const r = v as Record<string, unknown> | null;
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.probeId === 'string' &&
    typeof r.question === 'string' &&
    Array.isArray(r.expected) &&
    r.expected.every((e) => typeof e === 'string') &&
    typeof r.answered === 'boolean'
  );
}

const isItemKind = isMemberOf<ChatItem['kind']>({
  user: true,
  assistant: true,
  thinking: true,
  tool: true,
  compaction: true,
  probes: true,
  error: true,
  notice: true,
});

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

const isCaching = isMemberOf<CacheMeter['caching']>({ off: true, '5m': true, '1h': true });

function isCacheMeter(v: unknown): v is CacheMeter {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  return isCaching(r.caching) && isCallUsage(r.last) && isCallUsage(r.session, ['calls']);
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

/** The member of HostToChat of type K: the host message as sent, once the check of its fields passed. */
const sent = <K extends HostToChat['type']>(m: RawMessage, valid: boolean): Extract<HostToChat, { type: K }> | null =>
  valid ? (m as unknown as Extract<HostToChat, { type: K }>) : null;

const HOST_TO_CHAT: ValidatorsByType<HostToChat> = {
  state: (m) => sent<'state'>(m, isChatState(m.state)),
  item: (m) => sent<'item'>(m, isItem(m.item)),
  delta: (m) => sent<'delta'>(m, typeof m.id === 'string' && typeof m.text === 'string'),
  busy: (m) => sent<'busy'>(m, typeof m.busy === 'boolean' && typeof m.compacting === 'boolean'),
  context: (m) => sent<'context'>(m, isContextMeter(m.context)),
  pins: (m) => (Array.isArray(m.ids) && m.ids.every((id) => typeof id === 'string') ? { type: 'pins', ids: m.ids as string[] } : null),
  focusInput: () => ({ type: 'focusInput' }),
  proposals: (m) =>
    Array.isArray(m.items) && m.items.every(isPendingEdit) ? { type: 'proposals', items: m.items as PendingEdit[] } : null,
  restorePlan: (m) =>
    sent<'restorePlan'>(
      m,
      typeof m.messageId === 'string' &&
        (m.files === null || (Array.isArray(m.files) && m.files.every(isRestoreFile))) &&
        (m.error === undefined || typeof m.error === 'string'),
    ),
  instructions: (m) =>
    sent<'instructions'>(m, Array.isArray(m.items) && m.items.every(isInstructionInfo) && typeof m.listedOnly === 'boolean'),
  todo: (m) => (Array.isArray(m.items) && m.items.every(isTodoItem) ? { type: 'todo', items: m.items as TodoItem[] } : null),
  files: (m) =>
    Array.isArray(m.files) && m.files.every((f) => typeof f === 'string') && typeof m.truncated === 'boolean'
      ? { type: 'files', files: m.files as string[], truncated: m.truncated }
      : null,
};

/**
 * A host message, or null. The host is trusted, but a malformed message must not take the view
 * down: check the shape each type relies on (one check per type of HostToChat, or it does not compile).
 */
export const parseHostToChat: (v: unknown) => HostToChat | null = parseByType(HOST_TO_CHAT);
