// compact: the model asks the pipeline to compact the history after the current batch of tool calls.
import type { ToolEnvironment, WorkspaceTool } from './tool';
import { ToolError, type ToolResult } from './types';

export const compactTool: WorkspaceTool = {
  readOnly: true,
  definition: {
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
  run: compact,
};

function compact(args: Record<string, unknown>, env: ToolEnvironment): ToolResult {
  const focus = args.focus;
  if (focus !== undefined && typeof focus !== 'string') throw new ToolError('focus must be a string');
  if (!env.ctx.requestCompaction) return { content: 'Compaction is not available in this session.', isError: true };
  env.ctx.requestCompaction(focus && focus.trim() !== '' ? focus : undefined);
  return { content: 'Compaction requested; it will run after this batch of tool calls.', isError: false };
}
