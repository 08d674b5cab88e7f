// The MCP servers of a window: started from their configuration (stdio: a child process; http:
// streamable HTTP) through @modelcontextprotocol/sdk's Client, their tools listed under namespaced
// names, calls forwarded. A server that fails to start or stops unexpectedly is reported (notice)
// and its tools leave the list, so the next request no longer offers them; the others keep working.
// No `vscode` import: runs (and is tested) in plain Node against real servers.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { mcpSdk } from '../loop/sdks';
import { errorMessage, type Disposable } from '../../core';
import { CANCELLED_BY_USER, type ToolDefinition, type ToolResult } from '../tools';
import type { McpServerConfig } from './config';
import { namespacedToolName, serverSlug } from './names';
import { DEFAULT_MCP_RESULT_LIMITS, toolResultFromMcp, type McpCallResult, type McpResultLimits } from './results';

export type McpServerStatus = 'starting' | 'running' | 'failed' | 'stopped';

export interface McpServerState {
  name: string;
  type: 'stdio' | 'http';
  status: McpServerStatus;
  tools: number;
  error?: string;
}

/** One tool of a running server, as the model is offered it. */
export interface McpToolEntry {
  /** The namespaced name the model calls (`mcp__server__tool`). */
  name: string;
  server: string;
  /** The tool's own name on its server. */
  tool: string;
  definition: ToolDefinition;
}

export interface McpManagerOptions {
  log: { info(m: string): void; warn(m: string): void; error(m: string): void };
  /** Said in the chat: a server that could not start or stopped unexpectedly. */
  notice(message: string): void;
  /** The tool list changed (a server started, stopped or changed its tools). */
  onDidChangeTools?(): void;
  startTimeoutMs?: number;
  callTimeoutMs?: number;
  clientVersion?: string;
  limits?: McpResultLimits;
  toolLimits?: Partial<McpToolLimits>;
}

/** How many MCP tools the model is offered (each definition costs tokens on every request). */
export interface McpToolLimits {
  /** The first this many tools a server lists; the rest are left out, with a notice. */
  maxToolsPerServer: number;
  /** The first this many tools of all servers together, in configuration order. */
  maxToolsTotal: number;
}

export const DEFAULT_MCP_TOOL_LIMITS: McpToolLimits = { maxToolsPerServer: 128, maxToolsTotal: 256 };

interface Connection {
  config: McpServerConfig;
  status: McpServerStatus;
  client?: Client;
  tools: McpToolEntry[];
  /** The last lines the server wrote to stderr (named in failure reports). */
  stderr: string;
  /** We are closing it: its close is not a crash. */
  closing: boolean;
  error?: string;
  /** The chat was told that this server lists more tools than the agent is offered. */
  toolsCapped?: boolean;
}

const STDERR_TAIL = 2_000;

export class McpManager implements Disposable {
  private connections = new Map<string, Connection>();
  private readonly startTimeoutMs: number;
  private readonly callTimeoutMs: number;
  private readonly toolLimits: McpToolLimits;
  /** How many tools beyond the total cap the chat was last told about (0: none). */
  private toldOverTotal = 0;

  constructor(private readonly options: McpManagerOptions) {
    this.startTimeoutMs = options.startTimeoutMs ?? 30_000;
    this.callTimeoutMs = options.callTimeoutMs ?? 300_000;
    this.toolLimits = { ...DEFAULT_MCP_TOOL_LIMITS, ...options.toolLimits };
  }

  /** Start every server (in parallel); resolves when each is running or has failed. */
  async start(configs: readonly McpServerConfig[]): Promise<void> {
    const slugs = new Map<string, string>();
    const started: Promise<void>[] = [];
    for (const config of configs) {
      const slug = serverSlug(config.name);
      const clash = slugs.get(slug) ?? (this.connections.has(config.name) ? config.name : undefined);
      if (clash !== undefined) {
        this.options.notice(`MCP server "${config.name}" (${config.source.file}) was not started: its name clashes with "${clash}".`);
        continue;
      }
      slugs.set(slug, config.name);
      const conn: Connection = { config, status: 'starting', tools: [], stderr: '', closing: false };
      this.connections.set(config.name, conn);
      started.push(this.connect(conn));
    }
    await Promise.all(started);
  }

  /** Stop every server (children are killed through their transport). */
  async stopAll(): Promise<void> {
    const all = [...this.connections.values()];
    this.connections = new Map();
    await Promise.all(all.map((c) => this.close(c, 'stopped')));
    if (all.some((c) => c.tools.length > 0)) this.changed();
  }

  async restart(configs: readonly McpServerConfig[]): Promise<void> {
    await this.stopAll();
    await this.start(configs);
  }

  states(): McpServerState[] {
    return [...this.connections.values()].map((c) => ({
      name: c.config.name,
      type: c.config.type,
      status: c.status,
      tools: c.tools.length,
      ...(c.error ? { error: c.error } : {}),
    }));
  }

  /** The tools of the running servers, at most `maxToolsTotal` (the first servers' first). */
  tools(): McpToolEntry[] {
    return this.runningTools().slice(0, this.toolLimits.maxToolsTotal);
  }

  private runningTools(): McpToolEntry[] {
    return [...this.connections.values()].filter((c) => c.status === 'running').flatMap((c) => c.tools);
  }

  find(name: string): McpToolEntry | undefined {
    return this.tools().find((t) => t.name === name);
  }

  /** Call a tool by its namespaced name. Never rejects: failures are is_error results. */
  async call(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult> {
    const entry = this.find(name);
    const conn = entry && this.connections.get(entry.server);
    if (!entry || !conn?.client || conn.status !== 'running')
      return { content: `${name} is not available: its MCP server is not running.`, isError: true };
    if (signal.aborted) return { content: CANCELLED_BY_USER, isError: true };
    try {
      const result = await conn.client.callTool({ name: entry.tool, arguments: args }, undefined, {
        signal,
        timeout: this.callTimeoutMs,
        resetTimeoutOnProgress: true,
      });
      return toolResultFromMcp(result as McpCallResult, this.options.limits ?? DEFAULT_MCP_RESULT_LIMITS);
    } catch (e) {
      if (signal.aborted) return { content: CANCELLED_BY_USER, isError: true };
      if (!(e instanceof mcpSdk().McpError) && conn.config.type === 'http' && conn.status === 'running') {
        // The HTTP server cannot be reached: like a crashed process, it leaves until restarted.
        this.failed(conn, `stopped answering (${errorMessage(e)})`);
      }
      return { content: `MCP server "${entry.server}" could not run ${entry.tool}: ${errorMessage(e)}`, isError: true };
    }
  }

  dispose(): void {
    void this.stopAll();
  }

  // -------------------------------------------------------------------------------------------

  private async connect(conn: Connection): Promise<void> {
    const { config } = conn;
    const client = new (mcpSdk().Client)({ name: 'splitpoint', version: this.options.clientVersion ?? '0.1.0' }, { capabilities: {} });
    conn.client = client;
    let transport: Transport;
    try {
      transport = this.transportFor(conn);
    } catch (e) {
      this.failedToStart(conn, errorMessage(e));
      return;
    }
    client.onclose = () => {
      if (!conn.closing && this.connections.get(config.name) === conn && conn.status === 'running')
        this.failed(conn, 'stopped unexpectedly');
    };
    client.onerror = (e) => this.options.log.warn(`MCP server "${config.name}": ${errorMessage(e)}`);
    try {
      await withTimeout(client.connect(transport, { timeout: this.startTimeoutMs }), this.startTimeoutMs, 'did not answer');
      conn.tools = await this.listTools(conn, client);
    } catch (e) {
      if (!conn.closing) this.failedToStart(conn, errorMessage(e));
      return;
    }
    if (conn.closing) return;
    conn.status = 'running';
    this.options.log.info(`MCP server "${config.name}" (${config.type}) started with ${conn.tools.length} tools.`);
    client.setNotificationHandler(mcpSdk().ToolListChangedNotificationSchema, async () => {
      try {
        conn.tools = await this.listTools(conn, client);
        this.changed();
      } catch (e) {
        this.options.log.warn(`MCP server "${config.name}": could not list its tools again: ${errorMessage(e)}`);
      }
    });
    this.changed();
  }

  private transportFor(conn: Connection): Transport {
    const config = conn.config;
    if (config.type === 'http')
      return new (mcpSdk().StreamableHTTPClientTransport)(new URL(config.url), { requestInit: { headers: config.headers } });
    const transport = new (mcpSdk().StdioClientTransport)({
      command: config.command,
      args: config.args,
      env: config.env,
      ...(config.cwd ? { cwd: config.cwd } : {}),
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer | string) => {
      conn.stderr = (conn.stderr + chunk.toString()).slice(-STDERR_TAIL);
    });
    return transport;
  }

  private async listTools(conn: Connection, client: Client): Promise<McpToolEntry[]> {
    const max = this.toolLimits.maxToolsPerServer;
    let tools: Tool[] = [];
    let listed = 0;
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: this.startTimeoutMs });
      listed += page.tools.length;
      // No spread of a page into call arguments: a page can hold any number of tools.
      tools = tools.concat(page.tools.slice(0, max + 1 - tools.length));
      cursor = page.nextCursor;
    } while (cursor && tools.length <= max);
    if (tools.length > max) {
      tools = tools.slice(0, max);
      if (!conn.toolsCapped)
        this.options.notice(
          `MCP server "${conn.config.name}" lists ${cursor ? 'more than ' : ''}${listed.toLocaleString('en-US')} tools; ` +
            `the agent is offered the first ${max} (at most ${max} per server). The others are left out.`,
        );
      conn.toolsCapped = true;
    }
    const taken = new Set([...this.connections.values()].filter((c) => c !== conn).flatMap((c) => c.tools.map((t) => t.name)));
    return tools.map((t) => {
      const name = namespacedToolName(conn.config.name, t.name, taken);
      taken.add(name);
      return { name, server: conn.config.name, tool: t.name, definition: definitionOf(name, conn.config.name, t) };
    });
  }

  private failedToStart(conn: Connection, reason: string): void {
    conn.status = 'failed';
    conn.error = withStderr(reason, conn.stderr);
    this.options.log.error(`MCP server "${conn.config.name}" failed to start: ${conn.error}`);
    this.options.notice(
      `MCP server "${conn.config.name}" (${conn.config.source.file}) failed to start: ${conn.error}. The agent works without its tools.`,
    );
    void this.close(conn, 'failed');
  }

  private failed(conn: Connection, reason: string): void {
    const had = conn.tools.length;
    conn.status = 'failed';
    conn.error = withStderr(reason, conn.stderr);
    conn.tools = [];
    this.options.log.error(`MCP server "${conn.config.name}" ${conn.error}`);
    this.options.notice(
      `MCP server "${conn.config.name}" ${conn.error}. Its ${had} tool${had === 1 ? ' is' : 's are'} no longer offered to the agent; ` +
        'run "Splitpoint: Restart MCP Servers" to start it again.',
    );
    void this.close(conn, 'failed');
    this.changed();
  }

  private async close(conn: Connection, status: McpServerStatus): Promise<void> {
    conn.closing = true;
    if (conn.status !== 'failed') conn.status = status;
    try {
      await conn.client?.close();
    } catch (e) {
      this.options.log.warn(`MCP server "${conn.config.name}": closing failed: ${errorMessage(e)}`);
    }
  }

  private changed(): void {
    this.tellOverTotal();
    try {
      this.options.onDidChangeTools?.();
    } catch (e) {
      this.options.log.error(`MCP tools listener failed: ${errorMessage(e)}`);
    }
  }

  /** Tell the chat (once per new count) when the servers together list more tools than the agent is offered. */
  private tellOverTotal(): void {
    const all = this.runningTools();
    const max = this.toolLimits.maxToolsTotal;
    const over = Math.max(0, all.length - max);
    if (over > 0 && over !== this.toldOverTotal) {
      const losing = [...new Set(all.slice(max).map((t) => t.server))].map((name) => `"${name}"`).join(', ');
      this.options.notice(
        `MCP servers list ${all.length.toLocaleString('en-US')} tools together; the agent is offered the first ${max} ` +
          `(at most ${max} in all). Left out: ${over.toLocaleString('en-US')} tools of ${losing}.`,
      );
    }
    this.toldOverTotal = over;
  }
}

/** A tool's definition for the Messages API: its schema, and a description that names the server. */
function definitionOf(name: string, server: string, t: Tool): ToolDefinition {
  const { $schema: _schema, ...schema } = (t.inputSchema ?? { type: 'object' }) as Record<string, unknown>;
  const description = `${(t.description ?? t.title ?? '').trim() || t.name} (tool "${t.name}" of the MCP server "${server}")`;
  return {
    name,
    description: description.slice(0, 4_000),
    input_schema: { ...schema, type: 'object', properties: (schema.properties as Record<string, unknown> | undefined) ?? {} },
  };
}

function withStderr(reason: string, stderr: string): string {
  // The line that names the error (e.g. Node's "Error: Cannot find module …"), else the last lines.
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const tail = (lines.find((l) => /\berror\b/i.test(l)) ?? lines.slice(-3).join(' | ')).slice(0, 400);
  return tail ? `${reason} (stderr: ${tail})` : reason;
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} within ${Math.round(ms / 1000)} s`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
