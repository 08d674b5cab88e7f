// MCP server configuration, read the standard ways: VS Code's `.vscode/mcp.json`
// (`{"servers": {name: {type, command, args, env, cwd} | {type: "http", url, headers}}}`, JSONC),
// Claude Code's `.mcp.json` (`{"mcpServers": {...}}`) and the user setting `splitpoint.mcp.servers`
// (VS Code's `servers` shape). Variables are substituted (`${workspaceFolder}`, `${userHome}`,
// `${env:NAME}`; in `.mcp.json` also Claude Code's `${NAME}` and `${NAME:-default}`). Every problem
// is an error naming the file, the line and the field; a bad server is skipped, the others are kept.
// Plain Node (no `vscode`): the extension reads the files and the setting and hands them here.
import { homedir } from 'node:os';
import { basename, isAbsolute, resolve, sep } from 'node:path';
import { createScanner, findNodeAtLocation, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';

export type McpConfigFormat = 'vscode' | 'claude' | 'user';

/** Where a server was configured (for messages and the workspace-trust rule). */
export interface McpConfigSource {
  format: McpConfigFormat;
  /** The file (workspace configs) or the setting's name (user). */
  file: string;
  /** True for configuration that comes from the workspace (ignored when it is not trusted). */
  workspace: boolean;
}

interface ServerBase {
  name: string;
  source: McpConfigSource;
  /** Set when substitution read the environment: what the user is shown instead of the values read. */
  environment?: McpEnvironmentUse;
}

/** The environment variables a definition reads (`${env:NAME}`, `${NAME}`), and its strings as written. */
export interface McpEnvironmentUse {
  names: string[];
  asWritten: { command?: string; args?: string[]; cwd?: string; url?: string };
}
export type McpServerConfig =
  | (ServerBase & { type: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd?: string })
  | (ServerBase & { type: 'http'; url: string; headers: Record<string, string> });

export interface McpConfigResult {
  servers: McpServerConfig[];
  /** `file:line: field: what is wrong` for each problem (the server it concerns is skipped). */
  errors: string[];
}

export interface SubstitutionContext {
  workspaceFolder?: string;
  env?: NodeJS.ProcessEnv;
  userHome?: string;
  /** Collects the names of the environment variables substitution reads. */
  read?: Set<string>;
}

/** The largest MCP configuration file read (a real one is a few KB). */
export const MAX_MCP_CONFIG_BYTES = 1024 * 1024;
/** The deepest nesting of objects and arrays accepted (a real configuration needs about 5). */
export const MAX_MCP_CONFIG_DEPTH = 64;

/** `file: too large (…)` when a configuration of `bytes` bytes is not read at all. */
export function mcpConfigTooLarge(file: string, bytes: number): string | undefined {
  if (bytes <= MAX_MCP_CONFIG_BYTES) return undefined;
  return `${file}: too large (${(bytes / (1024 * 1024)).toFixed(1)} MB); an MCP configuration file may be at most ${MAX_MCP_CONFIG_BYTES / (1024 * 1024)} MB`;
}

/**
 * Parse one configuration file's text (`.vscode/mcp.json` is 'vscode', `.mcp.json` is 'claude').
 * Never throws: a text too large or too deeply nested to parse, like any other problem, is an error
 * for that file.
 */
export function parseMcpConfigText(text: string, source: McpConfigSource, vars: SubstitutionContext = {}): McpConfigResult {
  const refused = mcpConfigTooLarge(source.file, Buffer.byteLength(text, 'utf8')) ?? tooDeep(text, source.file);
  if (refused) return { servers: [], errors: [refused] };
  try {
    return parseCheckedText(text, source, vars);
  } catch (e) {
    return { servers: [], errors: [`${source.file}: cannot be read (${e instanceof Error ? e.message : String(e)})`] };
  }
}

/** `file:line: nested deeper than …` for the first place nested too deep (a flat scan: no recursion). */
function tooDeep(text: string, file: string): string | undefined {
  // Tokens, not characters, so brackets inside strings and comments do not count. A token's first
  // character tells its kind here (jsonc-parser's SyntaxKind is a const enum, not importable).
  const scanner = createScanner(text, false);
  let depth = 0;
  for (scanner.scan(); scanner.getTokenOffset() < text.length; scanner.scan()) {
    const first = text[scanner.getTokenOffset()];
    if (first === '{' || first === '[') {
      if (++depth > MAX_MCP_CONFIG_DEPTH)
        return `${file}:${scanner.getTokenStartLine() + 1}: nested deeper than ${MAX_MCP_CONFIG_DEPTH} levels; not read`;
    } else if (first === '}' || first === ']') depth = Math.max(0, depth - 1);
  }
  return undefined;
}

function parseCheckedText(text: string, source: McpConfigSource, vars: SubstitutionContext): McpConfigResult {
  const parseErrors: ParseError[] = [];
  const tree = parseTree(text, parseErrors, { allowTrailingComma: true, disallowComments: false });
  const at = (offset: number) => `${source.file}:${lineOf(text, offset)}`;
  if (parseErrors.length > 0 || !tree) {
    const e = parseErrors[0];
    return { servers: [], errors: [e ? `${at(e.offset)}: invalid JSON: ${printParseErrorCode(e.error)}` : `${source.file}:1: empty file`] };
  }
  if (tree.type !== 'object') return { servers: [], errors: [`${at(tree.offset)}: expected an object`] };
  const key = source.format === 'claude' ? 'mcpServers' : 'servers';
  const servers = findNodeAtLocation(tree, [key]);
  if (!servers) return { servers: [], errors: [] };
  if (servers.type !== 'object') return { servers: [], errors: [`${at(servers.offset)}: ${key}: expected an object of servers`] };
  return serversFrom(servers, key, source, vars, at);
}

/** The user setting's value (an object of servers in VS Code's shape). */
export function parseMcpServersSetting(value: unknown, source: McpConfigSource, vars: SubstitutionContext = {}): McpConfigResult {
  if (value === undefined || value === null) return { servers: [], errors: [] };
  let text: string;
  try {
    text = JSON.stringify({ servers: value }, null, 1);
  } catch (e) {
    return { servers: [], errors: [`${source.file}: not JSON (${String(e)})`] };
  }
  const r = parseMcpConfigText(text, { ...source, format: 'vscode' }, vars);
  // A line number in a setting's re-serialised value means nothing to the user: name the setting and field.
  return { servers: r.servers.map((s) => ({ ...s, source })), errors: r.errors.map((e) => e.replace(/^([^:]+):\d+: /, '$1: ')) };
}

function serversFrom(
  servers: Node,
  key: string,
  source: McpConfigSource,
  vars: SubstitutionContext,
  at: (offset: number) => string,
): McpConfigResult {
  const out: McpServerConfig[] = [];
  const errors: string[] = [];
  for (const prop of servers.children ?? []) {
    const [nameNode, valueNode] = prop.children ?? [];
    if (!nameNode || !valueNode) continue;
    const name = String(nameNode.value);
    const field = (f: string) => `${key}.${name}${f ? `.${f}` : ''}`;
    const fail = (node: Node, f: string, what: string) => errors.push(`${at(node.offset)}: ${field(f)}: ${what}`);
    if (valueNode.type !== 'object') {
      fail(valueNode, '', 'expected an object');
      continue;
    }
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name)) {
      fail(nameNode, '', 'a server name may use letters, digits, "_", "-" and "." (at most 64)');
      continue;
    }
    const server = serverFrom(valueNode, name, source, vars, (f, what) => fail(findNodeAtLocation(valueNode, [f]) ?? valueNode, f, what));
    if (server) out.push(server);
  }
  return { servers: out, errors };
}

type Fail = (field: string, what: string) => void;

function serverFrom(node: Node, name: string, source: McpConfigSource, vars: SubstitutionContext, fail: Fail): McpServerConfig | null {
  const get = (f: string): unknown => {
    const n = findNodeAtLocation(node, [f]);
    return n ? nodeValue(n) : undefined;
  };
  const read = new Set<string>();
  const sub = (f: string, v: string): string | null => substitute(v, source, { ...vars, read }, (what) => fail(f, what));
  const environment = (asWritten: McpEnvironmentUse['asWritten']) =>
    read.size > 0 ? { environment: { names: [...read], asWritten } } : {};
  const no = (f: string, what: string): null => {
    fail(f, what);
    return null;
  };
  const declared = get('type');
  const type = declared ?? (get('url') !== undefined ? 'http' : 'stdio');
  if (type === 'sse') return no('type', 'the SSE transport is not supported (use "stdio" or "http": streamable HTTP)');
  if (type === 'stdio') {
    const command = get('command');
    if (typeof command !== 'string' || command.trim() === '') return no('command', 'a stdio server needs a "command" string');
    const args = stringList(get('args'), 'args', fail);
    const env = stringMap(get('env'), 'env', fail);
    const cwd = get('cwd');
    if (cwd !== undefined && typeof cwd !== 'string') return no('cwd', 'expected a string');
    if (!args || !env) return null;
    const c = sub('command', command);
    const a = args.map((x) => sub('args', x));
    const e = Object.entries(env).map(([k, v]) => [k, sub(`env`, v)] as const);
    const w = cwd === undefined ? undefined : sub('cwd', cwd);
    if (c === null || a.includes(null) || e.some(([, v]) => v === null) || w === null) return null;
    const dir = w === undefined ? vars.workspaceFolder : isAbsolute(w) || !vars.workspaceFolder ? w : resolve(vars.workspaceFolder, w);
    return {
      name,
      source,
      type: 'stdio',
      command: c,
      args: a as string[],
      env: Object.fromEntries(e) as Record<string, string>,
      ...(dir ? { cwd: dir } : {}),
      ...environment({ command, args, ...(cwd === undefined ? {} : { cwd }) }),
    };
  }
  if (type === 'http' || type === 'streamable-http' || type === 'streamableHttp') {
    const url = get('url');
    if (typeof url !== 'string') return no('url', 'an http server needs a "url" string');
    const headers = stringMap(get('headers'), 'headers', fail);
    if (!headers) return null;
    const u = sub('url', url);
    const h = Object.entries(headers).map(([k, v]) => [k, sub('headers', v)] as const);
    if (u === null || h.some(([, v]) => v === null)) return null;
    let parsed: URL;
    try {
      parsed = new URL(u);
    } catch {
      return no('url', `not a URL: ${JSON.stringify(u)}`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return no('url', 'expected an http: or https: URL');
    const headersOut = Object.fromEntries(h) as Record<string, string>;
    return { name, source, type: 'http', url: parsed.toString(), headers: headersOut, ...environment({ url }) };
  }
  fail('type', `unknown transport ${JSON.stringify(type)} (expected "stdio" or "http")`);
  return null;
}

function stringList(v: unknown, field: string, fail: Fail): string[] | null {
  if (v === undefined) return [];
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v;
  fail(field, 'expected a list of strings');
  return null;
}

function stringMap(v: unknown, field: string, fail: Fail): Record<string, string> | null {
  if (v === undefined) return {};
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
    const entries = Object.entries(v);
    if (entries.every(([, x]) => typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean'))
      return Object.fromEntries(entries.map(([k, x]) => [k, String(x)]));
  }
  fail(field, 'expected an object of strings');
  return null;
}

/** `${…}` variables of a value; null (after `fail`) when one cannot be resolved. */
export function substitute(value: string, source: McpConfigSource, vars: SubstitutionContext, fail: (what: string) => void): string | null {
  const env = vars.env ?? process.env;
  let bad: string | undefined;
  const out = value.replace(/\$\{([^}]*)\}/g, (whole, inner: string) => {
    const v = resolveVariable(inner, source.format, vars, env);
    if (v === undefined) bad ??= whole;
    return v ?? whole;
  });
  if (bad === undefined) return out;
  fail(
    `cannot resolve ${bad}${bad.startsWith('${input:') ? ' (input variables are not supported: put the value in env or the setting)' : ''}`,
  );
  return null;
}

function resolveVariable(inner: string, format: McpConfigFormat, vars: SubstitutionContext, env: NodeJS.ProcessEnv): string | undefined {
  if (inner === 'workspaceFolder' || inner === 'workspaceRoot') return vars.workspaceFolder;
  if (inner === 'workspaceFolderBasename') return vars.workspaceFolder ? basename(vars.workspaceFolder) : undefined;
  if (inner === 'userHome') return vars.userHome ?? homedir();
  if (inner === 'pathSeparator' || inner === '/') return sep;
  if (inner.startsWith('env:')) {
    vars.read?.add(inner.slice(4));
    return env[inner.slice(4)] ?? '';
  }
  if (format === 'claude') {
    // Claude Code: ${VAR} and ${VAR:-default}.
    const m = /^([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s.exec(inner);
    if (m) vars.read?.add(m[1]!);
    if (m) return env[m[1]!] ?? m[2];
  }
  return undefined;
}

function nodeValue(n: Node): unknown {
  if (n.type === 'object')
    return Object.fromEntries((n.children ?? []).map((p) => [String(p.children?.[0]?.value), nodeValue(p.children![1]!)]));
  if (n.type === 'array') return (n.children ?? []).map(nodeValue);
  return n.value;
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}
