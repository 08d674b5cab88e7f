// edit_file: replace an exact, unique snippet (or every occurrence) after the user approves the diff.
import { optionalBool, requireString } from './args';
import { applyWithApproval, assertWritable, readTextForChange } from './fileChange';
import type { ToolEnvironment, WorkspaceTool } from './tool';
import { ToolError, type ToolResult } from './types';

export const editFileTool: WorkspaceTool = {
  readOnly: false,
  definition: {
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
  run: editFile,
};

async function editFile(args: Record<string, unknown>, env: ToolEnvironment): Promise<ToolResult> {
  const target = env.resolvePath(args.path);
  assertWritable(target);
  let oldString = requireString(args, 'old_string');
  let newString = requireString(args, 'new_string');
  const replaceAll = optionalBool(args, 'replace_all') ?? false;
  if (oldString === '') throw new ToolError('old_string is empty; use write_file to create a file or replace its whole content');
  if (oldString === newString) throw new ToolError('old_string and new_string are identical; nothing would change');
  const original = await readTextForChange(target, env);
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
  if (count === 0) {
    throw new ToolError(
      `old_string was not found in ${target.rel}. It must match the file exactly, including whitespace and indentation; ` +
        'read the file again to copy the exact text.',
    );
  }
  if (count > 1 && !replaceAll) {
    throw new ToolError(
      `old_string occurs ${count} times in ${target.rel}; include more surrounding lines to make it unique, or set replace_all to replace every occurrence`,
    );
  }
  const updated = replaceAll ? original.split(oldString).join(newString) : original.replace(oldString, () => newString);
  const title = `Edit ${target.rel}${replaceAll && count > 1 ? ` (${count} replacements)` : ''}`;
  const outcome = await applyWithApproval(env, 'edit_file', target, original, updated, title);
  if (outcome.isError) return outcome;
  return { content: `Edited ${target.rel}: ${count} replacement${count === 1 ? '' : 's'}.`, isError: false };
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
