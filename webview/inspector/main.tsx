// Entry point of the inspector webview bundle (dist/webview/inspector.js).
import { render } from 'preact';
import { App } from './App';
import { connectHost } from './vscode';

const host = connectHost();
// The page shell (src/webviewHtml.ts) provides #root.
const root = document.getElementById('root') ?? document.body.appendChild(document.createElement('div'));
render(<App host={host} />, root);
