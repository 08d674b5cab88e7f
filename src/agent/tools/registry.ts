// The workspace tools, in the order they are offered to the model. Adding a tool = one file + one line.
import { compactTool } from './compact';
import { editFileTool } from './editFile';
import { listFilesTool } from './listFiles';
import { readFileTool } from './readFile';
import { runCommandTool } from './runCommand';
import { searchTool } from './search';
import { todoTool } from './todo';
import type { WorkspaceTool } from './tool';
import { writeFileTool } from './writeFile';

export const WORKSPACE_TOOLS: readonly WorkspaceTool[] = [
  readFileTool,
  listFilesTool,
  searchTool,
  editFileTool,
  writeFileTool,
  runCommandTool,
  compactTool,
  todoTool,
];

/** The tools offered in an untrusted workspace. */
export const READ_ONLY_TOOLS: readonly string[] = WORKSPACE_TOOLS.filter((t) => t.readOnly).map((t) => t.definition.name);
/** The tools that change files or run commands (only with approval, never in read-only mode). */
export const MUTATING_TOOLS: readonly string[] = WORKSPACE_TOOLS.filter((t) => !t.readOnly).map((t) => t.definition.name);

export function findTool(name: string): WorkspaceTool | undefined {
  return WORKSPACE_TOOLS.find((t) => t.definition.name === name);
}
