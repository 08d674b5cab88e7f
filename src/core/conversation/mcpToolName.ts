// The names MCP tools go by in requests: `mcp__<server>__<tool>` (the agent's src/agent/mcp/names.ts
// gives them; the server part never holds "__"). Reading one back tells which MCP server a tool call
// or a tool result belongs to, also in a recorded session whose servers are long gone.

export const MCP_TOOL_PREFIX = 'mcp__';

/** The server (as named in tool names) and tool part of an MCP tool name, or undefined for any other tool. */
export function parseMcpToolName(name: string): { server: string; tool: string } | undefined {
  if (!name.startsWith(MCP_TOOL_PREFIX)) return undefined;
  const rest = name.slice(MCP_TOOL_PREFIX.length);
  const i = rest.indexOf('__');
  if (i <= 0 || i + 2 >= rest.length) return undefined;
  return { server: rest.slice(0, i), tool: rest.slice(i + 2) };
}
