// Standing context (issue 23): what every request carries outside the compacted history, so no
// compaction can drop it: the project's instruction files (AGENTS.md, CLAUDE.md, nested ones), the user's
// own instructions (setting, and prompts promoted with "keep as instruction"), and the agent's task list.
// Types here; rendering into the system prompt in render.ts. Pure: no file access (the agent loads files).

/** One source of standing instructions, as sent (or, in an untrusted workspace, only listed). */
export interface InstructionSource {
  /** What the user sees: 'AGENTS.md', 'CLAUDE.md', 'packages/api/AGENTS.md', 'splitpoint.instructions', 'chat'. */
  name: string;
  kind: 'file' | 'setting' | 'chat';
  /** Workspace-relative path of a file source. */
  path?: string;
  /** The text sent (after the caps); empty when not sent. */
  text: string;
  /** The text was cut to the caps (the rendering says so). */
  truncated: boolean;
  /** Characters of the original text. */
  originalChars: number;
  /** False in an untrusted workspace until the user allows it: listed, not sent. */
  sent: boolean;
  /** For a chat instruction: the id of the prompt it came from. */
  messageId?: string;
}

export type TodoStatus = 'pending' | 'in_progress' | 'done';

export interface TodoItem {
  id: string;
  text: string;
  status: TodoStatus;
}

export interface StandingContext {
  instructions: InstructionSource[];
  todo: TodoItem[];
}
