// The MCP side of a window as the agent sees it: which servers the configuration asks for (workspace
// files only when trusted; the chat is told when they are ignored, and about every configuration
// error), the manager that runs them, and the user's allow-list. The extension gives it settings and
// a way to write the allow-list; tests give it plain values.
import { errorMessage, type Disposable } from '../../core';
import type { ToolResult } from '../tools';
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
}

export class McpService implements McpToolHost, Disposable {
  readonly manager: McpManager;
  private reloading: Promise<void> = Promise.resolve();

  constructor(private readonly options: McpServiceOptions) {
    this.manager = new McpManager({ ...options, notice: (m) => options.notice(m) });
  }

  /**
   * Stop the running servers and start those the configuration names now (calls are serialised). A
   * reload that fails rejects for its caller only: the next one runs as if it had not happened.
   */
  reload(input: McpLoadInput): Promise<void> {
    const afterPrevious = this.reloading.catch(() => undefined);
    this.reloading = afterPrevious.then(async () => {
      const config = loadMcpConfig(input);
      for (const file of config.ignoredUntrusted)
        this.options.notice(
          `This workspace is not trusted, so its MCP configuration ${file} is ignored (no server from it was started). ` +
            'Trust the workspace to use it.',
        );
      for (const e of config.errors) this.options.notice(`MCP configuration: ${e}`);
      await this.manager.restart(config.servers);
    });
    return this.reloading;
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

  autoApprove(): readonly string[] {
    return this.options.autoApprove();
  }

  allowAlways(server: string, tool: string): void {
    const entry = `${server}/${tool}`;
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
