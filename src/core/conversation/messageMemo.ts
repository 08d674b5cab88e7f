// What was computed of a message, remembered per message object (the engine never mutates a message).
// One WeakMap that grows rehashes all its entries in one synchronous step (30-60 ms past 200,000 entries
// on the extension host); sixteen, each message in the one its id picks, keep each such step to a
// sixteenth, for one lookup still. Used by the token counts' memo and the probes' text facts.
import type { Message } from './conversation';

export const MEMO_SHARDS = 16;

/** The shard of a message: a hash of the last characters of its id (stable: messages are never mutated). */
function shardOf(message: Message): number {
  const id = message.id;
  if (typeof id !== 'string') return 0;
  let h = 0;
  for (let i = Math.max(0, id.length - 8); i < id.length; i++) h = (h * 31 + id.charCodeAt(i)) | 0;
  return (h ^ (h >>> 7)) & (MEMO_SHARDS - 1);
}

export class MessageMemo<V> {
  private readonly shards = Array.from({ length: MEMO_SHARDS }, () => new WeakMap<Message, V>());

  get(message: Message): V | undefined {
    return this.shards[shardOf(message)].get(message);
  }

  set(message: Message, value: V): void {
    this.shards[shardOf(message)].set(message, value);
  }
}
