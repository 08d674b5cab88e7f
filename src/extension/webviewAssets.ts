// The options and HTML every Splitpoint webview gets: scripts on, resources only from the bundle's
// folder and media/, a fresh nonce per load (src/extension/webviewHtml.ts holds the CSP).
import * as vscode from 'vscode';
import { buildWebviewHtml, makeNonce } from './webviewHtml';

export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return {
    enableScripts: true,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist', 'webview'), vscode.Uri.joinPath(extensionUri, 'media')],
  };
}

/** The page of `bundle` (dist/webview/<bundle>.js with media/<bundle>.css). */
export function webviewHtmlFor(
  webview: vscode.Webview,
  extensionUri: vscode.Uri,
  o: { title: string; bundle: 'chat' | 'inspector' },
): string {
  return buildWebviewHtml({
    title: o.title,
    nonce: makeNonce(),
    cspSource: webview.cspSource,
    scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview', `${o.bundle}.js`)).toString(),
    styleUris: [webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', `${o.bundle}.css`)).toString()],
  });
}
