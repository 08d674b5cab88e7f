// The parts of @modelcontextprotocol/sdk the MCP manager uses, as one module: esbuild builds it into
// dist/vendor/mcp-sdk.js (with zod and ajv), which src/agent/loop/sdks.ts requires on first use.
export { Client } from '@modelcontextprotocol/sdk/client/index.js';
export { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
export { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
export { McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
