// write_file: create a file or replace its whole content after the user approves the diff.
import { requireString } from './args';
import { applyWithApproval, assertWritable, readTextForChange } from './fileChange';
import { formatBytes } from './format';
import type { ToolEnvironment, WorkspaceTool } from './tool';
import { ToolError, type ToolResult } from './types';

export const writeFileTool: WorkspaceTool = {
  readOnly: false,
  definition: {
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
  run: writeFile,
};

async function writeFile(args: Record<string, unknown>, env: ToolEnvironment): Promise<ToolResult> {
  const target = env.resolvePath(args.path);
  assertWritable(target);
  const content = requireString(args, 'content');
  if (target.rel === '.') throw new ToolError('path is the workspace folder itself');
  const original = await readTextForChange(target, env);
  if (original === content) return { content: `${target.rel} already has exactly this content; nothing was written.`, isError: false };
  const title = original === null ? `Create ${target.rel}` : `Overwrite ${target.rel}`;
  const outcome = await applyWithApproval(env, 'write_file', target, original, content, title);
  if (outcome.isError) return outcome;
  const lines = content === '' ? 0 : content.split('\n').length - (content.endsWith('\n') ? 1 : 0);
  const size = `${lines} line${lines === 1 ? '' : 's'}, ${formatBytes(Buffer.byteLength(content))}`;
  return { content: `${original === null ? 'Created' : 'Wrote'} ${target.rel} (${size}).`, isError: false };
}
