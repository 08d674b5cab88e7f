// What every chat component may reach without prop drilling: the chat's store (its state and one
// method per user action).
import { createStoreContext } from '../shared/storeContext';
import type { ChatStore } from './store';

export const chatContext = createStoreContext<ChatStore>('chat');

export const useStore = chatContext.useStore;
