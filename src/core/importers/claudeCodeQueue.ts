// Prompts a person typed while Claude Code was working. Claude Code queues them and, at its next model call
// inside the same turn, hands them to the model after the tool results (an `attachment` line of type
// `queued_command` in recent versions; in 2.1.x only the `queue-operation` lines record them: `enqueue`
// with the text, then `remove` when the model call takes it). A `dequeue` means the item was sent as an
// ordinary user line instead (that line is the prompt); `popAll` means the person took the queue back into
// the input box (nothing was sent).
//
// The queue holds more than typed prompts (recorded in claude-code-cipher-box-c.jsonl):
//  - background-task records, `{"task_id": …, "description": …, "task_type": …}` as JSON text, enqueued when a
//    background task starts and removed in a batch when the turn ends (or the task is dropped). The model
//    never reads them: they are never a prompt, whichever operation takes them.
//  - `<task-notification>` texts: the model reads them (mid-turn as a `queued_command` attachment, or as the
//    user line a `dequeue` announces), as notifications, never as a genuine prompt.
//  - built-in slash commands (`/model …`, `/clear`…), which Claude Code runs itself: never sent to the model.
// A `remove` without content names no item. The model call that removes mid-turn takes typed prompts (a
// notification waits minutes in the queue while prompts typed after it are removed within seconds), and the
// end-of-turn batch clears task records before the `dequeue` that sends a notification; so a bare `remove`
// takes the oldest typed prompt, else the oldest task record, else the oldest other item. A bare `dequeue`
// takes the oldest item that is not a task record.
import type { ArtefactKind, ContentBlock } from '../conversation/conversation';
import { checkContent } from '../conversation/messageShape';
import { artefactKindOf, userText } from './claudeCodeArtefacts';
import { describe, failAt, isObject, timestampMs, type Json, type JsonLine } from './json';

/** A queued prompt to place in the conversation before the next model response. */
export interface QueuedPrompt {
  id: string;
  line: number;
  content: string | ContentBlock[];
  createdAt?: number;
  artefact?: ArtefactKind;
}

/** What a queued item is: only a 'prompt' is something a person typed for the model. */
type QueuedKind = 'prompt' | 'task' | 'notification' | 'local-command';

interface Waiting {
  text: string;
  line: number;
  at?: number;
  kind: QueuedKind;
}

/**
 * Claude Code's built-in commands that it runs itself (never sent to the model as a prompt). A queued custom
 * command (`/gsd:progress`, a skill) is sent through its template and is read as a prompt.
 */
const LOCAL_COMMANDS = new Set([
  'add-dir', 'agents', 'bashes', 'bug', 'clear', 'config', 'context', 'cost', 'doctor', 'exit', 'export', 'help',
  'hooks', 'ide', 'install-github-app', 'login', 'logout', 'mcp', 'memory', 'model', 'output-style', 'permissions',
  'plugin', 'privacy-settings', 'quit', 'release-notes', 'rename', 'resume', 'rewind', 'sandbox', 'status',
  'statusline', 'terminal-setup', 'todos', 'upgrade', 'usage', 'vim', 'fast', 'effort', 'theme', 'tasks',
]); // prettier-ignore

/** `{"task_id": …}` as JSON text: a background-task record Claude Code keeps in its queue. */
export function isTaskRecord(text: string): boolean {
  const t = text.trim();
  if (!t.startsWith('{') || !t.includes('"task_id"')) return false;
  try {
    const v: unknown = JSON.parse(t);
    return isObject(v as Json) && !Array.isArray(v) && 'task_id' in (v as object);
  } catch {
    return false;
  }
}

/** The built-in command a queued text runs (`/model sonnet` → `model`), or undefined. */
export function localCommandOf(text: string): string | undefined {
  const m = /^\/([a-z][a-z0-9-]*)(\s|$)/i.exec(text.trim());
  return m && LOCAL_COMMANDS.has(m[1].toLowerCase()) ? m[1] : undefined;
}

function kindOf(text: string): QueuedKind {
  if (isTaskRecord(text)) return 'task';
  if (localCommandOf(text) !== undefined) return 'local-command';
  return artefactKindOf(text, false) === 'notification' ? 'notification' : 'prompt';
}

export class PromptQueue {
  private waiting: Waiting[] = [];
  private pending: QueuedPrompt[] = [];
  /** Texts a queued_command attachment took before its `remove` line: that remove names it (no second prompt). */
  private takenByAttachment: string[] = [];
  /** Texts placed from a `remove` before any attachment of theirs: a later attachment with the text is the same prompt. */
  private placedFromRemove: string[] = [];

  constructor(
    private readonly file: string,
    private readonly warnings: string[],
  ) {}

  /** An independent copy whose warnings go to `warnings` (a fork of a followed session's reader). */
  clone(warnings: string[]): PromptQueue {
    const copy = new PromptQueue(this.file, warnings);
    copy.waiting = [...this.waiting];
    copy.pending = [...this.pending];
    copy.takenByAttachment = [...this.takenByAttachment];
    copy.placedFromRemove = [...this.placedFromRemove];
    return copy;
  }

  /** A `queue-operation` line. */
  operation(l: JsonLine): void {
    const op = l.value.operation;
    const content = typeof l.value.content === 'string' && l.value.content !== '' ? l.value.content : undefined;
    switch (op) {
      case 'enqueue':
        if (content !== undefined)
          this.waiting.push({ text: content, line: l.line, at: timestampMs(l.value.timestamp), kind: kindOf(content) });
        else this.warnings.push(`${this.file}:${l.line}: content: a queued prompt without text (${describe(l.value.content)}); skipped`);
        return;
      case 'dequeue':
        // Sent as the next user line, which is read as the prompt.
        this.take(content, ['prompt', 'notification', 'local-command', 'task']);
        return;
      case 'remove':
        return this.remove(l, content);
      case 'popAll':
        for (const w of this.waiting) {
          if (w.kind === 'task') continue;
          this.warnings.push(`${this.file}:${w.line}: queued prompt taken back into the input box (line ${l.line}), never sent; skipped`);
        }
        this.waiting = [];
        return;
      default:
        this.warnings.push(`${this.file}:${l.line}: operation: unknown queue operation ${describe(op)}; skipped`);
    }
  }

  /** An `attachment` line of type `queued_command`: the item as the model call took it. */
  attachment(l: JsonLine, attachment: Json): void {
    const fail = failAt(this.file, l.line);
    const content = checkContent(attachment.prompt, 'attachment.prompt', fail);
    const text = userText(content);
    const placed = this.placedFromRemove.findIndex((t) => sameText(t, text));
    if (placed >= 0) {
      // Its `remove` line came first and already placed it: one prompt, not two.
      this.placedFromRemove.splice(placed, 1);
      return;
    }
    const origin = isObject(attachment.origin) ? attachment.origin.kind : undefined;
    const notification =
      attachment.commandMode === 'task-notification' || (origin !== undefined && origin !== 'human') || attachment.isMeta === true;
    // The queued item it delivers: the one with its text, else (its text was rewritten, e.g. pasted images)
    // the oldest waiting item of its kind. Its `remove` line, if one follows, names this item.
    const kind: QueuedKind = isTaskRecord(text) ? 'task' : notification ? 'notification' : kindOf(text);
    if (this.take(text, []) ?? this.take(undefined, [kind])) this.takenByAttachment.push(text);
    this.pending = this.pending.filter((p) => !sameText(userText(p.content), text));
    if (kind === 'task') return;
    this.pending.push({
      id: typeof l.value.uuid === 'string' && l.value.uuid !== '' ? l.value.uuid : `claude_${l.line}`,
      line: l.line,
      content,
      createdAt: timestampMs(l.value.timestamp),
      artefact: notification ? 'notification' : artefactKindOf(text, false),
    });
  }

  /** A user line with this text was written: a queued copy of it is not a second prompt. */
  delivered(text: string): void {
    this.take(text, []);
    this.pending = this.pending.filter((p) => !sameText(userText(p.content), text));
    this.placedFromRemove = this.placedFromRemove.filter((t) => !sameText(t, text));
  }

  /** The queued prompts the model took since the last call, in order; the list is emptied. */
  takePending(): QueuedPrompt[] {
    const out = this.pending;
    this.pending = [];
    // Only the last call's: an attachment that repeats a removed prompt is written before the next call.
    this.placedFromRemove = out.filter((p) => p.id.endsWith('_queued')).map((p) => userText(p.content));
    return out;
  }

  /** Warn about prompts still waiting at the end of the file (never sent to the model). */
  finish(): void {
    for (const w of this.waiting) {
      if (w.kind === 'task') continue;
      this.warnings.push(`${this.file}:${w.line}: queued prompt still waiting when the recording ends (never sent to the model); skipped`);
    }
    this.waiting = [];
  }

  private remove(l: JsonLine, content: string | undefined): void {
    if (content === undefined && this.takenByAttachment.length > 0) {
      this.takenByAttachment.shift();
      return;
    }
    if (content !== undefined) {
      const i = this.takenByAttachment.findIndex((t) => sameText(t, content));
      if (i >= 0) return void this.takenByAttachment.splice(i, 1);
    }
    const item = this.take(content, ['prompt', 'task', 'local-command', 'notification']);
    if (!item || item.kind === 'task') return;
    if (item.kind === 'local-command') {
      this.warnings.push(
        `${this.file}:${item.line}: queued command /${localCommandOf(item.text)} is run by Claude Code itself, never sent to the model; skipped`,
      );
      return;
    }
    if (this.pending.some((p) => sameText(userText(p.content), item.text))) return;
    this.pending.push({
      id: `claude_${l.line}_queued`,
      line: item.line,
      content: item.text,
      createdAt: item.at,
      artefact: item.kind === 'notification' ? 'notification' : artefactKindOf(item.text, false),
    });
  }

  /** The item with this text, else (no text) the oldest of the first kind in `order` that is waiting. */
  private take(text: string | undefined, order: readonly QueuedKind[]): Waiting | undefined {
    let i = -1;
    if (text !== undefined) i = this.waiting.findIndex((w) => sameText(w.text, text));
    else for (const kind of order) if ((i = this.waiting.findIndex((w) => w.kind === kind)) >= 0) break;
    return i < 0 ? undefined : this.waiting.splice(i, 1)[0];
  }
}

function sameText(a: string, b: string): boolean {
  return a.trim() === b.trim();
}
