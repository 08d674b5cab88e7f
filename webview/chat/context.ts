// What every component may reach without prop drilling: the chat's store (its state and one method
// per user action).
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { ChatStore } from './store';

export const StoreContext = createContext<ChatStore | null>(null);

export function useStore(): ChatStore {
  const store = useContext(StoreContext);
  if (!store) throw new Error('useStore: no StoreContext provider');
  return store;
}
