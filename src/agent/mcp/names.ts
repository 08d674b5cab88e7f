// The names MCP tools go by in the Messages API: `mcp__<server>__<tool>`, within the API's tool-name
// rule (^[a-zA-Z0-9_-]{1,64}$). The server part never holds "__", so the server a call (or a recorded
// tool_result) belongs to can be read back from the name alone: the chat card and the inspector do.
import { createHash } from 'node:crypto';
import { MCP_TOOL_PREFIX, parseMcpToolName } from '../../core';

export { parseMcpToolName };

export const MCP_PREFIX = MCP_TOOL_PREFIX;
const MAX_NAME = 64;
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** A server name as it appears in tool names: API-safe characters, no "__", at most 24 characters. */
export function serverSlug(server: string): string {
  const s = server
    .replace(/[^a-zA-Z0-9-]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_|_$/g, '');
  return (s || 'server').slice(0, 24).replace(/_$/, '') || 'server';
}

/**
 * The namespaced name of `tool` on `server`; `taken` holds names already given (a clash, or a name
 * cut to fit 64 characters, gets a short hash of the original so it stays unique and stable).
 */
export function namespacedToolName(server: string, tool: string, taken: ReadonlySet<string> = new Set()): string {
  const head = `${MCP_PREFIX}${serverSlug(server)}__`;
  const clean = tool.replace(/[^a-zA-Z0-9_-]/g, '_') || 'tool';
  let name = head + clean;
  if (name.length > MAX_NAME || taken.has(name) || clean !== tool) {
    const hash = createHash('sha256').update(`${server}\u0000${tool}`).digest('hex').slice(0, 6);
    name = `${head}${clean.slice(0, MAX_NAME - head.length - 7)}_${hash}`;
  }
  return name;
}

export function isValidToolName(name: string): boolean {
  return TOOL_NAME.test(name);
}
