// The "Agent Sessions" tree view (issue 24 item 1): the Claude Code, Codex and Splitpoint sessions of
// the workspace folders, newest activity first, each opened in the inspector and followed there.
// Registered at activation but reads nothing until VS Code asks for its rows (the view is open);
// while it is visible it refreshes on fs.watch events of the agents' folders and every few seconds,
// and stops when it is hidden. The rows are computed by sessionRows.ts (plain data, unit-tested).
import * as vscode from 'vscode';
import { watch, type FSWatcher } from 'node:fs';
import { homedir } from 'node:os';
import { discoverSessions, errorMessage } from '../core';
import { Disposable, MutableDisposable, toDisposable } from './lifecycle';
import { problemRow, sessionRows, watchedFolders, type SessionRow } from './sessionRows';

/** While visible: discover again this often (the "writing now" marks and new files a watch missed). */
const REFRESH_MS = 5_000;
/** fs.watch events arrive in bursts while an agent writes: one refresh per this pause. */
const WATCH_DEBOUNCE_MS = 500;

export interface SessionsViewDeps {
  /** Splitpoint's own sessions folder (<storageDir>/sessions). */
  splitpointDir: string;
  log: vscode.LogOutputChannel;
  /** The environment CLAUDE_CONFIG_DIR / CODEX_HOME are read from (default process.env). */
  env?: Record<string, string | undefined>;
}

export class SessionsView extends Disposable implements vscode.TreeDataProvider<SessionRow> {
  static readonly viewId = 'splitpoint.sessions';
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  readonly onDidChangeTreeData = this.changed.event;
  private rows: SessionRow[] | undefined;
  private signature = '';
  private loading: Promise<SessionRow[]> | undefined;
  private readonly live = this.register(new MutableDisposable());
  private readonly view: vscode.TreeView<SessionRow>;

  constructor(private readonly deps: SessionsViewDeps) {
    super();
    this.view = this.register(vscode.window.createTreeView(SessionsView.viewId, { treeDataProvider: this }));
    this.register(this.view.onDidChangeVisibility((e) => this.setVisible(e.visible)));
    this.register(vscode.commands.registerCommand('splitpoint.refreshSessions', () => this.reload()));
    this.register(vscode.workspace.onDidChangeWorkspaceFolders(() => this.view.visible && this.reload()));
    // Visible at start-up (the user left it open): VS Code asks for the rows itself; keep them current.
    if (this.view.visible === true) this.setVisible(true);
  }

  getTreeItem(row: SessionRow): vscode.TreeItem {
    const item = new vscode.TreeItem(row.label, vscode.TreeItemCollapsibleState.None);
    item.id = row.id;
    item.description = row.description;
    const tooltip = new vscode.MarkdownString(row.tooltip, true);
    item.tooltip = tooltip;
    item.iconPath = new vscode.ThemeIcon(row.icon, row.iconColor ? new vscode.ThemeColor(row.iconColor) : undefined);
    item.contextValue = row.contextValue;
    if (row.file) {
      item.resourceUri = vscode.Uri.file(row.file);
      item.command = { command: 'splitpoint.followSession', title: 'Follow in the Inspector', arguments: [row.file] };
    }
    return item;
  }

  async getChildren(element?: SessionRow): Promise<SessionRow[]> {
    if (element) return [];
    if (!this.rows) {
      this.rows = await this.load();
      this.signature = JSON.stringify(this.rows);
    }
    return this.rows;
  }

  /** Discovers again; the tree redraws only if a row changed. */
  async reload(): Promise<void> {
    const rows = await this.load();
    const signature = JSON.stringify(rows);
    if (signature === this.signature) return;
    this.rows = rows;
    this.signature = signature;
    this.changed.fire();
  }

  /** One discovery at a time: a refresh asked for while one runs gets that one's rows. */
  private load(): Promise<SessionRow[]> {
    this.loading ??= this.discover().finally(() => (this.loading = undefined));
    return this.loading;
  }

  private async discover(): Promise<SessionRow[]> {
    const cwds = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
    try {
      const found = await discoverSessions({ cwds, splitpointDirs: [this.deps.splitpointDir], env: this.env });
      for (const p of found.problems) this.deps.log.warn(`Agent Sessions: ${p}`);
      return sessionRows(found, Date.now());
    } catch (e) {
      // Never a stuck view: the failure is a row that says what went wrong.
      this.deps.log.error(`Agent Sessions: the sessions could not be listed: ${errorMessage(e)}`);
      return [problemRow(`The sessions could not be listed: ${errorMessage(e)}`)];
    }
  }

  private get env(): Record<string, string | undefined> {
    return this.deps.env ?? process.env;
  }

  /** Visible: watch the agents' folders and refresh every few seconds; hidden: nothing runs. */
  private setVisible(visible: boolean): void {
    if (!visible) {
      this.live.clear();
      return;
    }
    if (this.live.value) return;
    const watchers: FSWatcher[] = [];
    let debounce: NodeJS.Timeout | undefined;
    const soon = () => {
      clearTimeout(debounce);
      debounce = setTimeout(() => void this.reload(), WATCH_DEBOUNCE_MS);
    };
    const cwds = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
    for (const dir of watchedFolders(cwds, this.env, this.env.HOME ?? homedir(), this.deps.splitpointDir)) {
      try {
        const w = watch(dir, { persistent: false }, soon);
        w.on('error', () => w.close());
        watchers.push(w);
      } catch {
        // A folder that does not exist (yet) or cannot be watched: the timer still refreshes.
      }
    }
    const timer = setInterval(() => void this.reload(), REFRESH_MS);
    this.live.value = toDisposable(() => {
      clearInterval(timer);
      clearTimeout(debounce);
      for (const w of watchers) w.close();
    });
    // Back in view: what changed while it was hidden.
    if (this.rows) void this.reload();
  }
}
