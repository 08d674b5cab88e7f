// The host's standing context (issue 23): the workspace's instruction files, the user's setting, the
// prompts kept as instructions in the current session and its task list, as one getter the agent loop
// reads before every request (and the token overhead, the chat header and the inspector read too).
// Trust: in an untrusted workspace the files are listed, not sent, until the user allows them there
// (the host remembers the choice per workspace: `remember`).
import {
  Emitter,
  keepInstruction,
  removeKeptInstruction,
  renderStanding,
  sessionKeptInstructions,
  sessionTodo,
  type SessionLog,
  type StandingContext,
  type TextTokenizer,
} from '../../core';
import type { InstructionInfo } from '../../protocol';
import { InstructionFiles } from './instructionFiles';
import { standingContext } from './standingContext';

export interface StandingServiceDeps {
  workspaceRoot: string | undefined;
  trusted: boolean;
  /** The user allowed instruction files in this untrusted workspace before. */
  instructionsAllowed?: boolean;
  /** Remember "allowed" for this workspace (the extension's workspace state). */
  rememberAllowed?: () => void;
  /** splitpoint.instructions now. */
  setting: () => string | undefined;
  /** The current session (kept instructions and the task list live in its meta). */
  session: () => SessionLog;
}

export class StandingService {
  readonly files: InstructionFiles;
  private readonly changed = new Emitter<void>();
  /** Something the header shows changed (a kept prompt, the trust choice, a nested file joined). */
  readonly onDidChange = this.changed.event;
  private tokenMemo: { text: string; tokens: number } | undefined;

  constructor(private readonly deps: StandingServiceDeps) {
    this.files = new InstructionFiles({ root: deps.workspaceRoot, trusted: deps.trusted, allowed: deps.instructionsAllowed });
  }

  /** What the next request carries outside the history. */
  context(): StandingContext {
    const session = this.deps.session();
    return standingContext({
      files: this.files,
      setting: this.deps.setting(),
      kept: sessionKeptInstructions(session),
      todo: sessionTodo(session),
    });
  }

  /** The instruction sources in force, for the chat header (sent or listed only, cut). */
  list(): InstructionInfo[] {
    return this.context().instructions.map((s) => ({
      name: s.name,
      kind: s.kind,
      sent: s.sent,
      truncated: s.truncated,
      chars: s.text.length,
      originalChars: s.originalChars,
      ...(s.messageId ? { messageId: s.messageId } : {}),
    }));
  }

  /** Tokens the standing section adds to every request (counted once per distinct text). */
  tokens(tokenizer: TextTokenizer): number {
    const text = renderStanding(this.context());
    if (this.tokenMemo?.text !== text) this.tokenMemo = { text, tokens: text === '' ? 0 : tokenizer.countText(`\n\n${text}`) };
    return this.tokenMemo.tokens;
  }

  /** The agent loop's hooks: the getter, and the file tools' paths (nested instruction files join). */
  agentHooks(): { standing: () => StandingContext; onFileTouched: (path: string) => void } {
    return {
      standing: () => this.context(),
      onFileTouched: (path) => {
        if (this.files.noteTouched(path)) this.changed.fire();
      },
    };
  }

  /** Whether the files are listed only (untrusted and not allowed): the header offers "Allow". */
  get listedOnly(): boolean {
    return !this.files.sending;
  }

  /** The user allowed instruction files in this untrusted workspace: sent from the next request on. */
  allow(): void {
    if (this.files.sending) return;
    this.files.allow();
    this.deps.rememberAllowed?.();
    this.changed.fire();
  }

  /** "Keep as instruction" on a prompt of the current session (its text as sent). */
  keep(messageId: string): boolean {
    const session = this.deps.session();
    const message = session.messages.find((m) => m.id === messageId) ?? null;
    const text = message ? promptText(message.content) : undefined;
    if (!text || message?.role !== 'user') return false;
    const done = keepInstruction(session, messageId, text);
    if (done) this.changed.fire();
    return done;
  }

  /** Keep an archived prompt (the inspector's ledger): its text is given, the message is no longer in the history. */
  keepText(messageId: string, text: string): boolean {
    const done = keepInstruction(this.deps.session(), messageId, text);
    if (done) this.changed.fire();
    return done;
  }

  remove(messageId: string): boolean {
    const done = removeKeptInstruction(this.deps.session(), messageId);
    if (done) this.changed.fire();
    return done;
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** A prompt's typed text: its first text block (@-mentioned files and images after it are not part of an instruction). */
function promptText(content: string | readonly { type: string; text?: string }[]): string {
  if (typeof content === 'string') return content.trim();
  const first = content.find((b) => b.type === 'text' && typeof b.text === 'string');
  return first?.text?.trim() ?? '';
}
