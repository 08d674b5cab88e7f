// Entry point of the inspector webview bundle (dist/webview/inspector.js): connects to the host,
// builds the store from the saved view state, renders, then tells the host it is ready (the host
// answers with the session).
import type { InspectorToHost } from '../../src/protocol';
import { connectHost } from '../shared/host';
import { mountWebview } from '../shared/mount';
import { App } from './App';
import { inspectorContext } from './context';
import { parseHostToInspector } from './hostMessages';
import { readPersisted } from './state';
import { InspectorStore } from './store';

const host = connectHost<InspectorToHost>();
const store = new InspectorStore(host, readPersisted(host.getState()));
mountWebview({ host, store, context: inspectorContext, App, parse: parseHostToInspector });
