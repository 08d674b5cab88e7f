// A request as the prompt cache sees it: the system prompt + tool definitions as one segment, then
// one segment per message as sent. A segment's key names its exact content (the message id and a hash
// of its content), so a message rewritten by micro-compaction or a compaction is a different segment.
// Breakpoints are placed like the agent's: on the system + tools segment and on the last message.
import type { Message } from '../conversation/conversation';
import { prefixHashes, type CacheSegment } from '../cost/cost';
import type { MessageTokenCounter } from '../counting/tokens';

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

/** The segments of a request and where its breakpoints go. */
export function requestSegments(
  overheadTokens: number,
  messages: readonly Message[],
  counter: MessageTokenCounter,
): { segments: CacheSegment[]; breakpoints: number[]; tokens: number } {
  const segments: CacheSegment[] = [{ key: 'system+tools', tokens: overheadTokens }];
  let tokens = overheadTokens;
  for (const m of messages) {
    const t = counter.countMessage(m);
    tokens += t;
    segments.push({ key: messageKey(m), tokens: t });
  }
  return { segments, breakpoints: [0, segments.length - 1], tokens };
}
