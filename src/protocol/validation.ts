// Validation of what the webviews send, on the host (the types are in protocol.ts, shared with the
// webviews; this module is host-only). Webviews are untrusted: a compromised webview must not be
// able to make the host do anything outside the protocol's shapes.
import type { ChatToHost, ImageAttachment, InspectorToHost } from './index';

// ---------------------------------------------------------------------------------------------
// Validation of what webviews send (they are untrusted: a compromised webview must not be able to
// make the host do anything outside these shapes).
// ---------------------------------------------------------------------------------------------

const MAX_TEXT = 200_000;
const MAX_ID = 200;

type Rec = Record<string, unknown>;
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

/** A chat message from the webview, or null if it is not exactly one of the protocol's shapes. */
export function parseChatToHost(v: unknown): ChatToHost | null {
  if (!isRec(v) || typeof v.type !== 'string') return null;
  switch (v.type) {
    case 'ready':
    case 'stop':
    case 'retry':
    case 'newChat':
    case 'setApiKey':
    case 'openInspector':
    case 'undoCompaction':
    case 'pickModel':
    case 'listFiles':
      return onlyKeys(v, ['type']) ? ({ type: v.type } as ChatToHost) : null;
    case 'openDiff':
      return onlyKeys(v, ['type', 'toolUseId']) && nonEmpty(v.toolUseId) ? { type: 'openDiff', toolUseId: v.toolUseId } : null;
    case 'previewRestore':
    case 'restoreFiles':
      return onlyKeys(v, ['type', 'messageId']) && nonEmpty(v.messageId) ? { type: v.type, messageId: v.messageId } : null;
    case 'openRestoreDiff':
      return onlyKeys(v, ['type', 'messageId', 'path']) && nonEmpty(v.messageId) && nonEmpty(v.path, 4_096)
        ? { type: 'openRestoreDiff', messageId: v.messageId, path: v.path }
        : null;
    case 'send':
      return parseSend(v);
    case 'approve':
      return onlyKeys(v, ['type', 'toolUseId', 'alwaysAllow']) &&
        nonEmpty(v.toolUseId) &&
        (v.alwaysAllow === undefined || v.alwaysAllow === true)
        ? { type: 'approve', toolUseId: v.toolUseId, ...(v.alwaysAllow ? { alwaysAllow: true as const } : {}) }
        : null;
    case 'reject':
      return onlyKeys(v, ['type', 'toolUseId', 'reason']) && nonEmpty(v.toolUseId) && optStr(v.reason, 2_000)
        ? { type: 'reject', toolUseId: v.toolUseId, ...(v.reason !== undefined ? { reason: v.reason as string } : {}) }
        : null;
    case 'compact':
      return onlyKeys(v, ['type', 'focus']) && optStr(v.focus, 2_000)
        ? { type: 'compact', ...(v.focus !== undefined ? { focus: v.focus as string } : {}) }
        : null;
    case 'openTranscript':
      return onlyKeys(v, ['type', 'path']) && nonEmpty(v.path, 4_096) ? { type: 'openTranscript', path: v.path } : null;
    case 'pin':
    case 'unpin':
      return parsePin(v);
    default:
      return null;
  }
}

const MAX_MENTIONS = 20;
const MAX_IMAGES = 10;
/** base64 of at most 5 MB (the API's image limit), with padding. */
const MAX_IMAGE_BASE64 = Math.ceil((5 * 1024 * 1024) / 3) * 4;
const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function image(v: unknown): v is ImageAttachment {
  return (
    isRec(v) &&
    onlyKeys(v, ['mediaType', 'data']) &&
    IMAGE_TYPES.includes(v.mediaType as string) &&
    nonEmpty(v.data, MAX_IMAGE_BASE64) &&
    v.data.length % 4 === 0 &&
    BASE64.test(v.data)
  );
}

/** A prompt: non-empty text (or images alone), at most 20 mentioned paths, at most 10 images of the API's types and size. */
function parseSend(v: Rec): ChatToHost | null {
  if (!onlyKeys(v, ['type', 'text', 'mentions', 'images']) || !str(v.text, MAX_TEXT)) return null;
  const mentions = v.mentions;
  const images = v.images;
  if (mentions !== undefined && !(Array.isArray(mentions) && mentions.length <= MAX_MENTIONS && mentions.every((m) => nonEmpty(m, 4_096))))
    return null;
  if (images !== undefined && !(Array.isArray(images) && images.length <= MAX_IMAGES && images.every(image))) return null;
  if (v.text.trim().length === 0 && !(images as unknown[] | undefined)?.length) return null;
  return {
    type: 'send',
    text: v.text,
    ...(mentions?.length ? { mentions: mentions as string[] } : {}),
    ...(images?.length ? { images: images as ImageAttachment[] } : {}),
  };
}

/** A pin or unpin intent: exactly `type` and a non-empty `id` of at most MAX_ID characters. */
function parsePin(v: Rec): { type: 'pin' | 'unpin'; id: string } | null {
  return (v.type === 'pin' || v.type === 'unpin') && onlyKeys(v, ['type', 'id']) && nonEmpty(v.id) ? { type: v.type, id: v.id } : null;
}

/** An optional message id: absent, or a non-empty id within the cap. */
const optId = (v: unknown): boolean => v === undefined || nonEmpty(v);
const splitAt = (v: unknown): { splitAtId?: string } => (typeof v === 'string' ? { splitAtId: v } : {});

/** An inspector message from the webview, or null if it is not exactly one of the protocol's shapes. */
export function parseInspectorToHost(v: unknown): InspectorToHost | null {
  if (!isRec(v) || typeof v.type !== 'string') return null;
  switch (v.type) {
    case 'ready':
    case 'undo':
    case 'inspectFile':
    case 'replay':
    case 'showCurrent':
      return onlyKeys(v, ['type']) ? ({ type: v.type } as InspectorToHost) : null;
    case 'preview':
      return onlyKeys(v, ['type', 'requestId', 'strategy', 'params', 'splitAtId']) &&
        Number.isSafeInteger(v.requestId) &&
        nonEmpty(v.strategy, 64) &&
        params(v.params) &&
        optId(v.splitAtId)
        ? { type: 'preview', requestId: v.requestId as number, strategy: v.strategy, params: v.params, ...splitAt(v.splitAtId) }
        : null;
    case 'apply':
      return onlyKeys(v, ['type', 'strategy', 'params', 'focus', 'splitAtId']) &&
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
        : null;
    case 'showMessage':
    case 'restoreFiles':
      return onlyKeys(v, ['type', 'id']) && nonEmpty(v.id) ? { type: v.type, id: v.id } : null;
    case 'openTranscript':
      return onlyKeys(v, ['type', 'path']) && nonEmpty(v.path, 4_096) ? { type: 'openTranscript', path: v.path } : null;
    case 'timeTravel':
      return onlyKeys(v, ['type', 'at']) &&
        (v.at === null || (Number.isSafeInteger(v.at) && (v.at as number) >= 1 && (v.at as number) <= 10_000))
        ? { type: 'timeTravel', at: v.at as number | null }
        : null;
    case 'pin':
    case 'unpin':
      return parsePin(v);
    default:
      return null;
  }
}
