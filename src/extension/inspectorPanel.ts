// The context inspector's panel: a WebviewPanel beside the editor that renders webview/inspector and
// hands every validated message to its router (InspectorFeature). It is created by show(), or
// re-attached by restore() when VS Code revives it after a window reload (WebviewPanelSerializer).
import * as vscode from 'vscode';
import type { HostToInspector, HostToLive, InspectorToHost } from '../protocol';
import { parseInspectorToHost } from '../protocol/validation';
import { DisposableStore, MutableDisposable, toDisposable } from './lifecycle';
import { safeDescribe } from './safeDescribe';
import { webviewHtmlFor, webviewOptions } from './webviewAssets';

/** An open panel with the listeners this class attached to it. */
interface AttachedPanel extends vscode.Disposable {
  readonly panel: vscode.WebviewPanel;
}

export class InspectorPanel implements vscode.Disposable {
  static readonly viewType = 'splitpoint.inspector';
  private readonly current = new MutableDisposable<AttachedPanel>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly onMessage: (msg: InspectorToHost) => void,
    /** The panel became visible again (its webview may have been reloaded: send the session). */
    private readonly onDidBecomeVisible: () => void,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  get isOpen(): boolean {
    return this.current.value !== undefined;
  }

  show(): void {
    const open = this.current.value;
    if (open) {
      open.panel.reveal(vscode.ViewColumn.Beside, false);
      return;
    }
    const panel = vscode.window.createWebviewPanel(
      InspectorPanel.viewType,
      'Splitpoint Inspector',
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false },
      { ...webviewOptions(this.extensionUri), retainContextWhenHidden: false },
    );
    this.attach(panel);
  }

  /** Takes over a panel VS Code revived after a reload; its webview posts 'ready' once loaded. */
  restore(panel: vscode.WebviewPanel): void {
    panel.webview.options = webviewOptions(this.extensionUri);
    this.attach(panel);
  }

  /** A message for the inspector's store, or for its live-session strip (which listens for its own). */
  post(message: HostToInspector | HostToLive): void {
    void this.current.value?.panel.webview.postMessage(message);
  }

  dispose(): void {
    this.current.dispose();
  }

  private attach(panel: vscode.WebviewPanel): void {
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'splitpoint.svg');
    panel.webview.html = webviewHtmlFor(panel.webview, this.extensionUri, { title: 'Splitpoint Inspector', bundle: 'inspector' });
    const subs = new DisposableStore();
    const attached: AttachedPanel = { panel, dispose: () => subs.dispose() };
    subs.add(
      panel.webview.onDidReceiveMessage((raw: unknown) => {
        const msg = parseInspectorToHost(raw);
        if (msg) this.onMessage(msg);
        else this.log.warn(`Ignored a malformed message from the inspector: ${safeDescribe(raw)}`);
      }),
    );
    subs.add(
      panel.onDidChangeViewState(() => {
        if (panel.visible) this.onDidBecomeVisible();
      }),
    );
    subs.add(
      panel.onDidDispose(() => {
        // The user closed it (or dispose() below did): forget it without disposing it again.
        if (this.current.value === attached) this.current.clearAndLeak();
        subs.dispose();
      }),
    );
    // Disposing the slot (a new panel, or the extension shutting down) closes the panel too.
    subs.add(toDisposable(() => panel.dispose()));
    this.current.value = attached;
  }
}
