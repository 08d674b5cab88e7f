// A map that an import adds to and empties line by line (the calls not answered yet) without allocating
// as it churns. A Map or Set that lives as long as an import is promoted to V8's old generation, and V8
// then gives it a new table there on nearly every delete, and on every clear: on a 200 MB Claude Code
// file that left ~80 MB of dead tables awaiting a full collection, a third of the import's peak memory
// above what it keeps. Small (a handful of open calls, the usual), the entries are two arrays that are
// never shrunk, searched in order; past SMALL entries (a file with many calls never answered) a Map.

/** Entries kept in the arrays; past it, a Map (a linear search stays cheaper than hashing below it). */
const SMALL = 32;

export class ChurnMap<K, V> {
  private readonly keys: (K | undefined)[] = [];
  private readonly vals: (V | undefined)[] = [];
  private n = 0;
  private big: Map<K, V> | undefined;

  get size(): number {
    return this.big ? this.big.size : this.n;
  }

  has(key: K): boolean {
    return this.big ? this.big.has(key) : this.indexOf(key) >= 0;
  }

  get(key: K): V | undefined {
    if (this.big) return this.big.get(key);
    const i = this.indexOf(key);
    return i >= 0 ? this.vals[i] : undefined;
  }

  set(key: K, value: V): this {
    if (this.big) {
      this.big.set(key, value);
      return this;
    }
    const i = this.indexOf(key);
    if (i >= 0) {
      this.vals[i] = value;
    } else if (this.n < SMALL) {
      this.keys[this.n] = key;
      this.vals[this.n] = value;
      this.n++;
    } else {
      this.big = new Map(this.entries());
      this.big.set(key, value);
      this.clearArrays();
    }
    return this;
  }

  /** Removes the key (the order of the others is kept); whether it was there. */
  delete(key: K): boolean {
    if (this.big) {
      const had = this.big.delete(key);
      // Empty again: back to the arrays.
      if (this.big.size === 0) this.big = undefined;
      return had;
    }
    const i = this.indexOf(key);
    if (i < 0) return false;
    for (let j = i + 1; j < this.n; j++) {
      this.keys[j - 1] = this.keys[j];
      this.vals[j - 1] = this.vals[j];
    }
    this.n--;
    this.keys[this.n] = undefined;
    this.vals[this.n] = undefined;
    return true;
  }

  clear(): void {
    this.big = undefined;
    this.clearArrays();
  }

  /** The entries in the order they were first set. */
  *entries(): IterableIterator<[K, V]> {
    if (this.big) {
      yield* this.big.entries();
      return;
    }
    for (let i = 0; i < this.n; i++) yield [this.keys[i] as K, this.vals[i] as V];
  }

  /** The values in the same order (no entry pairs made: the assembler looks through them for every new draft). */
  *values(): IterableIterator<V> {
    if (this.big) {
      yield* this.big.values();
      return;
    }
    for (let i = 0; i < this.n; i++) yield this.vals[i] as V;
  }

  [Symbol.iterator](): IterableIterator<[K, V]> {
    return this.entries();
  }

  private indexOf(key: K): number {
    for (let i = 0; i < this.n; i++) if (this.keys[i] === key) return i;
    return -1;
  }

  private clearArrays(): void {
    for (let i = 0; i < this.n; i++) {
      this.keys[i] = undefined;
      this.vals[i] = undefined;
    }
    this.n = 0;
  }
}

/** A set of the same kind (see ChurnMap). */
export class ChurnSet<K> {
  private readonly map = new ChurnMap<K, true>();

  get size(): number {
    return this.map.size;
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  add(key: K): this {
    this.map.set(key, true);
    return this;
  }

  delete(key: K): boolean {
    return this.map.delete(key);
  }

  clear(): void {
    this.map.clear();
  }

  *[Symbol.iterator](): IterableIterator<K> {
    for (const [k] of this.map.entries()) yield k;
  }
}
