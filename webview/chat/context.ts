// What every component may reach without prop drilling: the typed channel to the host and the
// store's view-only state.
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { ChatToHost } from '../../src/protocol';
import type { ChatStore } from './store';

export interface ChatEnv {
  post(msg: ChatToHost): void;
  store: ChatStore;
}

export const EnvContext = createContext<ChatEnv | null>(null);

export function useEnv(): ChatEnv {
  const env = useContext(EnvContext);
  if (!env) throw new Error('useEnv: no EnvContext provider');
  return env;
}
