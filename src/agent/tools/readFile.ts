// read_file: a text file (or a line range of it) with numbered lines, output capped.
import { optionalInt } from './args';
import { openConfined } from './confinedFs';
import { decodeUtf8, looksBinary } from './files';
import { formatBytes } from './format';
import { ok, type ToolEnvironment, type WorkspaceTool } from './tool';
import { ToolError } from './types';
import type { ResolvedPath } from './workspacePath';

export const readFileTool: WorkspaceTool = {
  readOnly: true,
  definition: {
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
  async run(args, env) {
    return ok(await readNumberedLines(args, env));
  },
};

async function readNumberedLines(args: Record<string, unknown>, env: ToolEnvironment): Promise<string> {
  const target = env.resolvePath(args.path);
  const start = optionalInt(args, 'start_line', 1);
  const end = optionalInt(args, 'end_line', 1);
  if (start !== undefined && end !== undefined && end < start) throw new ToolError(`end_line (${end}) is before start_line (${start})`);
  if (!target.exists) throw new ToolError(`no such file: ${target.rel}`);
  const buf = await readChecked(target, env);
  if (looksBinary(buf))
    throw new ToolError(`${target.rel} looks like a binary file (${formatBytes(buf.length)}); only text files can be read`);
  const { text, invalidBytes } = decodeUtf8(buf);
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
    if (bytes + size > env.limits.maxReadOutputBytes && out.length > 0) break;
    out.push(line);
    bytes += size;
    last = i;
  }
  let result = out.join('\n');
  if (last < to) {
    const cap = formatBytes(env.limits.maxReadOutputBytes);
    result += `\n[Output truncated at ${cap}: showing lines ${from}-${last} of ${total}. Read more with start_line: ${last + 1}.]`;
  } else if (from > 1 || to < total) {
    result += `\n[Lines ${from}-${to} of ${total}.]`;
  }
  if (invalidBytes > 0) {
    result +=
      `\n[Note: ${invalidBytes} byte${invalidBytes === 1 ? '' : 's'} of ${target.rel} ${invalidBytes === 1 ? 'is' : 'are'} not valid UTF-8 ` +
      '(e.g. a Latin-1 file) and are shown as U+FFFD (\uFFFD); edit_file cannot change this file.]';
  }
  return result;
}

/** The file's bytes, opened so that a path swapped after the check cannot redirect the read. */
async function readChecked(target: ResolvedPath, env: ToolEnvironment): Promise<Buffer> {
  const fh = await openConfined(env.root, target);
  try {
    const info = await fh.stat();
    if (info.isDirectory()) throw new ToolError(`${target.rel} is a folder; use list_files to see what it contains`);
    if (!info.isFile()) throw new ToolError(`${target.rel} is not a regular file`);
    if (info.size > env.limits.maxReadFileBytes) {
      const limit = formatBytes(env.limits.maxReadFileBytes);
      throw new ToolError(
        `${target.rel} is too large to read (${formatBytes(info.size)}, limit ${limit}); use search to find the part you need`,
      );
    }
    return await fh.readFile();
  } finally {
    await fh.close();
  }
}
