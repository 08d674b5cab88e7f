// search: matching lines across workspace text files, as "path:line: text".
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage } from '../../core';
import { optionalBool, optionalInt, requireString } from './args';
import { looksBinary, SKIP_DIRS } from './files';
import { capLines, formatBytes } from './format';
import { ok, type ToolEnvironment, type WorkspaceTool } from './tool';
import { CANCELLED_BY_USER, ToolError } from './types';

export const searchTool: WorkspaceTool = {
  readOnly: true,
  definition: {
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
  let matcher: (line: string) => boolean;
  if (useRegex) {
    let re: RegExp;
    try {
      re = new RegExp(query, caseSensitive ? '' : 'i');
    } catch (e) {
      throw new ToolError(`invalid regular expression: ${errorMessage(e)}`);
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
    if (info.size > env.limits.maxSearchFileBytes) {
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
      if (env.ctx.signal.aborted) throw new ToolError(CANCELLED_BY_USER);
      if (SKIP_DIRS.has(d.name) || d.isSymbolicLink()) continue;
      const full = join(dir, d.name);
      const rel = `${relDir}${d.name}`;
      if (d.isDirectory()) await walk(full, `${rel}/`);
      else if (d.isFile()) {
        if (scanned >= env.limits.maxSearchFiles) {
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
  if (stoppedAt === 'results') {
    notes.push(`[Stopped at ${max} results; narrow the query or path, or raise max_results (at most ${env.limits.maxSearchResults}).]`);
  }
  if (stoppedAt === 'files') notes.push(`[Stopped after scanning ${env.limits.maxSearchFiles} files; search a subfolder.]`);
  if (skippedLarge > 0)
    notes.push(`[Skipped ${skippedLarge} file${skippedLarge === 1 ? '' : 's'} larger than ${formatBytes(env.limits.maxSearchFileBytes)}.]`);
  if (results.length === 0) {
    const searched = `${scanned} file${scanned === 1 ? '' : 's'} searched`;
    return [`No matches for ${JSON.stringify(query)} in ${target.rel} (${searched}).`, ...notes].join('\n');
  }
  return [...capLines(results, env.limits.maxReadOutputBytes, 'results'), ...notes].join('\n');
}
