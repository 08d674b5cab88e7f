// MCP servers in VS Code: the configuration comes from `.vscode/mcp.json` and `.mcp.json` in the
// workspace (ignored, and the chat says so, when the workspace is not trusted) and the user setting
// splitpoint.mcp.servers. A workspace server starts only after the user allowed its exact definition
// in a modal dialog (remembered in workspaceState, asked again when the definition changes). The
// allow-list is the user setting splitpoint.mcp.autoApprove (user settings only, for the user's own
// servers: a cloned repository cannot allow its own tools). Servers restart when a configuration file,
// the setting, the folders or the trust change, and on "Splitpoint: Restart MCP Servers"; they stop
// with the window. What they do is McpService's (src/agent/mcp, plain Node).
import * as vscode from 'vscode';
import { McpService, WORKSPACE_MCP_FILES, type McpApprovalAnswer, type McpServerApprovalRequest, type McpToolHost } from '../agent/mcp';
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
    workspaceState: vscode.Memento,
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
      approvals: workspaceState,
      askToStart: askToStartServer,
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
    this.register(vscode.commands.registerCommand('splitpoint.restartMcpServers', () => this.reload(true)));
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

  /** `askAgain`: the restart command asks again about the workspace servers the user did not allow. */
  private async reload(askAgain = false): Promise<void> {
    try {
      await this.service.reload(
        {
          workspaceRoot: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
          trusted: vscode.workspace.isTrusted,
          userServers: this.settings.mcp().servers,
        },
        { askAgain },
      );
      const states = this.service.manager.states();
      if (states.length > 0) this.log.info(`MCP servers: ${states.map((s) => `${s.name} ${s.status} (${s.tools} tools)`).join(', ')}.`);
    } catch (e) {
      this.notices.fire(`MCP servers could not be started: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}

const ALLOW = 'Allow';
const DONT_ALLOW = "Don't allow";

/** The modal dialog: what would run (as written: no value read from the environment is shown). */
async function askToStartServer(r: McpServerApprovalRequest): Promise<McpApprovalAnswer> {
  const lines =
    r.type === 'stdio'
      ? [`Command: ${[r.command ?? '', ...(r.args ?? [])].map(shellWord).join(' ')}`, ...(r.cwd ? [`Folder: ${r.cwd}`] : [])]
      : [`URL: ${r.url ?? ''}`];
  if (r.envKeys.length > 0) lines.push(`Environment variables set for it: ${r.envKeys.join(', ')}`);
  if (r.headerKeys.length > 0) lines.push(`Headers sent: ${r.headerKeys.join(', ')}`);
  if (r.environmentRead.length > 0)
    lines.push(`Reads from your environment (their values go to the server): ${r.environmentRead.join(', ')}`);
  const what = r.type === 'stdio' ? 'runs a program on your computer with your permissions' : 'connects to this URL';
  const choice = await vscode.window.showWarningMessage(
    `Start the MCP server "${r.name}" defined by this workspace?`,
    {
      modal: true,
      detail:
        `${vscode.workspace.asRelativePath(r.file)} asks Splitpoint to start an MCP server that ${what}:\n\n${lines.join('\n')}\n\n` +
        'Allow it only if you trust this repository. Splitpoint remembers the answer for this definition and asks again if it changes.',
    },
    ALLOW,
    DONT_ALLOW,
  );
  return choice === ALLOW ? 'allow' : choice === DONT_ALLOW ? 'deny' : undefined;
}

function shellWord(w: string): string {
  return /^[\w@%+=:,./${}-]+$/.test(w) ? w : JSON.stringify(w);
}
