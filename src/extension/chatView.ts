// The chat sidebar: a WebviewViewProvider that renders webview/chat and relays validated intents
// to the controller. State survives hide/show through the webview's own setState plus a fresh
// 'state' message when it becomes visible again.
import * as vscode from 'vscode';
import { parseChatToHost, type ChatState, type ChatToHost, type HostToChat } from '../protocol';
import { buildWebviewHtml, makeNonce } from '../webviewHtml';

export class ChatViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  static readonly viewId = 'splitpoint.chat';
  private view: vscode.WebviewView | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly getState: () => Promise<ChatState>,
    private readonly handlers: { onIntent: (msg: ChatToHost) => void },
    private readonly log: vscode.LogOutputChannel,
  ) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    const webview = view.webview;
    webview.options = {
      enableScripts: true,
      localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview'), vscode.Uri.joinPath(this.extensionUri, 'media')],
    };
    webview.html = buildWebviewHtml({
      title: 'Splitpoint Chat',
      nonce: makeNonce(),
      cspSource: webview.cspSource,
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview', 'chat.js')).toString(),
      styleUris: [webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'media', 'chat.css')).toString()],
    });
    this.disposables.push(
      webview.onDidReceiveMessage((raw: unknown) => {
        const msg = parseChatToHost(raw);
        if (!msg) {
          this.log.warn(`Ignored a malformed message from the chat view: ${safeDescribe(raw)}`);
          return;
        }
        if (msg.type === 'ready') this.sendState();
        else this.handlers.onIntent(msg);
      }),
      view.onDidChangeVisibility(() => {
        if (view.visible) this.sendState();
      }),
      view.onDidDispose(() => {
        this.view = undefined;
      }),
    );
  }

  get visible(): boolean {
    return this.view?.visible ?? false;
  }

  sendState(): void {
    void this.getState().then((state) => this.post({ type: 'state', state }));
  }

  post(message: HostToChat): void {
    void this.view?.webview.postMessage(message);
  }

  async reveal(): Promise<void> {
    if (this.view) this.view.show(true);
    else await vscode.commands.executeCommand(`${ChatViewProvider.viewId}.focus`);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

export function safeDescribe(raw: unknown): string {
  try {
    const s = JSON.stringify(raw);
    return s === undefined ? String(raw) : s.length > 200 ? `${s.slice(0, 200)}…` : s;
  } catch {
    return typeof raw;
  }
}
