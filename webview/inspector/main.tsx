// Entry point of the inspector webview bundle (dist/webview/inspector.js): connects to the host,
// builds the store from the saved view state, renders, then tells the host it is ready (the host
// answers with the session).
import { render } from 'preact';
import type { InspectorToHost } from '../../src/protocol';
import { connectHost } from '../shared/host';
import { App } from './App';
import { parseHostToInspector } from './hostMessages';
import { readPersisted } from './state';
import { InspectorStore } from './store';

const host = connectHost<InspectorToHost>();
const store = new InspectorStore(host, readPersisted(host.getState()));
// The page shell (src/extension/webviewHtml.ts) provides #root.
const root = document.getElementById('root') ?? document.body.appendChild(document.createElement('div'));
render(<App store={store} />, root);
host.listen(parseHostToInspector, (message) => store.receive(message));
store.ready();
