// The agent's tools with MCP: the workspace tools, then the tools of the running MCP servers (read
// at every request, so a server that stopped is no longer offered). Every MCP call asks for
// approval unless the user allow-listed it (`server/tool` or `server/*` in splitpoint.mcp.autoApprove);
// "Always allow" on the approval card adds `server/tool` there.
import { CANCELLED_BY_USER, type ToolCall, type ToolCallContext, type ToolDefinition, type ToolExecutor, type ToolResult } from '../tools';
import type { McpToolEntry } from './manager';

/** What the tool set needs of the MCP side (the McpManager, and the user's allow-list). */
export interface McpToolHost {
  tools(): McpToolEntry[];
  call(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult>;
  /** The allow-list: `server/tool` or `server/*`. */
  autoApprove(): readonly string[];
  /** The user chose "Always allow" for this tool. */
  allowAlways(server: string, tool: string): void;
  /** Resolves once servers that are starting have started or failed (bounded); never rejects. */
  whenReady?(signal: AbortSignal): Promise<void>;
}

export function isAutoApproved(list: readonly string[], server: string, tool: string): boolean {
  return list.some((e) => e === `${server}/${tool}` || e === `${server}/*`);
}

export class ToolsWithMcp implements ToolExecutor {
  constructor(
    private readonly base: ToolExecutor,
    private readonly mcp: McpToolHost,
  ) {}

  get readOnly(): boolean {
    return this.base.readOnly;
  }

  async ready(signal: AbortSignal): Promise<void> {
    await this.base.ready?.(signal);
    await this.mcp.whenReady?.(signal);
  }

  definitions(): ToolDefinition[] {
    const own = this.base.definitions();
    const names = new Set(own.map((d) => d.name));
    return [...own, ...this.mcp.tools().flatMap((t) => (names.has(t.name) ? [] : [t.definition]))];
  }

  async execute(call: ToolCall, ctx: ToolCallContext): Promise<ToolResult> {
    const entry = this.mcp.tools().find((t) => t.name === call.name);
    if (!entry) return this.base.execute(call, ctx);
    if (ctx.signal.aborted) return { content: CANCELLED_BY_USER, isError: true };
    const input = call.input;
    if (typeof input !== 'object' || input === null || Array.isArray(input))
      return { content: `${call.name}: input must be an object`, isError: true };
    if (!isAutoApproved(this.mcp.autoApprove(), entry.server, entry.tool)) {
      const decision = await ctx.requestApproval({
        tool: call.name,
        title: `Call ${entry.tool} on the MCP server ${entry.server}`,
        mcp: { server: entry.server, tool: entry.tool },
      });
      if (!decision.approved) {
        if (decision.reason === CANCELLED_BY_USER) return { content: CANCELLED_BY_USER, isError: true };
        const why = decision.reason ? `: ${decision.reason}` : '.';
        return { content: `The user rejected calling ${entry.tool} on the MCP server ${entry.server}${why}`, isError: true };
      }
      if (decision.alwaysAllow) this.mcp.allowAlways(entry.server, entry.tool);
    }
    return this.mcp.call(call.name, input as Record<string, unknown>, ctx.signal);
  }
}
