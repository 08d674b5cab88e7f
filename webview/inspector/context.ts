// What every inspector component may reach without prop drilling: the inspector's store (its state
// and one method per user action).
import { createStoreContext } from '../shared/storeContext';
import type { InspectorStore } from './store';

export const inspectorContext = createStoreContext<InspectorStore>('inspector');

export const useStore = inspectorContext.useStore;
