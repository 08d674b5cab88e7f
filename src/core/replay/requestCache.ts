// A request as the prompt cache sees it: the system prompt + tool definitions as one segment, then
// one segment per message as sent. A segment's key names its exact content (the message id and a hash
// of its content), so a message rewritten by micro-compaction or a compaction is a different segment.
// Breakpoints are placed like the agents': on the system prompt segment and on the last message, and
// with micro-compaction on the last message before its frontier (what no later batch can change).
import type { Message } from '../conversation/conversation';
import { prefixHashes, type CacheSegment } from '../cost/cost';
import type { MessageTokenCounter } from '../counting/tokens';
import { currentTurnStart, RecordedSizes } from './sizes';

const keys = new WeakMap<Message, string>();

/** The exact-content key of a message (memoized per message object: the engine never mutates one). */
export function messageKey(m: Message): string {
  let key = keys.get(m);
  if (key === undefined) {
    const content = typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
    key = `${m.role}:${m.id}:${prefixHashes([{ key: content, tokens: 0 }])[0]}`;
    keys.set(m, key);
  }
  return key;
}

/** The part of a request before its messages: its size, and how much of it the cache held before the replay began. */
export interface RequestPrefix {
  overheadTokens: number;
  /** The warm part (what the recording's first call read from the cache), 0 when the cache started cold. */
  warmTokens: number;
  /** Names the prefix's content: prefixes of different recorded contexts are different content. */
  key?: string;
}

/**
 * The segments of a request and where its breakpoints go: the system prompt (the warm part, with its
 * breakpoint, as the agents mark it) and the rest of the prefix, then one segment per message;
 * `stableMessages` (the micro-compaction frontiers) adds a breakpoint on the last message before each.
 */
export function requestSegments(
  prefix: RequestPrefix,
  messages: readonly Message[],
  counter: MessageTokenCounter | RecordedSizes,
  stableMessages: readonly number[] = [],
): { segments: CacheSegment[]; breakpoints: number[]; tokens: number } {
  const key = prefix.key ?? 'system+tools';
  const warm = Math.min(prefix.warmTokens, prefix.overheadTokens);
  const segments: CacheSegment[] =
    warm > 0
      ? [
          { key: `${key}:warm`, tokens: warm },
          { key: `${key}:rest`, tokens: prefix.overheadTokens - warm },
        ]
      : [{ key, tokens: prefix.overheadTokens }];
  let tokens = prefix.overheadTokens;
  // Recorded sizes: the current turn's messages as they were sent during it, earlier ones as settled.
  const sizes = counter instanceof RecordedSizes ? counter : null;
  const live = sizes ? currentTurnStart(messages) : messages.length;
  messages.forEach((m, i) => {
    const t = sizes ? sizes.sizeIn(m, i >= live) : counter.countMessage(m);
    tokens += t;
    const version = sizes !== null && i < live ? sizes.version(m) : 0;
    segments.push({ key: version > 0 ? `${messageKey(m)}:v${version}` : messageKey(m), tokens: t });
  });
  // The micro-compaction frontiers (CompactionPipeline.cacheFrontier), as the agent marks them: the end of
  // the messages no later batch can change (this call's, and the call before's when a batch moved it).
  const head = segments.length - messages.length;
  const frontier = stableMessages.filter((n) => n > 0 && n < messages.length).map((n) => head + n - 1);
  return { segments, breakpoints: [0, ...frontier, segments.length - 1], tokens };
}

/** The warm part of a prefix as a request of its own (to seed a cache with what the recording shows warm). */
export function warmSegments(prefix: RequestPrefix): CacheSegment[] | null {
  const warm = Math.min(prefix.warmTokens, prefix.overheadTokens);
  return warm > 0 ? [{ key: `${prefix.key ?? 'system+tools'}:warm`, tokens: warm }] : null;
}
