// Which MCP servers a window starts: the workspace's `.vscode/mcp.json` and `.mcp.json` (only when
// the workspace is trusted) and the user's `splitpoint.mcp.servers`. The first definition of a name
// wins (the user's, then .vscode/mcp.json, then .mcp.json: a clash is reported, never silent);
// problems are messages for the chat, naming file, line and field.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { errorMessage } from '../../core';
import {
  mcpConfigTooLarge,
  parseMcpConfigText,
  parseMcpServersSetting,
  type McpConfigSource,
  type McpServerConfig,
  type SubstitutionContext,
} from './config';

export const WORKSPACE_MCP_FILES = [
  { path: join('.vscode', 'mcp.json'), format: 'vscode' },
  { path: '.mcp.json', format: 'claude' },
] as const;

export const USER_MCP_SETTING = 'splitpoint.mcp.servers';

export interface McpLoadInput {
  workspaceRoot: string | undefined;
  trusted: boolean;
  /** The user's splitpoint.mcp.servers value. */
  userServers: unknown;
  env?: NodeJS.ProcessEnv;
  userHome?: string;
}

export interface McpLoadResult {
  servers: McpServerConfig[];
  /** Problems to report (file:line: field: what). */
  errors: string[];
  /** Workspace configuration files that were present but ignored because the workspace is not trusted. */
  ignoredUntrusted: string[];
}

export function loadMcpConfig(input: McpLoadInput): McpLoadResult {
  const vars: SubstitutionContext = { workspaceFolder: input.workspaceRoot, env: input.env, userHome: input.userHome };
  const servers: McpServerConfig[] = [];
  const errors: string[] = [];
  const ignoredUntrusted: string[] = [];
  const add = (list: McpServerConfig[]) => {
    for (const s of list) {
      const first = servers.find((x) => x.name === s.name);
      if (first) errors.push(`${s.source.file}: the MCP server "${s.name}" is also defined in ${first.source.file}; that one is used.`);
      else servers.push(s);
    }
  };
  // The user's own servers first: a workspace server of the same name never shadows one of them.
  const user = parseMcpServersSetting(input.userServers, { format: 'user', file: USER_MCP_SETTING, workspace: false }, vars);
  errors.push(...user.errors);
  add(user.servers);
  if (input.workspaceRoot) {
    for (const f of WORKSPACE_MCP_FILES) {
      const file = join(input.workspaceRoot, f.path);
      if (!existsSync(file)) continue;
      if (!input.trusted) {
        ignoredUntrusted.push(file);
        continue;
      }
      let text: string;
      try {
        // A huge file is refused before it is read (parsing it could take the window's memory).
        const tooLarge = mcpConfigTooLarge(file, statSync(file).size);
        if (tooLarge) {
          errors.push(tooLarge);
          continue;
        }
        text = readFileSync(file, 'utf8');
      } catch (e) {
        errors.push(`${file}: cannot be read (${errorMessage(e)})`);
        continue;
      }
      const source: McpConfigSource = { format: f.format, file, workspace: true };
      const r = parseMcpConfigText(text, source, vars);
      errors.push(...r.errors);
      add(r.servers);
    }
  }
  return { servers, errors, ignoredUntrusted };
}
