// todo: the model sets its task list (the whole list each call, like Claude Code's TodoWrite). The
// list is kept with the session outside the history: every request carries it in the standing
// section of the system prompt, so no compaction can drop it; the chat shows it as a checklist.
import { parseTodoItems, renderTodoLines, TODO_STATUSES } from '../../core';
import type { ToolEnvironment, WorkspaceTool } from './tool';
import { ToolError, type ToolResult } from './types';

export const todoTool: WorkspaceTool = {
  readOnly: true,
  definition: {
    name: 'todo',
    description:
      'Set your task list for this session: send the WHOLE list every time (it replaces the previous one). ' +
      'Use it for work with several steps: write the plan as items, mark one item in_progress while you work on it and done when it is finished. ' +
      'The list is kept outside the conversation history and shown to you in every request (also after a compaction), ' +
      'and to the user as a checklist the user may edit. ' +
      'Do not say the work is done while items are pending.',
    input_schema: {
      type: 'object',
      properties: {
        items: {
          type: 'array',
          description: 'The whole task list, in order.',
          items: {
            type: 'object',
            properties: {
              id: { type: 'string', description: 'A stable id (keep the id of an item you update; default: its position).' },
              text: { type: 'string', description: 'What the step is, one line.' },
              status: { type: 'string', enum: [...TODO_STATUSES] },
            },
            required: ['text', 'status'],
          },
        },
      },
      required: ['items'],
    },
  },
  run: setTodo,
};

function setTodo(args: Record<string, unknown>, env: ToolEnvironment): ToolResult {
  const extra = Object.keys(args).find((k) => k !== 'items');
  if (extra !== undefined) throw new ToolError(`unknown field "${extra}" (the input is { items: [{ id?, text, status }] })`);
  const parsed = parseTodoItems(args.items, 'items');
  if (!parsed.ok) throw new ToolError(parsed.error);
  if (!env.ctx.setTodo) return { content: 'The task list is not available in this session.', isError: true };
  env.ctx.setTodo(parsed.items);
  const done = parsed.items.filter((t) => t.status === 'done').length;
  const list = parsed.items.length === 0 ? '(empty)' : renderTodoLines(parsed.items);
  return {
    content:
      `Task list saved (${parsed.items.length} items, ${done} done). It is shown to you with every request, also after a compaction.\n` +
      list,
    isError: false,
  };
}
