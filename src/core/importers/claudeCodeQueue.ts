// Prompts a person typed while Claude Code was working. Claude Code queues them and, at its next model call
// inside the same turn, hands them to the model after the tool results (an `attachment` line of type
// `queued_command` in recent versions; in 2.1.x only the `queue-operation` lines record them: `enqueue`
// with the text, then `remove` when the model call takes it). A `dequeue` means the prompt was sent as an
// ordinary user line instead (that line is the prompt); `popAll` means the person took the queue back into
// the input box (nothing was sent).
import type { ArtefactKind, ContentBlock } from '../conversation/conversation';
import { checkContent } from '../conversation/messageShape';
import { artefactKindOf, userText } from './claudeCodeArtefacts';
import { describe, failAt, timestampMs, type Json, type JsonLine } from './json';

/** A queued prompt to place in the conversation before the next model response. */
export interface QueuedPrompt {
  id: string;
  line: number;
  content: string | ContentBlock[];
  createdAt?: number;
  artefact?: ArtefactKind;
}

interface Waiting {
  text: string;
  line: number;
  at?: number;
}

export class PromptQueue {
  private waiting: Waiting[] = [];
  private pending: QueuedPrompt[] = [];

  constructor(
    private readonly file: string,
    private readonly warnings: string[],
  ) {}

  /** A `queue-operation` line. */
  operation(l: JsonLine): void {
    const op = l.value.operation;
    const content = typeof l.value.content === 'string' ? l.value.content : undefined;
    switch (op) {
      case 'enqueue':
        if (content !== undefined) this.waiting.push({ text: content, line: l.line, at: timestampMs(l.value.timestamp) });
        else this.warnings.push(`${this.file}:${l.line}: content: a queued prompt without text (${describe(l.value.content)}); skipped`);
        return;
      case 'dequeue':
        // Sent as the next user line, which is read as the prompt.
        this.take(content);
        return;
      case 'remove': {
        const item = this.take(content);
        if (!item) return;
        if (this.pending.some((p) => sameText(userText(p.content), item.text))) return;
        this.pending.push({
          id: `claude_${l.line}_queued`,
          line: item.line,
          content: item.text,
          createdAt: item.at,
          artefact: artefactKindOf(item.text, false),
        });
        return;
      }
      case 'popAll':
        for (const w of this.waiting) {
          this.warnings.push(`${this.file}:${w.line}: queued prompt taken back into the input box (line ${l.line}), never sent; skipped`);
        }
        this.waiting = [];
        return;
      default:
        this.warnings.push(`${this.file}:${l.line}: operation: unknown queue operation ${describe(op)}; skipped`);
    }
  }

  /** An `attachment` line of type `queued_command`: the prompt as the model call took it. */
  attachment(l: JsonLine, attachment: Json): void {
    const fail = failAt(this.file, l.line);
    const content = checkContent(attachment.prompt, 'attachment.prompt', fail);
    const text = userText(content);
    const notification = attachment.commandMode === 'task-notification';
    this.take(text);
    this.pending = this.pending.filter((p) => !sameText(userText(p.content), text));
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
    this.take(text);
    this.pending = this.pending.filter((p) => !sameText(userText(p.content), text));
  }

  /** The queued prompts the model took since the last call, in order; the list is emptied. */
  takePending(): QueuedPrompt[] {
    const out = this.pending;
    this.pending = [];
    return out;
  }

  /** Warn about prompts still waiting at the end of the file (never sent to the model). */
  finish(): void {
    for (const w of this.waiting)
      this.warnings.push(`${this.file}:${w.line}: queued prompt still waiting when the recording ends (never sent to the model); skipped`);
    this.waiting = [];
  }

  private take(text: string | undefined): Waiting | undefined {
    const i = text === undefined ? 0 : this.waiting.findIndex((w) => sameText(w.text, text));
    if (i < 0 || i >= this.waiting.length) return undefined;
    return this.waiting.splice(i, 1)[0];
  }
}

function sameText(a: string, b: string): boolean {
  return a.trim() === b.trim();
}
