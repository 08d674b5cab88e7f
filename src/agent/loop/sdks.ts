// The Anthropic and MCP SDKs are most of the extension's bundle (about 1.2 MB, and 0.6 MB with zod and
// ajv, of 2.7 MB): they are required on first use (the first request, model list or MCP server), never
// at activation, where evaluating them was most of the time the host was blocked (npm run bench,
// section 7). esbuild.mjs maps these requires to dist/vendor/*.js; under tsx (tests) they resolve to the
// packages and to ./mcp/sdkExports.ts. A static value import of either SDK would load it eagerly again.
import type AnthropicClient from '@anthropic-ai/sdk';
import type * as McpSdk from '../mcp/sdkExports';

let anthropic: typeof AnthropicClient | undefined;
let mcp: typeof McpSdk | undefined;

/** The Anthropic client class (its error classes are its static members). */
export function anthropicSdk(): typeof AnthropicClient {
  return (anthropic ??= (require('@anthropic-ai/sdk') as { default: typeof AnthropicClient }).default);
}

/** Client, transports and the types the MCP manager needs at run time. */
export function mcpSdk(): typeof McpSdk {
  return (mcp ??= require('../mcp/sdkExports') as typeof McpSdk);
}
