// Which MCP servers may start: the user's own (splitpoint.mcp.servers) always; a server defined by the
// workspace (.vscode/mcp.json, .mcp.json: a cloned repository can write them) only once the user
// approved that exact definition (command, args, env, cwd, url, headers after substitution, and the
// file it comes from: its hash). Answers are remembered per workspace (the extension passes VS Code's
// workspaceState) and asked again when the definition changes. "Always allow" on a workspace server's
// tool is remembered with the same hash, so it never outlives the definition it was given for, and
// the user's allow-list (splitpoint.mcp.autoApprove) applies only to the user's own servers.
import { createHash } from 'node:crypto';
import type { McpServerConfig } from './config';

/** Where answers are kept: VS Code's Memento shape (workspaceState), or a Map-backed one in tests. */
export interface McpApprovalMemory {
  get(key: string): unknown;
  update(key: string, value: unknown): PromiseLike<void> | void;
}

/** What the user is shown: the definition as written (values read from the environment are not shown). */
export interface McpServerApprovalRequest {
  name: string;
  /** The configuration file that defines it. */
  file: string;
  type: 'stdio' | 'http';
  /** stdio: the command and its arguments; http: the URL. */
  command?: string;
  args?: string[];
  cwd?: string;
  url?: string;
  /** The names of the environment variables it is given (stdio `env`), without their values. */
  envKeys: string[];
  /** The names of the headers sent (http), without their values. */
  headerKeys: string[];
  /** The variables of your environment that substitution reads into the definition (`${env:NAME}`, `${NAME}`). */
  environmentRead: string[];
}

/** 'allow' / 'deny' are remembered; undefined (the dialog closed) is not: asked again at the next reload. */
export type McpApprovalAnswer = 'allow' | 'deny' | undefined;

interface Decision {
  server: string;
  decision: 'allow' | 'deny';
  /** Tools the user chose "Always allow" for (this definition only). */
  tools?: string[];
}

/** workspaceState key: definition hash -> Decision. */
export const MCP_APPROVALS_KEY = 'splitpoint.mcp.workspaceServerApprovals';
/** Decisions kept per workspace (the oldest go first): definitions change with branches and pulls. */
const MAX_DECISIONS = 200;

/** A hash of everything that decides what runs and what it is given (after substitution). */
export function mcpDefinitionHash(s: McpServerConfig): string {
  const sorted = (m: Record<string, string>) => Object.entries(m).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const what =
    s.type === 'stdio'
      ? [s.source.format, s.source.file, s.name, 'stdio', s.command, s.args, sorted(s.env), s.cwd ?? null]
      : [s.source.format, s.source.file, s.name, 'http', s.url, sorted(s.headers)];
  return createHash('sha256').update(JSON.stringify(what)).digest('hex');
}

/** The approval dialog's content for a server (never a value read from the environment, env or headers). */
export function approvalRequestFor(s: McpServerConfig): McpServerApprovalRequest {
  const written = s.environment?.asWritten ?? {};
  const base = { name: s.name, file: s.source.file, environmentRead: [...(s.environment?.names ?? [])] };
  if (s.type === 'http') return { ...base, type: 'http', url: written.url ?? s.url, envKeys: [], headerKeys: Object.keys(s.headers) };
  return {
    ...base,
    type: 'stdio',
    command: written.command ?? s.command,
    args: written.args ?? s.args,
    ...((written.cwd ?? s.cwd) !== undefined ? { cwd: written.cwd ?? s.cwd } : {}),
    envKeys: Object.keys(s.env),
    headerKeys: [],
  };
}

export class McpWorkspaceApprovals {
  constructor(private readonly memory: McpApprovalMemory | undefined) {}

  /** The remembered answer for this exact definition, if any. */
  decision(s: McpServerConfig): 'allow' | 'deny' | undefined {
    return this.all()[mcpDefinitionHash(s)]?.decision;
  }

  async remember(s: McpServerConfig, decision: 'allow' | 'deny'): Promise<void> {
    const hash = mcpDefinitionHash(s);
    const all = this.all();
    delete all[hash];
    all[hash] = { server: s.name, decision };
    await this.save(all);
  }

  /** The tools of this exact definition the user chose "Always allow" for. */
  allowedTools(s: McpServerConfig): readonly string[] {
    const d = this.all()[mcpDefinitionHash(s)];
    return d?.decision === 'allow' ? (d.tools ?? []) : [];
  }

  async allowTool(s: McpServerConfig, tool: string): Promise<void> {
    const hash = mcpDefinitionHash(s);
    const all = this.all();
    const d = all[hash];
    if (d?.decision !== 'allow') return; // only a definition that was approved to start
    all[hash] = { ...d, tools: [...new Set([...(d.tools ?? []), tool])] };
    await this.save(all);
  }

  private all(): Record<string, Decision> {
    const v = this.memory?.get(MCP_APPROVALS_KEY);
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return {};
    const out: Record<string, Decision> = {};
    for (const [hash, d] of Object.entries(v as Record<string, unknown>)) {
      const r = d as Partial<Decision> | null;
      if (!r || typeof r.server !== 'string' || (r.decision !== 'allow' && r.decision !== 'deny')) continue;
      const tools = Array.isArray(r.tools) ? r.tools.filter((t): t is string => typeof t === 'string') : undefined;
      out[hash] = { server: r.server, decision: r.decision, ...(tools ? { tools } : {}) };
    }
    return out;
  }

  private async save(all: Record<string, Decision>): Promise<void> {
    if (!this.memory) return;
    const entries = Object.entries(all);
    await this.memory.update(MCP_APPROVALS_KEY, Object.fromEntries(entries.slice(Math.max(0, entries.length - MAX_DECISIONS))));
  }
}
