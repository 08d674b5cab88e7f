// Validation of what the webviews send, on the host (the types are in ./index.ts, shared with the
// webviews; this module is host-only). Webviews are untrusted: a compromised webview must not be
// able to make the host do anything outside the protocol's shapes. Each union has a table with one
// validator per message type (byType.ts): a type without its validator does not compile.
import { parseTodoItems } from '../core';
import { isMemberOf, parseByType, type RawMessage, type ValidatorsByType } from './byType';
import type { TodoItem } from '../core';
import type { ChatToHost, ImageAttachment, InspectorToHost, ProbeAction } from './index';
import { LIVE_TO_HOST } from './live';

const MAX_TEXT = 200_000;
const MAX_ID = 200;

type Rec = RawMessage;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown, max = MAX_ID): v is string => typeof v === 'string' && v.length <= max;
const nonEmpty = (v: unknown, max = MAX_ID): v is string => str(v, max) && v.length > 0;
const optStr = (v: unknown, max = MAX_TEXT): boolean => v === undefined || str(v, max);
const onlyKeys = (v: Rec, keys: string[]): boolean => Object.keys(v).every((k) => keys.includes(k));

function params(v: unknown): v is Record<string, number> {
  if (!isRec(v)) return false;
  const entries = Object.entries(v);
  return entries.length <= 16 && entries.every(([k, n]) => k.length <= 64 && typeof n === 'number' && Number.isFinite(n));
}

/** A message of exactly `{ type }`. */
const bare = <T extends string>(v: RawMessage, type: T): { type: T } | null => (onlyKeys(v, ['type']) ? { type } : null);
/** A message of exactly `{ type, [key]: a non-empty id }`. */
function withId<T extends string, K extends string>(v: RawMessage, type: T, key: K): ({ type: T } & Record<K, string>) | null {
  const id = v[key];
  return onlyKeys(v, ['type', key]) && nonEmpty(id) ? ({ type, [key]: id } as { type: T } & Record<K, string>) : null;
}
const openTranscript = (v: RawMessage): { type: 'openTranscript'; path: string } | null =>
  onlyKeys(v, ['type', 'path']) && nonEmpty(v.path, 4_096) ? { type: 'openTranscript', path: v.path } : null;

/** The checklist's edit: exactly `{ type, items }`, the items a valid task list (the same check as the todo tool's). */
function parseSetTodo(v: RawMessage): { type: 'setTodo'; items: TodoItem[] } | null {
  if (!onlyKeys(v, ['type', 'items'])) return null;
  const parsed = parseTodoItems(v.items);
  return parsed.ok ? { type: 'setTodo', items: parsed.items } : null;
}

const isProbeAction = isMemberOf<ProbeAction>({ pin: true, addToLedger: true, undo: true });

const CHAT_TO_HOST: ValidatorsByType<ChatToHost> = {
  ready: (v) => bare(v, 'ready'),
  stop: (v) => bare(v, 'stop'),
  retry: (v) => bare(v, 'retry'),
  newChat: (v) => bare(v, 'newChat'),
  setApiKey: (v) => bare(v, 'setApiKey'),
  openInspector: (v) => bare(v, 'openInspector'),
  undoCompaction: (v) => bare(v, 'undoCompaction'),
  pickModel: (v) => bare(v, 'pickModel'),
  listFiles: (v) => bare(v, 'listFiles'),
  openDiff: (v) => withId(v, 'openDiff', 'toolUseId'),
  previewRestore: (v) => withId(v, 'previewRestore', 'messageId'),
  restoreFiles: (v) => withId(v, 'restoreFiles', 'messageId'),
  openRestoreDiff: (v) =>
    onlyKeys(v, ['type', 'messageId', 'path']) && nonEmpty(v.messageId) && nonEmpty(v.path, 4_096)
      ? { type: 'openRestoreDiff', messageId: v.messageId, path: v.path }
      : null,
  send: (v) => parseSend(v),
  approve: (v) =>
    onlyKeys(v, ['type', 'toolUseId', 'alwaysAllow']) && nonEmpty(v.toolUseId) && (v.alwaysAllow === undefined || v.alwaysAllow === true)
      ? { type: 'approve', toolUseId: v.toolUseId, ...(v.alwaysAllow ? { alwaysAllow: true as const } : {}) }
      : null,
  reject: (v) =>
    onlyKeys(v, ['type', 'toolUseId', 'reason']) && nonEmpty(v.toolUseId) && optStr(v.reason, 2_000)
      ? { type: 'reject', toolUseId: v.toolUseId, ...(v.reason !== undefined ? { reason: v.reason as string } : {}) }
      : null,
  compact: (v) =>
    onlyKeys(v, ['type', 'focus']) && optStr(v.focus, 2_000)
      ? { type: 'compact', ...(v.focus !== undefined ? { focus: v.focus as string } : {}) }
      : null,
  openTranscript,
  pin: (v) => withId(v, 'pin', 'id'),
  setTodo: (v) => parseSetTodo(v),
  allowInstructions: (v) => bare(v, 'allowInstructions'),
  keepAsInstruction: (v) => withId(v, 'keepAsInstruction', 'messageId'),
  removeInstruction: (v) => withId(v, 'removeInstruction', 'messageId'),
  unpin: (v) => withId(v, 'unpin', 'id'),
  checkCompaction: (v) => withId(v, 'checkCompaction', 'compactionId'),
  probeAction: (v) =>
    onlyKeys(v, ['type', 'checkId', 'probeId', 'action']) && nonEmpty(v.checkId) && nonEmpty(v.probeId) && isProbeAction(v.action)
      ? { type: 'probeAction', checkId: v.checkId, probeId: v.probeId, action: v.action }
      : null,
};

/** A chat message from the webview, or null if it is not exactly one of the protocol's shapes. */
export const parseChatToHost: (v: unknown) => ChatToHost | null = parseByType(CHAT_TO_HOST);

const MAX_MENTIONS = 20;
const MAX_IMAGES = 10;
/** base64 of at most 5 MB (the API's image limit), with padding. */
const MAX_IMAGE_BASE64 = Math.ceil((5 * 1024 * 1024) / 3) * 4;
const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** An image attachment, copied: exactly `{ mediaType, data }` of the API's types and size; else null. */
function image(v: unknown): ImageAttachment | null {
  const ok =
    isRec(v) &&
    onlyKeys(v, ['mediaType', 'data']) &&
    IMAGE_TYPES.includes(v.mediaType as string) &&
    nonEmpty(v.data, MAX_IMAGE_BASE64) &&
    v.data.length % 4 === 0 &&
    BASE64.test(v.data);
  return ok ? { mediaType: v.mediaType as ImageAttachment['mediaType'], data: v.data as string } : null;
}

/**
 * A dense array of at most `max` items that all parse, copied; else null. Dense: every index from 0 to
 * length - 1 is an own property and there is no other own key, so a hole (`[, 'a']`) or an extra key
 * (`Object.assign(['a'], { x: 1 })`) is refused rather than passed on.
 */
function denseArray<T>(v: unknown, max: number, parse: (item: unknown) => T | null): T[] | null {
  if (!Array.isArray(v) || v.length > max || Object.keys(v).length !== v.length) return null;
  const items: T[] = [];
  for (let i = 0; i < v.length; i++) {
    const item = Object.hasOwn(v, i) ? parse(v[i]) : null;
    if (item === null) return null;
    items.push(item);
  }
  return items;
}

const mentionPath = (v: unknown): string | null => (nonEmpty(v, 4_096) ? v : null);

/** A prompt: non-empty text (or images alone), at most 20 mentioned paths, at most 10 images of the API's types and size. */
function parseSend(v: Rec): Extract<ChatToHost, { type: 'send' }> | null {
  if (!onlyKeys(v, ['type', 'text', 'mentions', 'images']) || !str(v.text, MAX_TEXT)) return null;
  const mentions = v.mentions === undefined ? [] : denseArray(v.mentions, MAX_MENTIONS, mentionPath);
  const images = v.images === undefined ? [] : denseArray(v.images, MAX_IMAGES, image);
  if (!mentions || !images) return null;
  if (v.text.trim().length === 0 && images.length === 0) return null;
  return {
    type: 'send',
    text: v.text,
    ...(mentions.length ? { mentions } : {}),
    ...(images.length ? { images } : {}),
  };
}

/** An optional message id: absent, or a non-empty id within the cap. */
const optId = (v: unknown): boolean => v === undefined || nonEmpty(v);
const splitAt = (v: unknown): { splitAtId?: string } => (typeof v === 'string' ? { splitAtId: v } : {});

const INSPECTOR_TO_HOST: ValidatorsByType<InspectorToHost> = {
  ready: (v) => bare(v, 'ready'),
  undo: (v) => bare(v, 'undo'),
  inspectFile: (v) => bare(v, 'inspectFile'),
  replay: (v) => bare(v, 'replay'),
  showCurrent: (v) => bare(v, 'showCurrent'),
  preview: (v) =>
    onlyKeys(v, ['type', 'requestId', 'strategy', 'params', 'splitAtId']) &&
    Number.isSafeInteger(v.requestId) &&
    nonEmpty(v.strategy, 64) &&
    params(v.params) &&
    optId(v.splitAtId)
      ? { type: 'preview', requestId: v.requestId as number, strategy: v.strategy, params: v.params, ...splitAt(v.splitAtId) }
      : null,
  apply: (v) =>
    onlyKeys(v, ['type', 'strategy', 'params', 'focus', 'splitAtId']) &&
    nonEmpty(v.strategy, 64) &&
    params(v.params) &&
    optStr(v.focus, 2_000) &&
    optId(v.splitAtId)
      ? {
          type: 'apply',
          strategy: v.strategy,
          params: v.params,
          ...(v.focus !== undefined ? { focus: v.focus as string } : {}),
          ...splitAt(v.splitAtId),
        }
      : null,
  showMessage: (v) => withId(v, 'showMessage', 'id'),
  restoreFiles: (v) => withId(v, 'restoreFiles', 'id'),
  openTranscript,
  timeTravel: (v) =>
    onlyKeys(v, ['type', 'at']) && (v.at === null || (Number.isSafeInteger(v.at) && (v.at as number) >= 1 && (v.at as number) <= 10_000))
      ? { type: 'timeTravel', at: v.at as number | null }
      : null,
  pin: (v) => withId(v, 'pin', 'id'),
  unpin: (v) => withId(v, 'unpin', 'id'),
  checkCompaction: (v) => withId(v, 'checkCompaction', 'compactionId'),
  keepInstruction: (v) =>
    onlyKeys(v, ['type', 'text']) && nonEmpty(v.text, 16_000) && v.text.trim() !== '' ? { type: 'keepInstruction', text: v.text } : null,
  // The live-session strip's intents (issue 24).
  ...LIVE_TO_HOST,
};

/** An inspector message from the webview, or null if it is not exactly one of the protocol's shapes. */
export const parseInspectorToHost: (v: unknown) => InspectorToHost | null = parseByType(INSPECTOR_TO_HOST);
