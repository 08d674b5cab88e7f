// search: matching lines across workspace text files, as "path:line: text". Ripgrep does the work
// in a child process (linear-time regex, .gitignore respected, killed on Stop or after a timeout).
import { optionalBool, optionalInt, requireString } from './args';
import { decodeUtf8 } from './files';
import { capLines, formatBytes } from './format';
import { findRipgrep, runRipgrep, type RipgrepEvent } from './ripgrep';
import { ok, type ToolEnvironment, type WorkspaceTool } from './tool';
import { CANCELLED_BY_USER, ToolError } from './types';

export const searchTool: WorkspaceTool = {
  readOnly: true,
  definition: {
    name: 'search',
    description:
      'Search the text of workspace files with ripgrep (respects .gitignore; skips .git, node_modules, binary and very large files). ' +
      'Returns matching lines as "path:line: text". Plain-text query by default; set regex for a regular expression ' +
      '(Rust regex syntax, as ripgrep: no lookaround or backreferences).',
    input_schema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Text (or regular expression, with regex: true) to find.' },
        path: { type: 'string', description: 'File or folder to search in, relative to the workspace root. Default: the root.' },
        regex: { type: 'boolean', description: 'Treat query as a regular expression (ripgrep syntax). Default false.' },
        case_sensitive: { type: 'boolean', description: 'Match case exactly. Default false.' },
        max_results: { type: 'integer', minimum: 1, description: 'Most matching lines to return. Default 100.' },
      },
      required: ['query'],
    },
  },
  async run(args, env) {
    return ok(await searchWorkspace(args, env));
  },
};

async function searchWorkspace(args: Record<string, unknown>, env: ToolEnvironment): Promise<string> {
  const query = requireString(args, 'query');
  if (query === '') throw new ToolError('query is empty');
  const useRegex = optionalBool(args, 'regex') ?? false;
  const caseSensitive = optionalBool(args, 'case_sensitive') ?? false;
  const max = Math.min(optionalInt(args, 'max_results', 1) ?? env.limits.defaultSearchResults, env.limits.maxSearchResults);
  const target = env.resolvePath(args.path === undefined ? '.' : args.path);
  if (!target.exists) throw new ToolError(`no such file or folder: ${target.rel}`);
  const rgPath = env.ripgrepPath ?? findRipgrep();
  if (!rgPath) {
    throw new ToolError(
      'ripgrep (rg) was not found: search needs it (in VS Code, the rg VS Code ships; elsewhere the npm package ' +
        `@vscode/ripgrep-${process.platform}-${process.arch} or rg on the PATH)`,
    );
  }
  const rgArgs = [
    '--json',
    '--no-config',
    '--hidden',
    '--no-require-git',
    '--sort=path',
    `--max-filesize=${env.limits.maxSearchFileBytes}`,
    '--glob=!.git',
    '--glob=!node_modules',
    '--debug',
    caseSensitive ? '--case-sensitive' : '--ignore-case',
    ...(useRegex ? [] : ['--fixed-strings']),
    '--regexp',
    query,
    '--',
    target.rel === '.' ? './' : target.rel,
  ];

  const results: string[] = [];
  let searched = 0;
  let skippedLarge = 0;
  let undecodable = 0;
  const onEvent = (e: RipgrepEvent): boolean => {
    if (e.type === 'summary') searched = e.data?.stats?.searches ?? searched;
    if (e.type !== 'match' || !e.data) return true;
    if (results.length >= max) return false;
    const path = textOf(e.data.path);
    const line = textOf(e.data.lines);
    if (path.bad || line.bad) undecodable++;
    const rel = path.text.replace(/^\.\//, '');
    const text = line.text.replace(/\r?\n$/, '').replace(/\r$/, '');
    const shown = text.length > 300 ? `${text.slice(0, 300)}…` : text;
    results.push(`${rel}:${e.data.line_number ?? 0}: ${shown}`);
    return true;
  };
  const onDebug = (line: string) => {
    // rg's walker logs each file it skips for --max-filesize as "ignoring <path>: <n> bytes".
    if (/\|ignore::walk\|.*: ignoring .*: \d+ bytes$/.test(line)) skippedLarge++;
  };
  const run = await runRipgrep({
    rgPath,
    args: rgArgs,
    cwd: env.root,
    signal: env.ctx.signal,
    timeoutMs: env.limits.searchTimeoutMs,
    onEvent,
    onDebug,
  });
  const { outcome } = run;
  if ('killed' in outcome && outcome.killed === 'aborted') throw new ToolError(CANCELLED_BY_USER);
  if ('exitCode' in outcome && outcome.exitCode !== 0 && outcome.exitCode !== 1) {
    if (/regex parse error|error parsing regex/i.test(run.stderr)) throw new ToolError(`invalid regular expression: ${run.stderr}`);
    if (results.length === 0)
      throw new ToolError(`ripgrep failed (exit code ${outcome.exitCode ?? 'none'}): ${run.stderr || 'no message'}`);
  }

  const notes: string[] = [];
  if ('killed' in outcome && outcome.killed === 'enough') {
    notes.push(`[Stopped at ${max} results; narrow the query or path, or raise max_results (at most ${env.limits.maxSearchResults}).]`);
  }
  if (skippedLarge > 0)
    notes.push(`[Skipped ${skippedLarge} file${skippedLarge === 1 ? '' : 's'} larger than ${formatBytes(env.limits.maxSearchFileBytes)}.]`);
  if (undecodable > 0)
    notes.push(
      `[${undecodable} result line${undecodable === 1 ? ' is' : 's are'} not valid UTF-8; undecodable bytes are shown as U+FFFD.]`,
    );
  if ('killed' in outcome && outcome.killed === 'timeout') {
    const timedOut = `[The search timed out after ${env.limits.searchTimeoutMs} ms and was stopped; search a subfolder or narrow the query.]`;
    if (results.length === 0) throw new ToolError(timedOut.slice(1, -1));
    notes.push(timedOut);
  }
  if (results.length === 0) {
    const files = `${searched} file${searched === 1 ? '' : 's'} searched`;
    return [`No matches for ${JSON.stringify(query)} in ${target.rel} (${files}).`, ...notes].join('\n');
  }
  return [...capLines(results, env.limits.maxReadOutputBytes, 'results'), ...notes].join('\n');
}

/** rg's JSON gives text, or base64 bytes when the text is not valid UTF-8. */
function textOf(v: { text?: string; bytes?: string } | undefined): { text: string; bad: boolean } {
  if (v?.text !== undefined) return { text: v.text, bad: false };
  if (v?.bytes !== undefined) {
    const decoded = decodeUtf8(Buffer.from(v.bytes, 'base64'));
    return { text: decoded.text, bad: decoded.invalidBytes > 0 };
  }
  return { text: '', bad: false };
}
