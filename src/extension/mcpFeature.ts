// MCP servers in VS Code: the configuration comes from `.vscode/mcp.json` and `.mcp.json` in the
// workspace (ignored, and the chat says so, when the workspace is not trusted) and the user setting
// splitpoint.mcp.servers; the allow-list is the user setting splitpoint.mcp.autoApprove (user settings
// only: a cloned repository cannot allow its own tools). Servers restart when a configuration file,
// the setting, the folders or the trust change, and on "Splitpoint: Restart MCP Servers"; they stop
// with the window. What they do is McpService's (src/agent/mcp, plain Node).
import * as vscode from 'vscode';
import { McpService, WORKSPACE_MCP_FILES, type McpToolHost } from '../agent/mcp';
import { Emitter, type Event } from '../core';
import { Disposable } from './lifecycle';
import type { SettingsReader } from './settings';

export class McpFeature extends Disposable {
  private readonly service: McpService;
  private readonly notices = this.register(new Emitter<string>());
  /** A message for the chat: start failures, crashes, ignored configuration. */
  readonly onNotice: Event<string> = this.notices.event;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly log: vscode.LogOutputChannel,
    private readonly settings: SettingsReader,
  ) {
    super();
    this.service = new McpService({
      log: { info: (m) => log.info(m), warn: (m) => log.warn(m), error: (m) => log.error(m) },
      notice: (m) => this.notices.fire(m),
      autoApprove: () => settings.mcp().autoApprove,
      allowAlways: async (entry) => {
        await settings.allowMcpTool(entry);
        log.info(`Added ${entry} to splitpoint.mcp.autoApprove.`);
      },
    });
    this.register({ dispose: () => this.service.dispose() });
    this.register({ dispose: () => clearTimeout(this.timer) });
    this.start();
  }

  /** What the agent uses: the tools of the running servers and the allow-list. */
  get host(): McpToolHost {
    return this.service;
  }

  /** Starts the servers (asynchronously: onNotice's listeners, added right after construction, hear every notice). */
  private start(): void {
    this.register(vscode.commands.registerCommand('splitpoint.restartMcpServers', () => this.reload()));
    for (const f of WORKSPACE_MCP_FILES) {
      for (const folder of vscode.workspace.workspaceFolders?.slice(0, 1) ?? []) {
        const watcher = this.register(vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, f.path)));
        for (const on of [watcher.onDidCreate, watcher.onDidChange, watcher.onDidDelete]) this.register(on(() => this.reloadSoon()));
      }
    }
    this.register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('splitpoint.mcp.servers')) this.reloadSoon();
      }),
    );
    this.register(vscode.workspace.onDidChangeWorkspaceFolders(() => this.reloadSoon()));
    this.register(vscode.workspace.onDidGrantWorkspaceTrust(() => this.reloadSoon()));
    void this.reload();
  }

  private reloadSoon(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.reload(), 300);
  }

  private async reload(): Promise<void> {
    try {
      await this.service.reload({
        workspaceRoot: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
        trusted: vscode.workspace.isTrusted,
        userServers: this.settings.mcp().servers,
      });
      const states = this.service.manager.states();
      if (states.length > 0) this.log.info(`MCP servers: ${states.map((s) => `${s.name} ${s.status} (${s.tools} tools)`).join(', ')}.`);
    } catch (e) {
      this.notices.fire(`MCP servers could not be started: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}
