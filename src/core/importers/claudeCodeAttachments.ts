// Claude Code `attachment` lines other than queued prompts: what the harness attached to the next model
// call (files re-attached after a compaction, edited files, IDE context, hook output). Each becomes a
// user-role artefact with a readable text; a type with nothing the model reads recorded is skipped, and the
// skips are reported once per type.
import type { ArtefactKind } from '../conversation/conversation';
import { isObject, type Json } from './json';

export interface AttachmentText {
  text: string;
  artefact: ArtefactKind;
}

/** The text the model was given for an attachment, or undefined when the line records none. */
export function attachmentText(attachment: Json): AttachmentText | undefined {
  const type = typeof attachment.type === 'string' ? attachment.type : '';
  const path = firstString(attachment.displayPath, attachment.filename, attachment.path, attachment.filePath);
  if (type.startsWith('hook')) {
    const text = firstString(attachment.content, attachment.stdout, attachment.stderr, attachment.message);
    return text === undefined ? undefined : { text, artefact: 'notification' };
  }
  switch (type) {
    case 'file': {
      const body = fileBody(attachment.content);
      const name =
        path ??
        (isObject(attachment.content) && isObject(attachment.content.file) ? firstString(attachment.content.file.filePath) : undefined);
      if (body === undefined && name === undefined) return undefined;
      return { text: `Attached file ${name ?? '(unnamed)'}${body !== undefined ? `:\n${body}` : ''}`, artefact: 'attachment' };
    }
    case 'compact_file_reference':
      return path === undefined
        ? undefined
        : { text: `File ${path} was read before the conversation was compacted (not re-attached).`, artefact: 'attachment' };
    case 'edited_text_file': {
      const snippet = firstString(attachment.snippet);
      if (path === undefined && snippet === undefined) return undefined;
      return { text: `File ${path ?? '(unnamed)'} was modified${snippet !== undefined ? `:\n${snippet}` : '.'}`, artefact: 'attachment' };
    }
    default: {
      const text = firstString(attachment.content, attachment.prompt, attachment.snippet);
      if (text === undefined || text.trim() === '') return undefined;
      return { text: path !== undefined ? `${path}:\n${text}` : text, artefact: 'attachment' };
    }
  }
}

function fileBody(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!isObject(content)) return undefined;
  if (isObject(content.file) && typeof content.file.content === 'string') return content.file.content;
  return typeof content.content === 'string' ? content.content : undefined;
}

function firstString(...values: unknown[]): string | undefined {
  for (const v of values) if (typeof v === 'string') return v;
  return undefined;
}

/** Attachment lines skipped for recording nothing the model reads, reported as one warning per type. */
export class SkippedAttachments {
  private readonly byType = new Map<string, number[]>();

  add(type: string, line: number): void {
    const lines = this.byType.get(type);
    if (lines) lines.push(line);
    else this.byType.set(type, [line]);
  }

  warnings(file: string): string[] {
    return [...this.byType].map(([type, lines]) => {
      const shown = lines.slice(0, 10).join(', ') + (lines.length > 10 ? ', …' : '');
      return `${file}:${lines[0]}: skipped ${lines.length} attachment line(s) of type ${type} with no text for the model (lines ${shown})`;
    });
  }
}
