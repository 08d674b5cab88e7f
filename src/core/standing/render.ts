// The standing context as the model reads it: a section appended to the system prompt, so no
// compaction of the history can drop or paraphrase it. Instruction sources each under their name
// (with a note when the caps cut one), then the task list as a checklist. Also the caps themselves:
// one source (file, setting, kept prompt) at most PER_SOURCE characters, all together at most TOTAL.
import { renderTodoLines } from '../session/sessionTodo';
import type { InstructionSource, StandingContext, TodoItem } from './types';

export interface InstructionCaps {
  /** Most characters of one source. */
  perSource: number;
  /** Most characters of all sources together (the ones that are sent). */
  total: number;
}

/** 16,000 characters per file (about 4k tokens), 48,000 in all (about 12k tokens): every request pays for them. */
export const DEFAULT_INSTRUCTION_CAPS: InstructionCaps = { perSource: 16_000, total: 48_000 };

/** A source before the caps: its whole text (originalChars: when only part of a big file was read). */
export type UncappedSource = Omit<InstructionSource, 'truncated' | 'originalChars'> & { originalChars?: number };

/**
 * Apply the caps in order: each source is cut to `perSource`, then what is left of `total` (earlier
 * sources first; a later one may be cut further or sent empty with its note). A source that is not
 * sent (untrusted workspace) keeps no text and uses none of the budget. Cuts fall on a line end when
 * one is near the limit.
 */
export function capInstructions(sources: readonly UncappedSource[], caps: InstructionCaps = DEFAULT_INSTRUCTION_CAPS): InstructionSource[] {
  let left = Math.max(0, caps.total);
  return sources.map((s) => {
    const originalChars = Math.max(s.originalChars ?? 0, s.text.length);
    if (!s.sent) return { ...s, text: '', truncated: false, originalChars };
    const limit = Math.min(Math.max(0, caps.perSource), left);
    const text = s.text.length <= limit ? s.text : cutAtLine(s.text, limit);
    left -= text.length;
    return { ...s, text, truncated: text.length < originalChars, originalChars };
  });
}

function cutAtLine(text: string, limit: number): string {
  const head = text.slice(0, limit);
  const nl = head.lastIndexOf('\n');
  return nl >= limit * 0.8 ? head.slice(0, nl) : head;
}

/** The note a cut source carries (the model and the user read the same words). */
export function cutNote(s: InstructionSource): string {
  const kept = s.text.length.toLocaleString('en-US');
  const all = s.originalChars.toLocaleString('en-US');
  return `[Cut to fit the instruction caps: ${kept} of ${all} characters of ${s.name} are included.]`;
}

function heading(s: InstructionSource): string {
  if (s.kind === 'setting') return `## ${s.name} (the user's own instructions, from their settings)`;
  if (s.kind === 'chat') return `## ${s.name}`;
  return `## ${s.name}`;
}

/** The instruction sources that are sent, each under its name; '' when none is. */
export function renderInstructions(sources: readonly InstructionSource[]): string {
  const sent = sources.filter((s) => s.sent && (s.text.trim() !== '' || s.truncated));
  if (sent.length === 0) return '';
  const parts = [
    '# Standing instructions',
    "These come from the project's instruction files and from the user. They are sent with every request, outside the " +
      'conversation history (no compaction removes them): follow them. A nested file (e.g. packages/api/AGENTS.md) applies to ' +
      'work in its folder.',
  ];
  for (const s of sent) parts.push([heading(s), s.text.trimEnd(), ...(s.truncated ? [cutNote(s)] : [])].join('\n'));
  return parts.join('\n\n');
}

/** The task list as a checklist; '' when it is empty. */
export function renderTodo(items: readonly TodoItem[]): string {
  if (items.length === 0) return '';
  return [
    '# Task list',
    'Your current task list (set with the todo tool; the user can edit it too). It is kept outside the conversation history, so ' +
      'it is complete after any compaction. Keep it current; the work is done when every item is done.',
    renderTodoLines(items),
  ].join('\n\n');
}

/** The whole standing section appended to the system prompt ('' when there is nothing to send). */
export function renderStanding(s: StandingContext): string {
  return [renderInstructions(s.instructions), renderTodo(s.todo)].filter((p) => p !== '').join('\n\n');
}

/**
 * The system prompt a request sends: the base prompt, then the standing instructions. The task list is
 * not in it: it changes as the work goes, and a changed system prompt would make the provider re-write
 * the whole cached conversation; it travels as the request's trailer instead (todoTrailer).
 */
export function systemWithStanding(base: string, s: StandingContext | undefined): string {
  const section = s ? renderInstructions(s.instructions) : '';
  return section === '' ? base : `${base}\n\n${section}`;
}

/**
 * The task list as the last block of a request, after its last cache breakpoint: sent with every request
 * (outside the history, so no compaction drops it) without invalidating the cached prefix; '' when empty.
 */
export function todoTrailer(s: StandingContext | undefined): string {
  return s ? renderTodo(s.todo) : '';
}
