// The per-session memo of micro-compacted copies, shared by the plan context and the strategies.
import type { Message } from '../conversation/conversation';

/**
 * Remembers the replaced copies made from each original message, so planning again over the same
 * history returns the same copy objects (and the token memo, keyed by object, knows them). Held by
 * the host per session; entries go away with their original messages.
 */
export class ReplacementCache {
  private readonly copies = new WeakMap<Message, Map<string, Message>>();

  get(original: Message, key: string, make: () => Message): Message {
    let byKey = this.copies.get(original);
    if (!byKey) this.copies.set(original, (byKey = new Map()));
    let copy = byKey.get(key);
    if (!copy) byKey.set(key, (copy = make()));
    return copy;
  }
}
