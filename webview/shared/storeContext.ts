// The one shape of both webviews' state: a store that takes the host's messages, keeps a snapshot for
// the components to render, and has one method per user action (it posts the intent to the host and
// updates the snapshot). Components reach it through a context, never through callback props, and
// only render: they call the store's methods, and the store imports no component.
import { createContext, type Context } from 'preact';
import { useContext } from 'preact/hooks';
import type { Observable } from './useSnapshot';

export interface WebviewStore<TSnapshot, TFromHost> extends Observable<TSnapshot> {
  /** A message from the host, already checked by the app's parser. */
  receive(message: TFromHost): void;
  /** Tells the host the view is listening (the host answers with its state). */
  ready(): void;
}

export interface StoreContext<TStore> {
  readonly Context: Context<TStore | null>;
  /** The app's store, from inside its provider (throws outside it: a wiring mistake, not a state). */
  useStore(): TStore;
}

export function createStoreContext<TStore>(app: string): StoreContext<TStore> {
  const Context = createContext<TStore | null>(null);
  return {
    Context,
    useStore(): TStore {
      const store = useContext(Context);
      if (!store) throw new Error(`useStore: no ${app} store provider`);
      return store;
    },
  };
}
