// MCP tools: configuration (config.ts), namespaced tool names (names.ts), results as tool_result
// content (results.ts), the servers of a window (manager.ts) and the tool set that adds their tools
// to the workspace tools, each call behind approval unless allow-listed (mcpTools.ts); which workspace
// servers the user approved to start (approval.ts).
export * from './config';
export * from './names';
export * from './results';
export * from './manager';
export * from './mcpTools';
export * from './load';
export * from './service';
export * from './approval';
