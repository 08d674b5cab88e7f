// Maps and sets that grow to hundreds of thousands of entries on the extension host (a huge imported
// session's messages, call ids, ids archived by a plan). One Map, Set or WeakMap that grows rehashes all
// its entries in one synchronous step (15-60 ms past 200,000 entries); sixteen, each entry in the one
// its id picks, keep each such step to a sixteenth, for one lookup still.
import type { Message } from '../conversation/conversation';

export const SHARDS = 16;

/** The shard of an id: a hash of its last characters. */
function shardOf(id: string): number {
  let h = 0;
  for (let i = Math.max(0, id.length - 8); i < id.length; i++) h = (h * 31 + id.charCodeAt(i)) | 0;
  return (h ^ (h >>> 7)) & (SHARDS - 1);
}

/** What was computed of a message, remembered per message object (the engine never mutates a message), sharded by its id. */
export class MessageMemo<V> {
  private readonly shards = Array.from({ length: SHARDS }, () => new WeakMap<Message, V>());

  get(message: Message): V | undefined {
    return this.shard(message).get(message);
  }

  set(message: Message, value: V): void {
    this.shard(message).set(message, value);
  }

  private shard(message: Message): WeakMap<Message, V> {
    return this.shards[typeof message.id === 'string' ? shardOf(message.id) : 0];
  }
}

/** A Map by string id, sharded. */
export class IdMap<V> {
  private readonly shards = Array.from({ length: SHARDS }, () => new Map<string, V>());

  get(id: string): V | undefined {
    return this.shards[shardOf(id)].get(id);
  }

  has(id: string): boolean {
    return this.shards[shardOf(id)].has(id);
  }

  set(id: string, value: V): this {
    this.shards[shardOf(id)].set(id, value);
    return this;
  }
}

/** A Set of string ids, sharded. */
export class IdSet {
  private readonly shards = Array.from({ length: SHARDS }, () => new Set<string>());

  has(id: string): boolean {
    return this.shards[shardOf(id)].has(id);
  }

  add(id: string): this {
    this.shards[shardOf(id)].add(id);
    return this;
  }
}
