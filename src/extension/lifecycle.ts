// Disposable discipline in the style of VS Code's own `lifecycle.ts`: a feature owns a
// DisposableStore and registers everything it creates there; a slot that holds one thing at a time
// (a panel, a timer) is a MutableDisposable. No `vscode` import: `vscode.Disposable` has the same
// shape, so these hold VS Code's disposables as they are, and they are unit-tested in plain Node.

export interface IDisposable {
  dispose(): void;
}

/** A disposable that runs `fn` once, on the first dispose(). */
export function toDisposable(fn: () => void): IDisposable {
  let disposed = false;
  return {
    dispose: () => {
      if (disposed) return;
      disposed = true;
      fn();
    },
  };
}

/**
 * Disposes every disposable it holds, in reverse order of addition, once. Adding to a store that is
 * already disposed disposes the newcomer at once (and reports it: that is a lifecycle bug, not a leak
 * to keep quiet about). Every disposable is disposed even if an earlier one throws; the first error
 * is rethrown after all ran.
 */
export class DisposableStore implements IDisposable {
  private readonly items = new Set<IDisposable>();
  private disposed = false;

  constructor(private readonly onLateAdd: (message: string) => void = (m) => console.warn(m)) {}

  get isDisposed(): boolean {
    return this.disposed;
  }

  add<T extends IDisposable>(item: T): T {
    if (this.disposed) {
      this.onLateAdd('DisposableStore: added a disposable after the store was disposed; disposing it now.');
      item.dispose();
    } else {
      this.items.add(item);
    }
    return item;
  }

  /** Removes `item` without disposing it (its new owner disposes it). */
  delete(item: IDisposable): void {
    this.items.delete(item);
  }

  /** Disposes what the store holds now; the store stays usable. */
  clear(): void {
    const items = [...this.items].reverse();
    this.items.clear();
    disposeAll(items);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.clear();
  }
}

/** Holds at most one disposable: setting a new value disposes the old one. */
export class MutableDisposable<T extends IDisposable> implements IDisposable {
  private current: T | undefined;
  private disposed = false;

  get value(): T | undefined {
    return this.disposed ? undefined : this.current;
  }

  set value(next: T | undefined) {
    if (this.disposed) {
      next?.dispose();
      return;
    }
    if (next === this.current) return;
    const previous = this.current;
    this.current = next;
    previous?.dispose();
  }

  /** Disposes the value and empties the slot. */
  clear(): void {
    this.value = undefined;
  }

  /** Empties the slot without disposing the value (it was disposed elsewhere, or changes owner). */
  clearAndLeak(): T | undefined {
    const previous = this.current;
    this.current = undefined;
    return previous;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    const previous = this.current;
    this.current = undefined;
    previous?.dispose();
  }
}

/** A base class for features: `this.register(x)` ties x's lifetime to the feature's. */
export abstract class Disposable implements IDisposable {
  protected readonly store = new DisposableStore();

  protected register<T extends IDisposable>(item: T): T {
    return this.store.add(item);
  }

  dispose(): void {
    this.store.dispose();
  }
}

function disposeAll(items: readonly IDisposable[]): void {
  let first: unknown;
  let failed = false;
  for (const item of items) {
    try {
      item.dispose();
    } catch (e) {
      if (!failed) first = e;
      failed = true;
    }
  }
  if (failed) throw first;
}
