// The agent's workspace tools: JSON-schema definitions for the Messages API `tools` parameter and an
// executor. Every path is confined to the workspace (lexically and through symlinks); edits, writes
// and commands are shown to the user (a diff, or the command line) and run only when approved.
// A tool never throws at the agent: every failure is a ToolResult with isError, which the model sees.
// No `vscode` import: this runs in plain Node.
import { spawn, type ChildProcess } from 'node:child_process';
import { constants as fsConstants, lstatSync, realpathSync } from 'node:fs';
import { chmod, mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { randomBytes } from 'node:crypto';
import { unifiedDiff } from './diff';

// ---------------------------------------------------------------------------------------------
// Public types

/** A tool definition in the Messages API's `tools` shape (structurally an `Anthropic.Tool`). */
export interface ToolDefinition {
  name: string;
  description: string;
  input_schema: { type: 'object'; properties: Record<string, unknown>; required?: string[]; additionalProperties?: boolean };
}

/** What the user is asked to approve. */
export interface ApprovalRequest {
  toolUseId: string;
  tool: string;
  /** One line for the prompt, e.g. "Edit src/a.ts" or "Run `npm test`". */
  title: string;
  /** edit_file / write_file: the change as a unified diff. */
  diff?: { path: string; unified: string; isNewFile: boolean };
  /** run_command: the command line. */
  command?: string;
}

export interface ApprovalDecision {
  approved: boolean;
  /** Why it was rejected (told to the model). */
  reason?: string;
}

/** The host's approval UI. Must resolve (as rejected) when `signal` aborts; the agent also enforces that. */
export interface ApprovalGate {
  request(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision>;
}

export interface ToolCall {
  id: string;
  name: string;
  input: unknown;
}

export interface ToolResult {
  /** The text the model sees as the tool_result content. */
  content: string;
  isError: boolean;
}

/** What the agent hands a tool for one call. */
export interface ToolCallContext {
  toolUseId: string;
  /** Aborts when the user stops the run: commands are killed, approvals resolve as rejected. */
  signal: AbortSignal;
  /** Ask the user (the agent wraps its ApprovalGate: events, and rejection on abort). */
  requestApproval(req: Omit<ApprovalRequest, 'toolUseId'>): Promise<ApprovalDecision>;
  /** The compact tool: ask the pipeline to compact after this batch of tool calls. */
  requestCompaction?(focus: string | undefined): void;
  /** Live output of a running command (stdout and stderr as they arrive). */
  onOutput?(chunk: string): void;
}

/** What the agent needs from a tool set. */
export interface ToolExecutor {
  /** True when only read-only tools are offered and executable. */
  readonly readOnly: boolean;
  definitions(): ToolDefinition[];
  /** Never rejects: failures come back as { isError: true }. */
  execute(call: ToolCall, ctx: ToolCallContext): Promise<ToolResult>;
}

export interface ToolLimits {
  /** read_file: most bytes of numbered output returned. */
  maxReadOutputBytes: number;
  /** read_file: larger files are refused (use a line range after searching). */
  maxReadFileBytes: number;
  /** list_files: default and ceiling of max_entries. */
  defaultListEntries: number;
  maxListEntries: number;
  /** search: default and ceiling of max_results; files larger than maxSearchFileBytes are skipped. */
  defaultSearchResults: number;
  maxSearchResults: number;
  maxSearchFileBytes: number;
  /** search: stop after scanning this many files (with a note). */
  maxSearchFiles: number;
  /** run_command: the last this-many bytes of output are kept. */
  maxCommandOutputBytes: number;
  defaultCommandTimeoutMs: number;
  maxCommandTimeoutMs: number;
  /** run_command: after SIGTERM, wait this long before SIGKILL. */
  killGraceMs: number;
}

export const DEFAULT_TOOL_LIMITS: ToolLimits = {
  maxReadOutputBytes: 100 * 1024,
  maxReadFileBytes: 10 * 1024 * 1024,
  defaultListEntries: 500,
  maxListEntries: 5_000,
  defaultSearchResults: 100,
  maxSearchResults: 1_000,
  maxSearchFileBytes: 1024 * 1024,
  maxSearchFiles: 20_000,
  maxCommandOutputBytes: 30 * 1024,
  defaultCommandTimeoutMs: 120_000,
  maxCommandTimeoutMs: 600_000,
  killGraceMs: 2_000,
};

export interface WorkspaceToolsOptions {
  /** The workspace folder; every path is confined to it. */
  root: string;
  /** Untrusted workspace: only read_file, list_files, search and compact. */
  readOnly?: boolean;
  limits?: Partial<ToolLimits>;
  /** Shell for run_command (default: /bin/sh on POSIX, cmd.exe on Windows, as Node's `shell: true`). */
  shell?: string;
  /** Environment for commands (default process.env plus pager-free settings). */
  env?: NodeJS.ProcessEnv;
}

export const READ_ONLY_TOOLS = ['read_file', 'list_files', 'search', 'compact'] as const;
export const MUTATING_TOOLS = ['edit_file', 'write_file', 'run_command'] as const;
export const CANCELLED_BY_USER = 'Cancelled by the user.';

/** A tool failed in a way the model should hear about (becomes an is_error tool_result). */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolError';
  }
}

// ---------------------------------------------------------------------------------------------
// Definitions

const DEFINITIONS: Record<string, ToolDefinition> = {
  read_file: {
    name: 'read_file',
    description:
      'Read a text file in the workspace. Output lines are prefixed with their 1-based line number and a tab. ' +
      'Use start_line/end_line (1-based, inclusive) to read part of a large file. Output is capped at about 100 KB; binary files are refused.',
    input_schema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File path, relative to the workspace root (or absolute inside it).' },
        start_line: { type: 'integer', minimum: 1, description: 'First line to read (1-based, inclusive). Default 1.' },
        end_line: { type: 'integer', minimum: 1, description: 'Last line to read (1-based, inclusive). Default: end of file.' },
      },
      required: ['path'],
    },
  },
  list_files: {
    name: 'list_files',
    description:
      'List files and folders (folders end with "/"). Skips .git and node_modules. Paths are relative to the workspace root.',
    input_schema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'Folder to list, relative to the workspace root. Default: the root.' },
        recursive: { type: 'boolean', description: 'List subfolders too. Default false.' },
        max_entries: { type: 'integer', minimum: 1, description: 'Most entries to return. Default 500.' },
      },
    },
  },
  search: {
    name: 'search',
    description:
      'Search the text of workspace files (skips .git, node_modules, binary and very large files). ' +
      'Returns matching lines as "path:line: text". Plain-text query by default; set regex for a JavaScript regular expression.',
    input_schema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Text (or regular expression, with regex: true) to find.' },
        path: { type: 'string', description: 'File or folder to search in, relative to the workspace root. Default: the root.' },
        regex: { type: 'boolean', description: 'Treat query as a JavaScript regular expression. Default false.' },
        case_sensitive: { type: 'boolean', description: 'Match case exactly. Default false.' },
        max_results: { type: 'integer', minimum: 1, description: 'Most matching lines to return. Default 100.' },
      },
      required: ['query'],
    },
  },
  edit_file: {
    name: 'edit_file',
    description:
      'Replace text in an existing file. old_string must match the file exactly (including whitespace and indentation) ' +
      'and occur exactly once, unless replace_all is true. Include enough surrounding lines to make it unique. ' +
      'The user reviews the diff and must approve it before the file changes.',
    input_schema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File to edit, relative to the workspace root.' },
        old_string: { type: 'string', description: 'The exact text to replace.' },
        new_string: { type: 'string', description: 'The replacement text.' },
        replace_all: { type: 'boolean', description: 'Replace every occurrence. Default false.' },
      },
      required: ['path', 'old_string', 'new_string'],
    },
  },
  write_file: {
    name: 'write_file',
    description:
      'Create a file, or replace the whole content of an existing one (prefer edit_file for changes to existing files). ' +
      'Missing parent folders are created. The user reviews the diff and must approve it.',
    input_schema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File to write, relative to the workspace root.' },
        content: { type: 'string', description: 'The complete new content of the file.' },
      },
      required: ['path', 'content'],
    },
  },
  run_command: {
    name: 'run_command',
    description:
      'Run a shell command in the workspace (non-interactive: stdin is closed). The user must approve it first. ' +
      'Returns the exit code and the combined stdout/stderr (the last 30 KB if longer). Killed after timeout_ms (default 120000).',
    input_schema: {
      type: 'object',
      properties: {
        command: { type: 'string', description: 'The command line, run through the shell.' },
        cwd: { type: 'string', description: 'Working folder, relative to the workspace root. Default: the root.' },
        timeout_ms: { type: 'integer', minimum: 1, description: 'Kill the command after this many milliseconds. Default 120000, at most 600000.' },
      },
      required: ['command'],
    },
  },
  compact: {
    name: 'compact',
    description:
      'Compact the conversation history to free context: older messages are summarized or dropped (a transcript keeps them). ' +
      'Use it when the context is filling up with material you no longer need, ideally at a natural breakpoint. ' +
      'It runs after the current batch of tool calls. Give a focus to say what the summary must preserve.',
    input_schema: {
      type: 'object',
      properties: {
        focus: { type: 'string', description: 'What the compacted history must keep (e.g. "the failing test names and the fix plan").' },
      },
    },
  },
};

// ---------------------------------------------------------------------------------------------
// Path confinement

export interface ResolvedPath {
  /** Where the path points after following symlinks (what is read or written). */
  real: string;
  /** Relative to the workspace root, with '/' separators ('.' for the root). */
  rel: string;
  /** Whether something exists at the path. */
  exists: boolean;
}

/**
 * Resolve a tool's path inside the workspace, or throw a ToolError. Relative paths resolve against
 * the root; backslashes count as separators on every platform (so `..\x` is an escape everywhere);
 * absolute paths, `..` segments and symlinks (the path itself or any parent) must all stay inside
 * the root, checked with realpath of the nearest existing ancestor. NUL bytes are refused.
 */
export function resolveWorkspacePath(root: string, input: unknown, what = 'path'): ResolvedPath {
  if (typeof input !== 'string') throw new ToolError(`${what} must be a string`);
  if (input.includes('\0')) throw new ToolError(`${what} contains a NUL byte: ${JSON.stringify(input)}`);
  if (input.trim() === '') throw new ToolError(`${what} is empty`);
  const rootAbs = resolve(root);
  let rootReal: string;
  try {
    rootReal = realpathSync(rootAbs);
  } catch (e) {
    throw new ToolError(`the workspace folder is not accessible: ${(e as Error).message}`);
  }
  const normalized = input.replace(/\\/g, '/');
  const abs = isAbsolute(normalized) ? resolve(normalized) : resolve(rootAbs, normalized);
  if (!isInside(rootAbs, abs) && !isInside(rootReal, abs)) throw escapes(input);

  // The nearest existing ancestor (possibly the path itself), followed through symlinks.
  let existing = abs;
  const missing: string[] = [];
  for (;;) {
    try {
      lstatSync(existing);
      break;
    } catch {
      const parent = dirname(existing);
      if (parent === existing) throw new ToolError(`${what} cannot be resolved: ${input}`);
      missing.unshift(basename(existing));
      existing = parent;
    }
  }
  let existingReal: string;
  try {
    existingReal = realpathSync(existing);
  } catch {
    // lstat found it but realpath cannot follow it: a dangling (or looping) symlink.
    throw new ToolError(`${what} is a symbolic link whose target does not exist: ${input}`);
  }
  const real = missing.length > 0 ? join(existingReal, ...missing) : existingReal;
  if (!isInside(rootReal, real)) throw escapes(input, real);
  const rel = relative(rootReal, real).split(sep).join('/') || '.';
  return { real, rel, exists: missing.length === 0 };
}

function escapes(input: string, real?: string): ToolError {
  return new ToolError(`path escapes the workspace: ${input}${real && real !== input ? ` (resolves to ${real})` : ''}`);
}

function isInside(root: string, p: string): boolean {
  const r = relative(root, p);
  return r === '' || (r !== '..' && !r.startsWith('..' + sep) && !isAbsolute(r));
}

// ---------------------------------------------------------------------------------------------
// The executor

const SKIP_DIRS = new Set(['.git', 'node_modules']);

export class WorkspaceTools implements ToolExecutor {
  readonly root: string;
  readonly readOnly: boolean;
  readonly limits: ToolLimits;

  constructor(private readonly options: WorkspaceToolsOptions) {
    this.root = resolve(options.root);
    this.readOnly = options.readOnly ?? false;
    this.limits = { ...DEFAULT_TOOL_LIMITS, ...options.limits };
  }

  definitions(): ToolDefinition[] {
    const names = this.readOnly ? [...READ_ONLY_TOOLS] : ['read_file', 'list_files', 'search', 'edit_file', 'write_file', 'run_command', 'compact'];
    return names.map((n) => DEFINITIONS[n]);
  }

  /** Resolve a path the way every tool does (throws ToolError). */
  resolvePath(input: unknown, what = 'path'): ResolvedPath {
    return resolveWorkspacePath(this.root, input, what);
  }

  async execute(call: ToolCall, ctx: ToolCallContext): Promise<ToolResult> {
    if (ctx.signal.aborted) return { content: CANCELLED_BY_USER, isError: true };
    if (!(call.name in DEFINITIONS)) return { content: `Unknown tool: ${call.name}. Available tools: ${this.definitions().map((d) => d.name).join(', ')}.`, isError: true };
    if (this.readOnly && (MUTATING_TOOLS as readonly string[]).includes(call.name)) {
      return {
        content: `${call.name} is not available: this workspace is not trusted, so the agent is in read-only mode (available: ${READ_ONLY_TOOLS.join(', ')}).`,
        isError: true,
      };
    }
    const input = call.input;
    if (typeof input !== 'object' || input === null || Array.isArray(input)) return { content: `${call.name}: input must be an object`, isError: true };
    const args = input as Record<string, unknown>;
    try {
      switch (call.name) {
        case 'read_file':
          return ok(await this.readFile(args));
        case 'list_files':
          return ok(await this.listFiles(args));
        case 'search':
          return ok(await this.search(args, ctx.signal));
        case 'edit_file':
          return await this.editFile(args, ctx);
        case 'write_file':
          return await this.writeFile(args, ctx);
        case 'run_command':
          return await this.runCommand(args, ctx);
        case 'compact':
          return this.compact(args, ctx);
        default:
          return { content: `Unknown tool: ${call.name}`, isError: true };
      }
    } catch (e) {
      if (e instanceof ToolError) return { content: `${call.name}: ${e.message}`, isError: true };
      if (ctx.signal.aborted) return { content: CANCELLED_BY_USER, isError: true };
      const err = e as NodeJS.ErrnoException;
      return { content: `${call.name} failed: ${describeFsError(err)}`, isError: true };
    }
  }

  // -- read_file ------------------------------------------------------------------------------

  private async readFile(args: Record<string, unknown>): Promise<string> {
    const target = this.resolvePath(args.path);
    const start = optionalInt(args, 'start_line', 1);
    const end = optionalInt(args, 'end_line', 1);
    if (start !== undefined && end !== undefined && end < start) throw new ToolError(`end_line (${end}) is before start_line (${start})`);
    if (!target.exists) throw new ToolError(`no such file: ${target.rel}`);
    const info = await stat(target.real);
    if (info.isDirectory()) throw new ToolError(`${target.rel} is a folder; use list_files to see what it contains`);
    if (!info.isFile()) throw new ToolError(`${target.rel} is not a regular file`);
    if (info.size > this.limits.maxReadFileBytes) {
      throw new ToolError(`${target.rel} is too large to read (${formatBytes(info.size)}, limit ${formatBytes(this.limits.maxReadFileBytes)}); use search to find the part you need`);
    }
    const buf = await readFile(target.real);
    if (looksBinary(buf)) throw new ToolError(`${target.rel} looks like a binary file (${formatBytes(buf.length)}); only text files can be read`);
    const text = buf.toString('utf8');
    if (text.length === 0) return `(${target.rel} is empty)`;
    const lines = text.split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    const total = lines.length;
    const from = start ?? 1;
    const to = Math.min(end ?? total, total);
    if (from > total) throw new ToolError(`start_line ${from} is past the end of ${target.rel} (${total} lines)`);
    const width = String(to).length;
    const out: string[] = [];
    let bytes = 0;
    let last = from - 1;
    for (let i = from; i <= to; i++) {
      const line = `${String(i).padStart(width)}\t${lines[i - 1].replace(/\r$/, '')}`;
      const size = Buffer.byteLength(line) + 1;
      if (bytes + size > this.limits.maxReadOutputBytes && out.length > 0) break;
      out.push(line);
      bytes += size;
      last = i;
    }
    let result = out.join('\n');
    if (last < to) {
      result += `\n[Output truncated at ${formatBytes(this.limits.maxReadOutputBytes)}: showing lines ${from}-${last} of ${total}. Read more with start_line: ${last + 1}.]`;
    } else if (from > 1 || to < total) {
      result += `\n[Lines ${from}-${to} of ${total}.]`;
    }
    return result;
  }

  // -- list_files -----------------------------------------------------------------------------

  private async listFiles(args: Record<string, unknown>): Promise<string> {
    const target = this.resolvePath(args.path === undefined ? '.' : args.path);
    const recursive = optionalBool(args, 'recursive') ?? false;
    const max = Math.min(optionalInt(args, 'max_entries', 1) ?? this.limits.defaultListEntries, this.limits.maxListEntries);
    if (!target.exists) throw new ToolError(`no such folder: ${target.rel}`);
    const info = await stat(target.real);
    if (!info.isDirectory()) throw new ToolError(`${target.rel} is not a folder`);
    const entries: string[] = [];
    let truncated = false;
    const prefix = target.rel === '.' ? '' : `${target.rel}/`;
    const walk = async (dir: string, relDir: string): Promise<void> => {
      let names;
      try {
        names = await readdir(dir, { withFileTypes: true });
      } catch (e) {
        entries.push(`${relDir}[unreadable: ${describeFsError(e as NodeJS.ErrnoException)}]`);
        return;
      }
      names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const d of names) {
        if (truncated) return;
        if (SKIP_DIRS.has(d.name)) continue;
        if (entries.length >= max) {
          truncated = true;
          return;
        }
        const rel = `${relDir}${d.name}`;
        if (d.isSymbolicLink()) {
          entries.push(`${rel}@`);
        } else if (d.isDirectory()) {
          entries.push(`${rel}/`);
          if (recursive) await walk(join(dir, d.name), `${rel}/`);
        } else {
          entries.push(rel);
        }
      }
    };
    await walk(target.real, prefix);
    if (entries.length === 0) return `(${target.rel} is empty)`;
    let out = capLines(entries, this.limits.maxReadOutputBytes, 'entries').join('\n');
    if (truncated) out += `\n[Listing truncated at ${max} entries; list a subfolder or raise max_entries (at most ${this.limits.maxListEntries}).]`;
    if (entries.some((e) => e.endsWith('@'))) out += '\n[Entries ending in @ are symbolic links (not followed).]';
    return out;
  }

  // -- search ---------------------------------------------------------------------------------

  private async search(args: Record<string, unknown>, signal: AbortSignal): Promise<string> {
    const query = requireString(args, 'query');
    if (query === '') throw new ToolError('query is empty');
    const useRegex = optionalBool(args, 'regex') ?? false;
    const caseSensitive = optionalBool(args, 'case_sensitive') ?? false;
    const max = Math.min(optionalInt(args, 'max_results', 1) ?? this.limits.defaultSearchResults, this.limits.maxSearchResults);
    const target = this.resolvePath(args.path === undefined ? '.' : args.path);
    if (!target.exists) throw new ToolError(`no such file or folder: ${target.rel}`);
    let matcher: (line: string) => boolean;
    if (useRegex) {
      let re: RegExp;
      try {
        re = new RegExp(query, caseSensitive ? '' : 'i');
      } catch (e) {
        throw new ToolError(`invalid regular expression: ${(e as Error).message}`);
      }
      matcher = (line) => re.test(line);
    } else if (caseSensitive) {
      matcher = (line) => line.includes(query);
    } else {
      const q = query.toLowerCase();
      matcher = (line) => line.toLowerCase().includes(q);
    }

    const results: string[] = [];
    let scanned = 0;
    let skippedLarge = 0;
    let stoppedAt: 'results' | 'files' | null = null;
    const searchFile = async (file: string, rel: string): Promise<void> => {
      scanned++;
      const info = await stat(file).catch(() => null);
      if (!info || !info.isFile()) return;
      if (info.size > this.limits.maxSearchFileBytes) {
        skippedLarge++;
        return;
      }
      const buf = await readFile(file).catch(() => null);
      if (!buf || looksBinary(buf)) return;
      const lines = buf.toString('utf8').split('\n');
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i].replace(/\r$/, '');
        if (!matcher(line)) continue;
        if (results.length >= max) {
          stoppedAt = 'results';
          return;
        }
        const shown = line.length > 300 ? `${line.slice(0, 300)}…` : line;
        results.push(`${rel}:${i + 1}: ${shown}`);
      }
    };
    const walk = async (dir: string, relDir: string): Promise<void> => {
      let names;
      try {
        names = await readdir(dir, { withFileTypes: true });
      } catch {
        return;
      }
      names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const d of names) {
        if (stoppedAt) return;
        if (signal.aborted) throw new ToolError(CANCELLED_BY_USER);
        if (SKIP_DIRS.has(d.name) || d.isSymbolicLink()) continue;
        const full = join(dir, d.name);
        const rel = `${relDir}${d.name}`;
        if (d.isDirectory()) await walk(full, `${rel}/`);
        else if (d.isFile()) {
          if (scanned >= this.limits.maxSearchFiles) {
            stoppedAt = 'files';
            return;
          }
          await searchFile(full, rel);
        }
      }
    };
    const info = await stat(target.real);
    if (info.isDirectory()) await walk(target.real, target.rel === '.' ? '' : `${target.rel}/`);
    else await searchFile(target.real, target.rel);

    const notes: string[] = [];
    if (stoppedAt === 'results') notes.push(`[Stopped at ${max} results; narrow the query or path, or raise max_results (at most ${this.limits.maxSearchResults}).]`);
    if (stoppedAt === 'files') notes.push(`[Stopped after scanning ${this.limits.maxSearchFiles} files; search a subfolder.]`);
    if (skippedLarge > 0) notes.push(`[Skipped ${skippedLarge} file${skippedLarge === 1 ? '' : 's'} larger than ${formatBytes(this.limits.maxSearchFileBytes)}.]`);
    if (results.length === 0) return [`No matches for ${JSON.stringify(query)} in ${target.rel} (${scanned} file${scanned === 1 ? '' : 's'} searched).`, ...notes].join('\n');
    return [...capLines(results, this.limits.maxReadOutputBytes, 'results'), ...notes].join('\n');
  }

  // -- edit_file / write_file -----------------------------------------------------------------

  private async editFile(args: Record<string, unknown>, ctx: ToolCallContext): Promise<ToolResult> {
    const target = this.resolvePath(args.path);
    let oldString = requireString(args, 'old_string');
    let newString = requireString(args, 'new_string');
    const replaceAll = optionalBool(args, 'replace_all') ?? false;
    if (oldString === '') throw new ToolError('old_string is empty; use write_file to create a file or replace its whole content');
    if (oldString === newString) throw new ToolError('old_string and new_string are identical; nothing would change');
    const original = await this.readTextForChange(target);
    if (original === null) throw new ToolError(`no such file: ${target.rel} (use write_file to create it)`);

    let count = countOccurrences(original, oldString);
    // Files with CRLF line endings: let the model's LF-only strings match them.
    if (count === 0 && original.includes('\r\n') && oldString.includes('\n') && !oldString.includes('\r\n')) {
      const crlfOld = oldString.replace(/\n/g, '\r\n');
      const crlfCount = countOccurrences(original, crlfOld);
      if (crlfCount > 0) {
        oldString = crlfOld;
        newString = newString.replace(/\r?\n/g, '\r\n');
        count = crlfCount;
      }
    }
    if (count === 0) throw new ToolError(`old_string was not found in ${target.rel}. It must match the file exactly, including whitespace and indentation; read the file again to copy the exact text.`);
    if (count > 1 && !replaceAll) {
      throw new ToolError(`old_string occurs ${count} times in ${target.rel}; include more surrounding lines to make it unique, or set replace_all to replace every occurrence`);
    }
    const updated = replaceAll ? original.split(oldString).join(newString) : original.replace(oldString, () => newString);
    const outcome = await this.applyWithApproval(ctx, 'edit_file', target, original, updated, `Edit ${target.rel}${replaceAll && count > 1 ? ` (${count} replacements)` : ''}`);
    if (outcome.isError) return outcome;
    return { content: `Edited ${target.rel}: ${count} replacement${count === 1 ? '' : 's'}.`, isError: false };
  }

  private async writeFile(args: Record<string, unknown>, ctx: ToolCallContext): Promise<ToolResult> {
    const target = this.resolvePath(args.path);
    const content = requireString(args, 'content');
    if (target.rel === '.') throw new ToolError('path is the workspace folder itself');
    const original = await this.readTextForChange(target);
    if (original === content) return { content: `${target.rel} already has exactly this content; nothing was written.`, isError: false };
    const title = original === null ? `Create ${target.rel}` : `Overwrite ${target.rel}`;
    const outcome = await this.applyWithApproval(ctx, 'write_file', target, original, content, title);
    if (outcome.isError) return outcome;
    const lines = content === '' ? 0 : content.split('\n').length - (content.endsWith('\n') ? 1 : 0);
    return { content: `${original === null ? 'Created' : 'Wrote'} ${target.rel} (${lines} line${lines === 1 ? '' : 's'}, ${formatBytes(Buffer.byteLength(content))}).`, isError: false };
  }

  /** The current text of a file about to change, or null when it does not exist. */
  private async readTextForChange(target: ResolvedPath): Promise<string | null> {
    if (!target.exists) return null;
    const info = await stat(target.real);
    if (info.isDirectory()) throw new ToolError(`${target.rel} is a folder`);
    if (!info.isFile()) throw new ToolError(`${target.rel} is not a regular file`);
    if (info.size > this.limits.maxReadFileBytes) throw new ToolError(`${target.rel} is too large to edit (${formatBytes(info.size)})`);
    const buf = await readFile(target.real);
    if (looksBinary(buf)) throw new ToolError(`${target.rel} looks like a binary file; only text files can be edited`);
    return buf.toString('utf8');
  }

  private async applyWithApproval(
    ctx: ToolCallContext,
    tool: string,
    target: ResolvedPath,
    original: string | null,
    updated: string,
    title: string,
  ): Promise<ToolResult> {
    const isNewFile = original === null;
    const unified = unifiedDiff(original ?? '', updated, { oldPath: isNewFile ? '/dev/null' : `a/${target.rel}`, newPath: `b/${target.rel}` });
    const decision = await ctx.requestApproval({ tool, title, diff: { path: target.rel, unified, isNewFile } });
    if (ctx.signal.aborted) return { content: CANCELLED_BY_USER, isError: true };
    if (!decision.approved) {
      return { content: `The user rejected this change to ${target.rel}${decision.reason ? `: ${decision.reason}` : '.'} The file was not changed.`, isError: true };
    }
    // The file must still be what the diff was computed from.
    const now = await this.readTextForChange(this.resolvePath(target.rel));
    if (now !== original) {
      throw new ToolError(`${target.rel} changed on disk while waiting for approval; nothing was written. Read it again and redo the change.`);
    }
    await writeFileAtomically(target.real, updated);
    return { content: 'ok', isError: false };
  }

  // -- run_command ----------------------------------------------------------------------------

  private async runCommand(args: Record<string, unknown>, ctx: ToolCallContext): Promise<ToolResult> {
    const command = requireString(args, 'command');
    if (command.trim() === '') throw new ToolError('command is empty');
    if (command.includes('\0')) throw new ToolError('command contains a NUL byte');
    const cwd = this.resolvePath(args.cwd === undefined ? '.' : args.cwd, 'cwd');
    if (!cwd.exists) throw new ToolError(`no such folder: ${cwd.rel}`);
    if (!(await stat(cwd.real)).isDirectory()) throw new ToolError(`cwd ${cwd.rel} is not a folder`);
    const requested = optionalInt(args, 'timeout_ms', 1);
    const timeoutMs = Math.min(requested ?? this.limits.defaultCommandTimeoutMs, this.limits.maxCommandTimeoutMs);

    const where = cwd.rel === '.' ? '' : ` in ${cwd.rel}`;
    const decision = await ctx.requestApproval({ tool: 'run_command', title: `Run \`${oneLine(command)}\`${where}`, command });
    if (ctx.signal.aborted) return { content: CANCELLED_BY_USER, isError: true };
    if (!decision.approved) return { content: `The user rejected running this command${decision.reason ? `: ${decision.reason}` : '.'}`, isError: true };

    const run = await runShellCommand(command, {
      cwd: cwd.real,
      timeoutMs,
      signal: ctx.signal,
      maxOutputBytes: this.limits.maxCommandOutputBytes,
      killGraceMs: this.limits.killGraceMs,
      shell: this.options.shell,
      env: this.options.env ?? { ...process.env, PAGER: 'cat', GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0' },
      onOutput: ctx.onOutput,
    });
    const parts: string[] = [];
    if (run.droppedBytes > 0) parts.push(`[${formatBytes(run.droppedBytes)} of earlier output dropped; showing the last ${formatBytes(run.keptBytes)}]`);
    parts.push(run.output.length > 0 ? run.output.replace(/\n$/, '') : '(no output)');
    if (run.cancelled) parts.push(`[${CANCELLED_BY_USER} The command was stopped.]`);
    else if (run.timedOut) parts.push(`[Timed out after ${timeoutMs} ms; the command was killed.]`);
    else if (run.exitCode !== null) parts.push(`[Exit code ${run.exitCode}]`);
    else parts.push(`[Terminated by signal ${run.signal ?? 'unknown'}]`);
    if (run.lingering) parts.push('[Background processes kept the output open; output after the command exited was not captured.]');
    if (run.spawnError) parts.push(`[Could not start the command: ${run.spawnError}]`);
    return { content: parts.join('\n'), isError: run.cancelled || run.timedOut || run.exitCode !== 0 };
  }

  // -- compact --------------------------------------------------------------------------------

  private compact(args: Record<string, unknown>, ctx: ToolCallContext): ToolResult {
    const focus = args.focus;
    if (focus !== undefined && typeof focus !== 'string') throw new ToolError('focus must be a string');
    if (!ctx.requestCompaction) return { content: 'Compaction is not available in this session.', isError: true };
    ctx.requestCompaction(focus && focus.trim() !== '' ? focus : undefined);
    return { content: 'Compaction requested; it will run after this batch of tool calls.', isError: false };
  }
}

// ---------------------------------------------------------------------------------------------
// Running commands

export interface CommandRun {
  /** Combined stdout/stderr in arrival order (the kept tail). */
  output: string;
  keptBytes: number;
  droppedBytes: number;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  cancelled: boolean;
  /** The shell exited but something it started still held the output pipes. */
  lingering: boolean;
  spawnError?: string;
}

export interface RunShellOptions {
  cwd: string;
  timeoutMs: number;
  signal?: AbortSignal;
  maxOutputBytes: number;
  killGraceMs?: number;
  shell?: string;
  env?: NodeJS.ProcessEnv;
  onOutput?: (chunk: string) => void;
}

/**
 * Run `command` through the shell in its own process group; capture interleaved output keeping the
 * last `maxOutputBytes`; kill the whole tree on timeout or abort (SIGTERM, then SIGKILL).
 */
export function runShellCommand(command: string, o: RunShellOptions): Promise<CommandRun> {
  return new Promise((resolvePromise) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let dropped = 0;
    let timedOut = false;
    let cancelled = false;
    let settled = false;
    let child: ChildProcess;
    const windows = process.platform === 'win32';
    try {
      child = spawn(command, [], {
        cwd: o.cwd,
        shell: o.shell ?? true,
        env: o.env,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: !windows,
        windowsHide: true,
      });
    } catch (e) {
      resolvePromise({ output: '', keptBytes: 0, droppedBytes: 0, exitCode: null, signal: null, timedOut: false, cancelled: false, lingering: false, spawnError: (e as Error).message });
      return;
    }

    const push = (data: Buffer) => {
      chunks.push(data);
      kept += data.length;
      while (kept - chunks[0].length >= o.maxOutputBytes) {
        kept -= chunks[0].length;
        dropped += chunks.shift()!.length;
      }
      if (kept > o.maxOutputBytes) {
        const excess = kept - o.maxOutputBytes;
        chunks[0] = chunks[0].subarray(excess);
        kept -= excess;
        dropped += excess;
      }
      o.onOutput?.(data.toString('utf8'));
    };
    child.stdout?.on('data', push);
    child.stderr?.on('data', push);

    let killTimer: NodeJS.Timeout | undefined;
    const killTree = () => {
      const pid = child.pid;
      if (pid === undefined) return;
      if (windows) {
        spawn('taskkill', ['/pid', String(pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true }).on('error', () => {});
        return;
      }
      signalGroup(pid, 'SIGTERM');
      killTimer = setTimeout(() => signalGroup(pid, 'SIGKILL'), o.killGraceMs ?? 2_000);
      killTimer.unref();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killTree();
    }, o.timeoutMs);
    const onAbort = () => {
      cancelled = true;
      killTree();
    };
    if (o.signal?.aborted) onAbort();
    else o.signal?.addEventListener('abort', onAbort, { once: true });

    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    let lingerTimer: NodeJS.Timeout | undefined;
    const finish = (lingering: boolean, spawnError?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(lingerTimer);
      if (killTimer && !lingering) clearTimeout(killTimer);
      o.signal?.removeEventListener('abort', onAbort);
      if (lingering) {
        child.stdout?.destroy();
        child.stderr?.destroy();
      }
      let output = Buffer.concat(chunks).toString('utf8');
      // A cut in the middle of a UTF-8 sequence decodes as replacement characters: drop them.
      if (dropped > 0) output = output.replace(/^\uFFFD+/, '');
      resolvePromise({ output, keptBytes: kept, droppedBytes: dropped, exitCode, signal: exitSignal, timedOut, cancelled, lingering, spawnError });
    };
    child.on('error', (e) => finish(false, e.message));
    child.on('exit', (code, sig) => {
      exitCode = code;
      exitSignal = sig;
      // Wait briefly for the pipes to drain; background children may hold them open forever.
      lingerTimer = setTimeout(() => finish(true), 300);
    });
    child.on('close', () => finish(false));
  });
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // Already gone.
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers

/** Write through a temp file in the same folder and rename over the target (keeps the file's mode). */
export async function writeFileAtomically(path: string, text: string): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  let mode: number | undefined;
  try {
    mode = (await stat(path)).mode & 0o7777;
  } catch {
    mode = undefined;
  }
  const tmp = join(dir, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const fh = await open(tmp, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL, mode ?? 0o666);
    try {
      await fh.writeFile(text, 'utf8');
      await fh.sync();
    } finally {
      await fh.close();
    }
    if (mode !== undefined) await chmod(tmp, mode);
    await rename(tmp, path);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}

/** A NUL byte in the first 8 KB means binary (as git and grep decide). */
export function looksBinary(buf: Buffer): boolean {
  const n = Math.min(buf.length, 8192);
  for (let i = 0; i < n; i++) if (buf[i] === 0) return true;
  return false;
}

function countOccurrences(haystack: string, needle: string): number {
  let count = 0;
  let at = haystack.indexOf(needle);
  while (at !== -1) {
    count++;
    at = haystack.indexOf(needle, at + needle.length);
  }
  return count;
}

/** Keep whole lines up to `maxBytes`, then say how many were left out. */
function capLines(lines: string[], maxBytes: number, what: string): string[] {
  let bytes = 0;
  for (let i = 0; i < lines.length; i++) {
    bytes += Buffer.byteLength(lines[i]) + 1;
    if (bytes > maxBytes && i > 0) return [...lines.slice(0, i), `[Output capped at ${formatBytes(maxBytes)}: ${lines.length - i} more ${what} not shown.]`];
  }
  return lines;
}

function ok(content: string): ToolResult {
  return { content, isError: false };
}

function requireString(args: Record<string, unknown>, name: string): string {
  const v = args[name];
  if (typeof v !== 'string') throw new ToolError(`${name} is required and must be a string`);
  return v;
}

function optionalBool(args: Record<string, unknown>, name: string): boolean | undefined {
  const v = args[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw new ToolError(`${name} must be true or false`);
  return v;
}

function optionalInt(args: Record<string, unknown>, name: string, min: number): number | undefined {
  const v = args[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new ToolError(`${name} must be an integer`);
  if (v < min) throw new ToolError(`${name} must be at least ${min}`);
  return v;
}

function oneLine(s: string): string {
  const line = s.replace(/\s*\n\s*/g, ' ⏎ ');
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(n < 10 * 1024 ? 1 : 0)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

function describeFsError(e: NodeJS.ErrnoException): string {
  switch (e.code) {
    case 'ENOENT':
      return 'no such file or folder';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a folder';
    case 'ENOTDIR':
      return 'a parent of the path is not a folder';
    default:
      return e.message;
  }
}
