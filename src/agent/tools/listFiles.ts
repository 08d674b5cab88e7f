// list_files: a folder's entries (optionally recursive), sorted, skipping .git and node_modules.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { optionalBool, optionalInt } from './args';
import { describeFsError, SKIP_DIRS } from './files';
import { capLines } from './format';
import { ok, type ToolEnvironment, type WorkspaceTool } from './tool';
import { ToolError } from './types';

export const listFilesTool: WorkspaceTool = {
  readOnly: true,
  definition: {
    name: 'list_files',
    description: 'List files and folders (folders end with "/"). Skips .git and node_modules. Paths are relative to the workspace root.',
    input_schema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'Folder to list, relative to the workspace root. Default: the root.' },
        recursive: { type: 'boolean', description: 'List subfolders too. Default false.' },
        max_entries: { type: 'integer', minimum: 1, description: 'Most entries to return. Default 500.' },
      },
    },
  },
  async run(args, env) {
    return ok(await listEntries(args, env));
  },
};

async function listEntries(args: Record<string, unknown>, env: ToolEnvironment): Promise<string> {
  const target = env.resolvePath(args.path === undefined ? '.' : args.path);
  const recursive = optionalBool(args, 'recursive') ?? false;
  const max = Math.min(optionalInt(args, 'max_entries', 1) ?? env.limits.defaultListEntries, env.limits.maxListEntries);
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
  let out = capLines(entries, env.limits.maxReadOutputBytes, 'entries').join('\n');
  if (truncated)
    out += `\n[Listing truncated at ${max} entries; list a subfolder or raise max_entries (at most ${env.limits.maxListEntries}).]`;
  if (entries.some((e) => e.endsWith('@'))) out += '\n[Entries ending in @ are symbolic links (not followed).]';
  return out;
}
