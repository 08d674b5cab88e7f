// The MCP side of a window as the agent sees it: which servers the configuration asks for (workspace
// files only when trusted; the chat is told when they are ignored, and about every configuration
// error), the manager that runs them, and the user's allow-list. A server defined by the workspace
// starts only once the user approved its exact definition (approval.ts); the user's allow-list applies
// to the user's own servers only. The extension gives it settings, a way to write the allow-list, the
// workspace's memory and the approval dialog; tests give it plain values.
import { errorMessage, type Disposable } from '../../core';
import type { ToolResult } from '../tools';
import {
  approvalRequestFor,
  McpWorkspaceApprovals,
  type McpApprovalAnswer,
  type McpApprovalMemory,
  type McpServerApprovalRequest,
} from './approval';
import type { McpServerConfig } from './config';
import { loadMcpConfig, type McpLoadInput } from './load';
import { McpManager, type McpManagerOptions, type McpToolEntry } from './manager';
import type { McpToolHost } from './mcpTools';

export interface McpServiceOptions extends Omit<McpManagerOptions, 'notice'> {
  /** A message for the chat. */
  notice(message: string): void;
  /** The user's splitpoint.mcp.autoApprove. */
  autoApprove(): readonly string[];
  /** Add `server/tool` to the user's allow-list. */
  allowAlways(entry: string): Promise<void> | void;
  /** Where the answers about workspace servers are remembered (VS Code: workspaceState); else this window only. */
  approvals?: McpApprovalMemory;
  /** Ask the user whether a workspace server may start; without it, no workspace server starts. */
  askToStart?(request: McpServerApprovalRequest): Promise<McpApprovalAnswer>;
}

export interface McpReloadOptions {
  /** Ask again about the workspace servers the user said "Don't allow" for (the restart command). */
  askAgain?: boolean;
}

export class McpService implements McpToolHost, Disposable {
  readonly manager: McpManager;
  private reloading: Promise<void> = Promise.resolve();
  private readonly approvals: McpWorkspaceApprovals;
  /** The workspace servers started (approved), by name. */
  private workspaceServers = new Map<string, McpServerConfig>();

  constructor(private readonly options: McpServiceOptions) {
    this.manager = new McpManager({ ...options, notice: (m) => options.notice(m) });
    this.approvals = new McpWorkspaceApprovals(options.approvals ?? memoryOfThisWindow());
  }

  /**
   * Stop the running servers and start those the configuration names now (calls are serialised). A
   * reload that fails rejects for its caller only: the next one runs as if it had not happened.
   */
  reload(input: McpLoadInput, reloadOptions: McpReloadOptions = {}): Promise<void> {
    const afterPrevious = this.reloading.catch(() => undefined);
    this.reloading = afterPrevious.then(async () => {
      const config = loadMcpConfig(input);
      for (const file of config.ignoredUntrusted)
        this.options.notice(
          `This workspace is not trusted, so its MCP configuration ${file} is ignored (no server from it was started). ` +
            'Trust the workspace to use it.',
        );
      for (const e of config.errors) this.options.notice(`MCP configuration: ${e}`);
      await this.startApproved(config.servers, reloadOptions.askAgain ?? false);
    });
    return this.reloading;
  }

  /** The user's servers and the approved workspace servers start now; then the user is asked about the others. */
  private async startApproved(servers: readonly McpServerConfig[], askAgain: boolean): Promise<void> {
    const now: McpServerConfig[] = [];
    const ask: McpServerConfig[] = [];
    for (const s of servers) {
      const decision = s.source.workspace ? this.approvals.decision(s) : 'allow';
      if (decision === 'allow') now.push(s);
      else if (decision === undefined || askAgain) ask.push(s);
      else this.options.notice(notStarted(s, 'you chose "Don\'t allow" for this definition'));
    }
    this.workspaceServers = new Map(now.filter((s) => s.source.workspace).map((s) => [s.name, s]));
    await this.manager.restart(now);
    const approved: McpServerConfig[] = [];
    for (const s of ask) {
      const answer = this.options.askToStart ? await this.options.askToStart(approvalRequestFor(s)) : undefined;
      if (answer) await this.approvals.remember(s, answer);
      if (answer === 'allow') approved.push(s);
      else this.options.notice(notStarted(s, answer === 'deny' ? 'you chose "Don\'t allow"' : 'it was not approved'));
    }
    for (const s of approved) this.workspaceServers.set(s.name, s);
    if (approved.length > 0) await this.manager.start(approved);
  }

  /**
   * Resolves when the servers being (re)started have started or failed, after at most `maxWaitMs`
   * (a request does not wait forever for a slow server: its tools join a later request), or on abort.
   */
  whenReady(signal: AbortSignal, maxWaitMs = 15_000): Promise<void> {
    return new Promise<void>((resolveReady) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolveReady();
      };
      const timer = setTimeout(done, maxWaitMs);
      signal.addEventListener('abort', done, { once: true });
      if (signal.aborted) done();
      void this.reloading.then(done, done);
    });
  }

  tools(): McpToolEntry[] {
    return this.manager.tools();
  }

  call(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult> {
    return this.manager.call(name, args, signal);
  }

  /**
   * The allow-list in effect: the user's entries for the user's own servers (never for a workspace
   * server, whatever its name), and for each workspace server the tools allowed for its exact definition.
   */
  autoApprove(): readonly string[] {
    const own = this.options.autoApprove().filter((e) => !this.workspaceServers.has(e.split('/')[0]!));
    const workspace = [...this.workspaceServers.values()].flatMap((s) => this.approvals.allowedTools(s).map((t) => `${s.name}/${t}`));
    return [...own, ...workspace];
  }

  allowAlways(server: string, tool: string): void {
    const entry = `${server}/${tool}`;
    const fromWorkspace = this.workspaceServers.get(server);
    if (fromWorkspace) {
      this.approvals
        .allowTool(fromWorkspace, tool)
        .catch((e: unknown) => this.options.notice(`Could not remember "Always allow" for ${entry}: ${errorMessage(e)}`));
      return;
    }
    if (this.options.autoApprove().includes(entry)) return;
    Promise.resolve(this.options.allowAlways(entry)).catch((e: unknown) =>
      this.options.notice(`Could not add ${entry} to splitpoint.mcp.autoApprove: ${errorMessage(e)}`),
    );
  }

  stop(): Promise<void> {
    return this.manager.stopAll();
  }

  dispose(): void {
    this.manager.dispose();
  }
}

function notStarted(s: McpServerConfig, why: string): string {
  return `MCP server "${s.name}" (${s.source.file}) was not started: ${why}. ` + 'Run "Splitpoint: Restart MCP Servers" to be asked again.';
}

/** Answers kept for this window only (no workspace memory given). */
function memoryOfThisWindow(): McpApprovalMemory {
  const m = new Map<string, unknown>();
  return { get: (k) => m.get(k), update: (k, v) => void m.set(k, v) };
}
