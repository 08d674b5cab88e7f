// The chat sidebar: a WebviewViewProvider that renders webview/chat and hands every validated
// message to its router (ChatFeature). State survives hide/show through the webview's own setState
// plus a fresh 'state' message when it becomes visible again.
import * as vscode from 'vscode';
import { errorMessage } from '../core';
import type { ChatState, ChatToHost, HostToChat } from '../protocol';
import { parseChatToHost } from '../protocol/validation';
import { DisposableStore, MutableDisposable } from './lifecycle';
import { safeDescribe } from './safeDescribe';
import { webviewHtmlFor, webviewOptions } from './webviewAssets';

export class ChatViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  static readonly viewId = 'splitpoint.chat';
  private view: vscode.WebviewView | undefined;
  /** The listeners of the view resolved last (a view is resolved again after it was disposed). */
  private readonly viewSubscriptions = new MutableDisposable<DisposableStore>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly getState: () => Promise<ChatState>,
    private readonly onMessage: (msg: ChatToHost) => void,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    const webview = view.webview;
    webview.options = webviewOptions(this.extensionUri);
    webview.html = webviewHtmlFor(webview, this.extensionUri, { title: 'Splitpoint Chat', bundle: 'chat' });
    const subs = new DisposableStore();
    this.viewSubscriptions.value = subs;
    subs.add(
      webview.onDidReceiveMessage((raw: unknown) => {
        const msg = parseChatToHost(raw);
        if (msg) this.onMessage(msg);
        else this.log.warn(`Ignored a malformed message from the chat view: ${safeDescribe(raw)}`);
      }),
    );
    subs.add(
      view.onDidChangeVisibility(() => {
        if (view.visible) this.sendState();
      }),
    );
    subs.add(
      view.onDidDispose(() => {
        if (this.view === view) this.view = undefined;
        if (this.viewSubscriptions.value === subs) this.viewSubscriptions.clear();
      }),
    );
  }

  get visible(): boolean {
    return this.view?.visible ?? false;
  }

  /** Sends the whole chat state (after a reset, a settings or API key change, or when shown again). */
  sendState(): void {
    void this.getState().then(
      (state) => this.post({ type: 'state', state }),
      (e: unknown) => this.log.error(`Could not read the chat state: ${errorMessage(e)}`),
    );
  }

  post(message: HostToChat): void {
    void this.view?.webview.postMessage(message);
  }

  async reveal(): Promise<void> {
    if (this.view) this.view.show(true);
    else await vscode.commands.executeCommand(`${ChatViewProvider.viewId}.focus`);
  }

  dispose(): void {
    this.viewSubscriptions.dispose();
    this.view = undefined;
  }
}
