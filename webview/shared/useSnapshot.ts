// Renders a component from a store's snapshot: re-renders when the store says it changed.
import { useLayoutEffect, useReducer } from 'preact/hooks';

export interface Observable<T> {
  getSnapshot(): T;
  subscribe(listener: () => void): () => void;
}

export function useSnapshot<T>(store: Observable<T>): T {
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  useLayoutEffect(() => store.subscribe(() => rerender(undefined)), [store]);
  return store.getSnapshot();
}
