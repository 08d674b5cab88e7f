// What every model call sends besides the history: the system prompt and the tool definitions,
// what they cost in tokens, and the streamed request that carries them with the messages.
import type Anthropic from '@anthropic-ai/sdk';
import type { ApiMessage, TextTokenizer } from '../../core';
import { withPromptCaching, type PromptCaching } from './promptCache';
import type { ToolDefinition } from '../tools';

/** Tokens a request spends outside its messages: the system prompt and the tool definitions. */
export function requestOverheadTokens(tokenizer: TextTokenizer, system: string, tools: readonly ToolDefinition[]): number {
  let n = 0;
  for (const text of requestOverheadTexts(system, tools)) n += tokenizer.countText(text);
  return n;
}

/** The texts requestOverheadTokens counts: the system prompt first, then each tool's name, description and schema. */
export function requestOverheadTexts(system: string, tools: readonly ToolDefinition[]): string[] {
  return [system, ...tools.flatMap((t) => [t.name, t.description, JSON.stringify(t.input_schema)])];
}

export function defaultSystemPrompt(o: { readOnly?: boolean; workspaceRoot?: string } = {}): string {
  const where = o.workspaceRoot
    ? ` The workspace folder is ${o.workspaceRoot}; all paths are relative to it.`
    : ' All paths are relative to the workspace folder.';
  const toolsText = o.readOnly
    ? `This workspace is not trusted, so you are in read-only mode: you can use read_file, list_files and search to investigate and explain, ` +
      `but you cannot edit files or run commands. Say what you would change instead.`
    : `Tools: read_file (numbered lines, ranges for big files), list_files, search (text or regex over the workspace), edit_file (replace an ` +
      `exact, unique snippet), write_file (create or overwrite a whole file), run_command (shell, non-interactive). Edits, writes and commands ` +
      `are shown to the user, who approves or rejects each one; if one is rejected, read the reason, adjust, and do not retry the same thing ` +
      `unchanged.`;
  return [
    `You are Splitpoint, a coding agent working in the user's workspace inside their editor.${where}`,
    toolsText,
    `Work in small, verifiable steps: look before you change anything (read the relevant code, search for usages), make focused edits that ` +
      `match the existing style, then check your work (build, tests) when you can. Prefer edit_file over write_file for existing files. Never ` +
      `invent file contents, APIs or results; if something is unclear, look it up or ask.`,
    `Tool results can be large; request only what you need (line ranges, narrow searches). Older tool results may later appear as ` +
      `"[Previous: used <tool>]" placeholders, and older history may be replaced by a summary: re-read a file if you need its current content.`,
    `The compact tool compacts the conversation history (older messages are summarized; a transcript keeps everything). Call it at a natural ` +
      `breakpoint when the context is filling up with material you no longer need, with a focus naming what must be preserved (open tasks, ` +
      `file paths, decisions, failing tests). It takes effect after the current batch of tool calls.`,
    `Be concise. When you finish, say briefly what you changed and how you verified it, or what is left to do.`,
  ].join('\n\n');
}

export interface ModelRequest {
  model: string;
  maxTokens: number;
  system: string;
  tools: readonly ToolDefinition[];
  messages: readonly ApiMessage[];
  /** Prompt-cache breakpoints (default 'off': none). */
  caching?: PromptCaching;
  /** The micro-compaction frontiers in request messages (PreparedRequest.stableApiMessages): a breakpoint at each. */
  stableMessages?: readonly number[];
  /**
   * Text sent as the last block of the last user turn, after every cache breakpoint (the task list):
   * in every request, never in the history, and never part of a cached prefix.
   */
  trailer?: string;
}

/** The Messages API request for one model call (tools omitted when there are none), with its cache breakpoints. */
export function messageStreamParams(r: ModelRequest): Anthropic.MessageStreamParams {
  const params: Anthropic.MessageStreamParams = {
    model: r.model,
    max_tokens: r.maxTokens,
    system: r.system,
    ...(r.tools.length > 0 ? { tools: r.tools as Anthropic.Tool[] } : {}),
    messages: r.messages as Anthropic.MessageParam[],
  };
  return withTrailer(withPromptCaching(params, r.caching ?? 'off', r.stableMessages), r.trailer);
}

/** `params` with `trailer` as the last text block of its last user turn (a new user turn when the last is not one). */
export function withTrailer(params: Anthropic.MessageStreamParams, trailer: string | undefined): Anthropic.MessageStreamParams {
  if (trailer === undefined || trailer === '') return params;
  const messages = [...params.messages];
  const last = messages[messages.length - 1];
  const block: Anthropic.TextBlockParam = { type: 'text', text: trailer };
  if (last && last.role === 'user') {
    const content = typeof last.content === 'string' ? [{ type: 'text' as const, text: last.content }] : [...last.content];
    messages[messages.length - 1] = { ...last, content: [...content, block] };
  } else messages.push({ role: 'user', content: [block] });
  return { ...params, messages };
}
