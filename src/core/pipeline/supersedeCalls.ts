// What a tool call does to the workspace, as far as superseding old results goes (supersede.ts):
// it reads a file (whole, or a line range), writes files, or runs something whose output a re-run
// with the same input replaces. Covers Splitpoint's own tools, Claude Code's and Codex's as the
// importers represent them (Codex shell commands are parsed for the usual read commands — cat,
// sed -n, nl | sed, head — and for apply_patch). Anything else has no effect: it never supersedes
// and is never superseded.

/** A 1-based inclusive line range; end Infinity = to the end of the file. null = the whole file. */
export type LineRange = { start: number; end: number } | null;

export type CallEffect =
  | { kind: 'read'; path: string; range: LineRange }
  /** `relative`: a patch's relative paths as written (Codex), for when the working folder guessed is not theirs. */
  | { kind: 'write'; paths: string[]; relative?: string[] }
  | { kind: 'run'; key: string; label: string };

type Input = Record<string, unknown>;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
const int = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined);

/** A path made comparable: relative ones resolved against `cwd` when known; `.`/`..` and repeated slashes collapsed. */
export function normalPath(path: string, cwd?: string): string {
  const p = path.trim();
  const joined = p.startsWith('/') || !cwd ? p : `${cwd.replace(/\/+$/, '')}/${p}`;
  const out: string[] = [];
  for (const seg of joined.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..' && out.length > 0 && out[out.length - 1] !== '..') out.pop();
    else out.push(seg);
  }
  return `${joined.startsWith('/') ? '/' : ''}${out.join('/')}`;
}

/** Keys sorted, so two equal inputs give one string whatever their key order. */
function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (v !== null && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson((v as Input)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

/** Search and list tools: the same input again gives the current answer. */
const LOOKUP_TOOLS = new Set(['search', 'list_files', 'Grep', 'Glob', 'LS', 'grep_files', 'list_dir']);
const EDIT_TOOLS = new Set(['edit_file', 'write_file', 'Edit', 'MultiEdit', 'Write', 'NotebookEdit']);
const SHELL_TOOLS = new Set(['exec_command', 'shell', 'local_shell', 'container.exec']);

function readRange(start: number | undefined, end: number | undefined): LineRange {
  if (start === undefined && end === undefined) return null;
  return { start: start ?? 1, end: end ?? Infinity };
}

/**
 * The effect of a call `name(input)`; `cwd` is the working folder the session last named (Codex's
 * apply_patch carries none). null: no effect this module knows.
 */
export function callEffect(name: string, input: unknown, cwd?: string): CallEffect | null {
  const a: Input = input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as Input) : {};
  if (name === 'read_file' && str(a.path))
    return { kind: 'read', path: normalPath(str(a.path)!), range: readRange(int(a.start_line), int(a.end_line)) };
  if ((name === 'Read' || name === 'NotebookRead') && str(a.file_path ?? a.notebook_path)) {
    const offset = int(a.offset);
    const limit = int(a.limit);
    const range =
      offset === undefined && limit === undefined
        ? null
        : { start: offset ?? 1, end: limit === undefined ? Infinity : (offset ?? 1) + limit - 1 };
    return { kind: 'read', path: normalPath(str(a.file_path ?? a.notebook_path)!), range };
  }
  if (EDIT_TOOLS.has(name)) {
    const p = str(a.path ?? a.file_path ?? a.notebook_path);
    return p ? { kind: 'write', paths: [normalPath(p)] } : null;
  }
  if (name === 'apply_patch') {
    const text = str(a.input ?? a.patch ?? a.raw);
    return text ? patchEffect(text, cwd) : null;
  }
  if (name === 'run_command' && str(a.command)) {
    const command = a.command as string;
    return { kind: 'run', key: `run_command\u0000${str(a.cwd) ?? ''}\u0000${command.trim()}`, label: command };
  }
  if (name === 'Bash' && str(a.command)) {
    const command = a.command as string;
    return { kind: 'run', key: `Bash\u0000${command.trim()}`, label: command };
  }
  if (LOOKUP_TOOLS.has(name)) return { kind: 'run', key: `${name}\u0000${stableJson(a)}`, label: `${name} ${lookupLabel(a)}`.trim() };
  if (SHELL_TOOLS.has(name)) {
    const script = shellScript(a);
    const dir = str(a.workdir ?? a.working_directory ?? a.cwd) ?? cwd;
    return script ? shellEffect(script, dir) : null;
  }
  return null;
}

function lookupLabel(a: Input): string {
  const main = str(a.pattern ?? a.query ?? a.path ?? a.dir_path);
  return main ?? '';
}

/** The working folder a call names (Codex shell calls), for later calls that name none. */
export function callWorkdir(name: string, input: unknown): string | undefined {
  if (!SHELL_TOOLS.has(name) || input === null || typeof input !== 'object') return undefined;
  const a = input as Input;
  return str(a.workdir ?? a.working_directory ?? a.cwd);
}

/** A Codex shell call's script: `cmd`, or `command` (a string, or argv with `bash -lc SCRIPT` unwrapped). */
function shellScript(a: Input): string | undefined {
  if (str(a.cmd)) return (a.cmd as string).trim();
  const c = a.command;
  if (typeof c === 'string') return str(c)?.trim();
  if (!Array.isArray(c) || !c.every((x) => typeof x === 'string')) return undefined;
  const argv = c as string[];
  if (argv.length === 3 && /(^|\/)(ba|z)?sh$/.test(argv[0]) && /^-l?c$/.test(argv[1])) return argv[2].trim();
  return argv.join(' ').trim() || undefined;
}

/** The paths a patch in apply_patch's format adds, updates, deletes or moves to (null: none). */
function patchEffect(text: string, cwd: string | undefined): CallEffect | null {
  const written = new Set<string>();
  for (const m of text.matchAll(/^\*\*\* (?:Update|Add|Delete) File: (.+)$|^\*\*\* Move to: (.+)$/gm))
    written.add(normalPath(m[1] ?? m[2]));
  if (written.size === 0) return null;
  const relative = [...written].filter((p) => !p.startsWith('/'));
  const paths = [...written].map((p) => normalPath(p, cwd));
  return { kind: 'write', paths, ...(relative.length === written.size && cwd ? { relative } : {}) };
}

/** Words of a simple command line: quotes removed; null when it holds anything but words and `|`. */
function words(script: string): string[] | null {
  const out: string[] = [];
  const re = /\s*(?:'([^']*)'|"([^"$`\\]*)"|(\|)|([^\s'"|;&<>$`\\()]+))/y;
  let i = 0;
  while (i < script.length) {
    if (/^\s*$/.test(script.slice(i))) break;
    re.lastIndex = i;
    const m = re.exec(script);
    if (!m) return null;
    out.push(m[1] ?? m[2] ?? m[3] ?? m[4]);
    i = re.lastIndex;
  }
  return out;
}

function sedRange(expr: string): LineRange | undefined {
  const m = /^(\d+)(?:,(\d+|\$))?p$/.exec(expr);
  if (!m) return undefined;
  const start = Number(m[1]);
  const end = m[2] === undefined ? start : m[2] === '$' ? Infinity : Number(m[2]);
  return start >= 1 && end >= start ? { start, end } : undefined;
}

/** The read a simple command does: `cat [-n] F`, `sed -n 'A,Bp' F`, `nl -ba F | sed -n 'A,Bp'`, `head -n N F`. */
function shellRead(w: string[]): { path: string; range: LineRange } | undefined {
  if (w.length === 2 && w[0] === 'cat') return { path: w[1], range: null };
  if (w.length === 3 && w[0] === 'cat' && w[1] === '-n') return { path: w[2], range: null };
  if (w.length === 4 && w[0] === 'sed' && w[1] === '-n') {
    const range = sedRange(w[2]);
    return range ? { path: w[3], range } : undefined;
  }
  if (w.length === 7 && w[0] === 'nl' && w[1] === '-ba' && w[3] === '|' && w[4] === 'sed' && w[5] === '-n') {
    const range = sedRange(w[6]);
    return range ? { path: w[2], range } : undefined;
  }
  if (w.length === 3 && w[0] === 'nl' && w[1] === '-ba') return { path: w[2], range: null };
  const head =
    w[0] === 'head' ? (w.length === 4 && w[1] === '-n' ? w[2] : w.length === 3 ? /^-(\d+)$/.exec(w[1])?.[1] : undefined) : undefined;
  if (head !== undefined && /^\d+$/.test(head) && Number(head) >= 1)
    return { path: w[w.length - 1], range: { start: 1, end: Number(head) } };
  return undefined;
}

function shellEffect(script: string, cwd: string | undefined): CallEffect {
  const patch = /^apply_patch\b/.test(script) ? patchEffect(script, cwd) : null;
  if (patch) return patch;
  const w = words(script);
  const read = w ? shellRead(w) : undefined;
  if (read && !read.path.startsWith('-')) return { kind: 'read', path: normalPath(read.path, cwd), range: read.range };
  return { kind: 'run', key: `shell\u0000${cwd ?? ''}\u0000${script}`, label: script };
}
