// The context inspector: a WebviewPanel beside the editor. It renders what the host sends (the
// session's rows, plans computed here in the extension host) and posts intents back.
import * as vscode from 'vscode';
import { parseInspectorToHost, type HostToInspector, type InspectorToHost } from '../protocol';
import { buildWebviewHtml, makeNonce } from '../webviewHtml';
import { safeDescribe } from './chatView';

export class InspectorPanel implements vscode.Disposable {
  static readonly viewType = 'splitpoint.inspector';
  private panel: vscode.WebviewPanel | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly onIntent: (msg: InspectorToHost) => void,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  get isOpen(): boolean {
    return this.panel !== undefined;
  }

  show(): void {
    if (this.panel) {
      this.panel.reveal(vscode.ViewColumn.Beside, false);
      return;
    }
    const panel = vscode.window.createWebviewPanel(InspectorPanel.viewType, 'Splitpoint Inspector', { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false }, {
      enableScripts: true,
      retainContextWhenHidden: false,
      localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview'), vscode.Uri.joinPath(this.extensionUri, 'media')],
    });
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'splitpoint.svg');
    const webview = panel.webview;
    webview.html = buildWebviewHtml({
      title: 'Splitpoint Inspector',
      nonce: makeNonce(),
      cspSource: webview.cspSource,
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview', 'inspector.js')).toString(),
      styleUris: [webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'media', 'inspector.css')).toString()],
    });
    this.panel = panel;
    const subs = [
      webview.onDidReceiveMessage((raw: unknown) => {
        const msg = parseInspectorToHost(raw);
        if (!msg) {
          this.log.warn(`Ignored a malformed message from the inspector: ${safeDescribe(raw)}`);
          return;
        }
        this.onIntent(msg);
      }),
      panel.onDidChangeViewState(() => {
        if (panel.visible) this.onIntent({ type: 'ready' });
      }),
    ];
    panel.onDidDispose(() => {
      for (const s of subs) s.dispose();
      this.panel = undefined;
    }, null, this.disposables);
  }

  post(message: HostToInspector): void {
    void this.panel?.webview.postMessage(message);
  }

  dispose(): void {
    this.panel?.dispose();
    for (const d of this.disposables) d.dispose();
  }
}
