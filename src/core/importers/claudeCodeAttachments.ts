// Claude Code `attachment` lines other than queued prompts: what the harness attached to the next model
// call. Each becomes a user-role artefact whose text is what the model read, rendered the way Claude Code
// renders the attachment for the API (its `normalizeAttachmentForAPI`: a meta user message, most of them
// wrapped in `<system-reminder>` tags). The wordings below follow Claude Code 2.1.x:
//
//   invoked_skills           skill text re-attached after each compaction ("The following skills were invoked…")
//   task_reminder / todo_reminder   the task (todo) list with the "haven't been used recently" nudge
//   date_change              "The date has changed. Today's date is now …"
//   deferred_tools_delta     "The following deferred tools are now available via ToolSearch: …" (and removals)
//   agent_listing_delta      "Available agent types for the Agent tool: …" (and additions, removals)
//   mcp_instructions_delta, skill_listing, plan_file_reference, nested_memory, critical_system_reminder,
//   compaction_reminder, task_status, token_usage, budget_usd, selected_lines_in_ide, opened_file_in_ide,
//   hook_success / hook_additional_context / hook_blocking_error / hook_stopped_continuation
//
//   compact_file_reference, edited_text_file   "Note: FILE was read before … / was modified, either by …"
//
// A file re-attached after a compaction (`file`) keeps a short readable form (Claude Code sends it as a Read
// call and its result). Any other type with text is rendered from every string the line records (in the order
// recorded, each under its field name) inside a system reminder: its exact wording is not known, its
// text is. Types Claude Code never sends (NOT_SENT), and lines recording no text, are skipped and
// reported once per type.
import type { ArtefactKind } from '../conversation/conversation';
import { isObject, type Json } from './json';

export interface AttachmentText {
  text: string;
  artefact: ArtefactKind;
}

/** Attachment types Claude Code records but never sends to the model (display, bookkeeping, legacy). */
const NOT_SENT = new Set([
  'already_read_file', 'command_permissions', 'edited_image_file', 'hook_cancelled', 'hook_error_during_execution',
  'hook_non_blocking_error', 'hook_system_message', 'structured_output', 'hook_permission_decision', 'dynamic_skill',
  'autocheckpointing', 'background_task_status', 'todo', 'task_progress', 'ultramemory', 'prompt_snapshot',
  'deferred_tools_record', 'session_context', 'credential_org', 'remote_session_change', 'environment', 'model',
]); // prettier-ignore

/** Claude Code's `wrapInSystemReminder`. */
export function systemReminder(text: string): string {
  return `<system-reminder>\n${text}\n</system-reminder>`;
}

type Renderer = (a: Json) => string | undefined;

const reminder = (text: string | undefined): string | undefined => (text === undefined ? undefined : systemReminder(text));
const joined = (parts: Array<string | undefined>): string | undefined => {
  const present = parts.filter((p): p is string => p !== undefined);
  return present.length === 0 ? undefined : present.join('\n\n');
};

/**
 * The renderers by type, and the artefact kind each produces ('attachment': content; 'notification': a reminder;
 * 'instructions': a CLAUDE.md memory file, the project's standing rules).
 */
const RENDERERS: Record<string, [Renderer, ArtefactKind]> = {
  invoked_skills: [(a) => {
    const skills = objects(a.skills);
    if (skills.length === 0) return undefined;
    const body = skills.map((s) => `### Skill: ${str(s.name)}\nPath: ${str(s.path)}\n\n${str(s.content)}`).join('\n\n---\n\n');
    return systemReminder(`The following skills were invoked in this session. Continue to follow these guidelines:\n\n${body}`);
  }, 'attachment'],
  task_reminder: [(a) => {
    const items = objects(a.content).map((t) => `#${str(t.id)}. [${str(t.status)}] ${str(t.subject)}`).join('\n');
    let text =
      "The task tools haven't been used recently. If you're working on tasks that would benefit from tracking progress, " +
      'consider using TaskCreate to add new tasks and TaskUpdate to update task status (set to in_progress when starting, ' +
      'completed when done). Also consider cleaning up the task list if it has become stale. Only use these if relevant ' +
      'to the current work. This is just a gentle reminder - ignore if not applicable. Make sure that you NEVER mention ' +
      'this reminder to the user\n';
    if (items.length > 0) text += `\n\nHere are the existing tasks:\n\n${items}`;
    return systemReminder(text);
  }, 'notification'],
  todo_reminder: [(a) => {
    const items = objects(a.content).map((t, i) => `${i + 1}. [${str(t.status)}] ${str(t.content)}`).join('\n');
    let text =
      "The TodoWrite tool hasn't been used recently. If you're working on tasks that would benefit from tracking progress, " +
      'consider using the TodoWrite tool to track progress. Also consider cleaning up the todo list if has become stale ' +
      "and no longer matches what you are working on. Only use it if it's relevant to the current work. This is just a " +
      'gentle reminder - ignore if not applicable. Make sure that you NEVER mention this reminder to the user\n';
    if (items.length > 0) text += `\n\nHere are the existing contents of your todo list:\n\n[${items}]`;
    return systemReminder(text);
  }, 'notification'],
  date_change: [(a) => typeof a.newDate !== 'string' ? undefined : systemReminder(
    `The date has changed. Today's date is now ${a.newDate}. DO NOT mention this to the user explicitly because they are already aware.`,
  ), 'notification'],
  deferred_tools_delta: [(a) => reminder(joined([
    lines(a.addedLines, 'The following deferred tools are now available via ToolSearch:'),
    lines(
      a.removedNames,
      'The following deferred tools are no longer available (their MCP server disconnected). ' +
        'Do not search for them — ToolSearch will return no match:',
    ),
  ])), 'notification'],
  agent_listing_delta: [(a) => reminder(joined([
    lines(a.addedLines, a.isInitial === true ? 'Available agent types for the Agent tool:' : 'New agent types are now available for the Agent tool:'),
    strings(a.removedTypes).length === 0 ? undefined
      : `The following agent types are no longer available:\n${strings(a.removedTypes).map((t) => `- ${t}`).join('\n')}`,
    a.isInitial === true && a.showConcurrencyNote === true && strings(a.addedLines).length > 0
      ? 'Launch multiple agents concurrently whenever possible, to maximize performance; ' +
        'to do that, use a single message with multiple tool uses.'
      : undefined,
  ])), 'notification'],
  mcp_instructions_delta: [(a) => reminder(joined([
    strings(a.addedBlocks).length === 0 ? undefined
      : '# MCP Server Instructions\n\nThe following MCP servers have provided instructions for how to use their tools ' +
        `and resources:\n\n${strings(a.addedBlocks).join('\n\n')}`,
    lines(a.removedNames, 'The following MCP servers have disconnected. Their instructions above no longer apply:'),
  ])), 'notification'],
  skill_listing: [(a) => typeof a.content !== 'string' || a.content === '' ? undefined
    : systemReminder(`The following skills are available for use with the Skill tool:\n\n${a.content}`), 'notification'],
  plan_file_reference: [(a) => typeof a.planContent !== 'string' ? undefined : systemReminder(
    `A plan file exists from plan mode at: ${str(a.planFilePath)}\n\nPlan contents:\n\n${a.planContent}\n\n` +
      'If this plan is relevant to the current work and not already complete, continue working on it.',
  ), 'attachment'],
  nested_memory: [(a) => !isObject(a.content) || typeof a.content.content !== 'string' ? undefined
    : systemReminder(`Contents of ${str(a.content.path ?? a.path)}:\n\n${a.content.content}`), 'instructions'],
  critical_system_reminder: [(a) => typeof a.content === 'string' ? systemReminder(a.content) : undefined, 'notification'],
  compaction_reminder: [() => systemReminder(
    'Auto-compact is enabled. When the context window is nearly full, older messages will be automatically summarized so you ' +
      'can continue working seamlessly. There is no need to stop or rush — you have unlimited context through automatic compaction.',
  ), 'notification'],
  task_status: [taskStatus, 'notification'],
  compact_file_reference: [(a) => fileName(a) === undefined ? undefined : systemReminder(
    `Note: ${fileName(a)} was read before the last conversation was summarized, but the contents are too large to include. ` +
      'Use Read tool if you need to access it.',
  ), 'attachment'],
  edited_text_file: [(a) => fileName(a) === undefined || typeof a.snippet !== 'string' ? undefined : systemReminder(
    `Note: ${fileName(a)} was modified, either by the user or by a linter. This change was intentional, so make sure to take ` +
      "it into account as you proceed (ie. don't revert it unless the user asks you to). Don't tell the user this, since they " +
      `are already aware. Here are the relevant changes (shown with line numbers):\n${a.snippet}`,
  ), 'attachment'],
  token_usage: [(a) => systemReminder(`Token usage: ${str(a.used)}/${str(a.total)}; ${str(a.remaining)} remaining`), 'notification'],
  budget_usd: [(a) => systemReminder(`USD budget: $${str(a.used)}/$${str(a.total)}; $${str(a.remaining)} remaining`), 'notification'],
  selected_lines_in_ide: [(a) => typeof a.content !== 'string' ? undefined : systemReminder(
    `The user selected the lines ${str(a.lineStart)} to ${str(a.lineEnd)} from ${str(a.filename)}:\n` +
      `${a.content.length > 2000 ? `${a.content.substring(0, 2000)}\n... (truncated)` : a.content}\n\nThis may or may not be related to the current task.`,
  ), 'attachment'],
  opened_file_in_ide: [(a) => typeof a.filename !== 'string' ? undefined : systemReminder(
    `The user opened the file ${a.filename} in the IDE. This may or may not be related to the current task.`,
  ), 'attachment'],
  // Claude Code sends the output of SessionStart and UserPromptSubmit hooks only.
  hook_success: [(a) => typeof a.content !== 'string' || a.content === '' || !['SessionStart', 'UserPromptSubmit'].includes(str(a.hookEvent))
    ? undefined : systemReminder(`${str(a.hookName)} hook success: ${a.content}`), 'notification'],
  hook_additional_context: [(a) => strings(a.content).length === 0 ? undefined
    : systemReminder(`${str(a.hookName)} hook additional context: ${strings(a.content).join('\n')}`), 'notification'],
  hook_blocking_error: [(a) => !isObject(a.blockingError) ? undefined : systemReminder(
    `${str(a.hookName)} hook blocking error from command: "${str(a.blockingError.command)}": ${str(a.blockingError.blockingError)}`,
  ), 'notification'],
  hook_stopped_continuation: [(a) => typeof a.message !== 'string' ? undefined
    : systemReminder(`${str(a.hookName)} hook stopped continuation: ${a.message}`), 'notification'],
}; // prettier-ignore

/** The text the model was given for an attachment, or undefined when the line records none it sends. */
export function attachmentText(attachment: Json): AttachmentText | undefined {
  const type = typeof attachment.type === 'string' ? attachment.type : '';
  if (NOT_SENT.has(type)) return undefined;
  const known = RENDERERS[type];
  if (known) {
    const text = known[0](attachment);
    return text === undefined || text.trim() === '' ? undefined : { text, artefact: known[1] };
  }
  const path = firstString(attachment.displayPath, attachment.filename, attachment.path, attachment.filePath);
  switch (type) {
    case 'file': {
      const body = fileBody(attachment.content);
      const name =
        path ??
        (isObject(attachment.content) && isObject(attachment.content.file) ? firstString(attachment.content.file.filePath) : undefined);
      if (body === undefined && name === undefined) return undefined;
      return { text: `Attached file ${name ?? '(unnamed)'}${body !== undefined ? `:\n${body}` : ''}`, artefact: 'attachment' };
    }
    default:
      return otherAttachment(attachment, type, path);
  }
}

/**
 * A type this importer does not know the wording of: every string it records (`field: text`, nested fields
 * as `a.b`), in a system reminder. Faithful to the text, not to Claude Code's wording, which is unknown.
 */
function otherAttachment(attachment: Json, type: string, path: string | undefined): AttachmentText | undefined {
  const first = firstString(attachment.content, attachment.prompt, attachment.snippet);
  if (first !== undefined && first.trim() !== '') {
    return { text: path !== undefined ? `${path}:\n${first}` : first, artefact: type.startsWith('hook') ? 'notification' : 'attachment' };
  }
  const fields: string[] = [];
  collectStrings(attachment, '', fields);
  if (fields.length === 0) return undefined;
  return { text: systemReminder(`${type}:\n${fields.join('\n')}`), artefact: type.startsWith('hook') ? 'notification' : 'attachment' };
}

function collectStrings(value: unknown, at: string, out: string[]): void {
  if (typeof value === 'string') {
    if (value.trim() !== '' && at !== 'type') out.push(`${at}: ${value}`);
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => collectStrings(v, `${at}[${i}]`, out));
  } else if (isObject(value as Json)) {
    for (const [k, v] of Object.entries(value as Json)) collectStrings(v, at === '' ? k : `${at}.${k}`, out);
  }
}

function taskStatus(a: Json): string | undefined {
  const status = a.status === 'killed' ? 'stopped' : str(a.status);
  if (a.status === 'killed') return systemReminder(`Task "${str(a.description)}" (${str(a.taskId)}) was stopped by the user.`);
  if (a.status === 'running') {
    const parts = [`Background agent "${str(a.description)}" (${str(a.taskId)}) is still running.`];
    if (typeof a.deltaSummary === 'string' && a.deltaSummary !== '') parts.push(`Progress: ${a.deltaSummary}`);
    parts.push(
      typeof a.outputFilePath === 'string'
        ? 'Do NOT spawn a duplicate. You will be notified when it completes. ' +
            `You can read partial output at ${a.outputFilePath} or send it a message with SendMessage.`
        : 'Do NOT spawn a duplicate. You will be notified when it completes. ' +
            'You can check its progress with the TaskOutput tool or send it a message with SendMessage.',
    );
    return systemReminder(parts.join(' '));
  }
  const parts = [`Task ${str(a.taskId)}`, `(type: ${str(a.taskType)})`, `(status: ${status})`, `(description: ${str(a.description)})`];
  if (typeof a.deltaSummary === 'string' && a.deltaSummary !== '') parts.push(`Delta: ${a.deltaSummary}`);
  parts.push(
    typeof a.outputFilePath === 'string'
      ? `Read the output file to retrieve the result: ${a.outputFilePath}`
      : 'You can check its output using the TaskOutput tool.',
  );
  return systemReminder(parts.join(' '));
}

function lines(value: unknown, header: string): string | undefined {
  const list = strings(value);
  return list.length === 0 ? undefined : `${header}\n${list.join('\n')}`;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function objects(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter((v): v is Json => isObject(v as Json)) : [];
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}

/** The file an attachment names, as Claude Code writes it in its text (`filename`, the absolute path). */
function fileName(a: Json): string | undefined {
  return firstString(a.filename, a.displayPath, a.path, a.filePath);
}

function fileBody(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!isObject(content as Json)) return undefined;
  const c = content as Json;
  if (isObject(c.file) && typeof c.file.content === 'string') return c.file.content;
  return typeof c.content === 'string' ? c.content : undefined;
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

  /** Adds what `other` holds (a fork starts as a copy). */
  addAll(other: SkippedAttachments): void {
    for (const [type, lines] of other.byType) for (const line of lines) this.add(type, line);
  }

  warnings(file: string): string[] {
    return [...this.byType].map(([type, lines]) => {
      const shown = lines.slice(0, 10).join(', ') + (lines.length > 10 ? ', …' : '');
      return `${file}:${lines[0]}: skipped ${lines.length} attachment line(s) of type ${type} with no text for the model (lines ${shown})`;
    });
  }
}
