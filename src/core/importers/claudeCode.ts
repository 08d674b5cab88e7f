// Claude Code session JSONL (~/.claude/projects/<project>/<session>.jsonl) as the model saw it.
//
// What is read (the main chain; a sub-agent's own agent-*.jsonl, all sidechain, is read as its own chain):
//  - user and assistant lines of the current branch (parentUuid links; turns abandoned by a rewind or an
//    edit are skipped, with one warning listing their lines; the prompts typed on them are kept in
//    ImportResult.rolledBackPrompts). Assistant lines sharing `message.id` (one line per content block) are
//    one message, which carries the response's recorded `usage` and model.
//  - `compact_boundary` system lines: a recorded compaction (trigger and preTokens from `compactMetadata`).
//    The context before it is archived in RecordedCompaction.before; the `isCompactSummary` user line after
//    it is the summary (synthetic 'summary'); `messages` is the last summary plus what followed it. A segment
//    the compaction kept (`compactMetadata.preservedSegment`, Claude Code >= 2.1.170) follows the summary in
//    the next context too (claudeCodePreserved.ts).
//  - prompts typed while the agent worked (`queue-operation` lines, `attachment` lines of type
//    `queued_command`), in the place the model read them: after the tool results, before the next response;
//    the queue's background-task records and built-in commands are not prompts (claudeCodeQueue.ts).
//  - `isMeta` lines: a custom slash command's `<command-name>` stub is the prompt (what was typed), its
//    template body (the isMeta line answering the stub) a 'meta' artefact; other isMeta lines are 'meta'.
//  - other `attachment` lines (skills, reminders, files re-attached after a compaction, hook output…):
//    artefacts, rendered as Claude Code sends them (claudeCodeAttachments.ts).
//  - tool_result lines written before their tool_use line are read after it (claudeCodeBranch.ts).
// Artefacts (claudeCodeArtefacts.ts) are shown, never counted as genuine prompts or turn starts.
//
// Not context, skipped without a warning because the model never read them: sidechain lines of the main
// file (a sub-agent's own context), API-error lines Claude Code wrote itself (`isApiErrorMessage`),
// `summary` (session titles), `file-history-snapshot`, `progress`, other `system` lines (turn durations,
// hook summaries), `pr-link`, `custom-title`, `tag`, `last-prompt`, `permission-mode`, `mode`. A line type
// not in this list is skipped with one warning per type. Everything else that is skipped (a repeated
// uuid, a tool call with no result, a result with no call, an attachment with no text, a queued prompt
// that was never sent) is a `FILE:LINE: what` warning.
import { activeBranch, relinkResults } from './claudeCodeBranch';
import { preservedSegments } from './claudeCodePreserved';
import { ClaudeCodeReader, parseClaudeEntry, type ClaudeEntry } from './claudeCodeReader';
import { artefactKindOf, userText } from './claudeCodeArtefacts';
import { nonBlank } from './assembler';
import { isToolResult, type Message } from '../conversation/conversation';
import type { Json, JsonLine } from './json';
import { LINES_PER_STEP, LOOP_ITEMS_PER_STEP, runSteps, type ImportSteps } from './steps';
import type { ImportResult } from './types';

const NOT_CONTEXT = new Set([
  'summary',
  'file-history-snapshot',
  'progress',
  'system',
  'pr-link',
  'custom-title',
  'tag',
  'last-prompt',
  'permission-mode',
  'mode',
]);

export function importClaudeCode(lines: readonly JsonLine[], file: string): ImportResult {
  return runSteps(claudeCodeSteps(lines, file));
}

/** importClaudeCode as steps (see steps.ts). */
export function* claudeCodeSteps(lines: readonly JsonLine[], file: string): ImportSteps<ImportResult> {
  const warnings: string[] = [];
  const entries = yield* firstOccurrences(lines, file, warnings);
  // A sub-agent's own transcript (agent-*.jsonl) is all sidechain: then the sidechain is the conversation.
  const allMessageLines: JsonLine[] = [];
  let allSidechain = true;
  let n = 0;
  for (const l of entries) {
    if (++n % LOOP_ITEMS_PER_STEP === 0) yield;
    if (l.value.type !== 'user' && l.value.type !== 'assistant') continue;
    allMessageLines.push(l);
    if (l.value.isSidechain !== true) allSidechain = false;
  }
  const sidechain = allMessageLines.length > 0 && allSidechain;
  const onChain = (l: JsonLine): boolean => (l.value.isSidechain === true) === sidechain;
  const messageLines: JsonLine[] = [];
  for (const l of allMessageLines) {
    if (++n % LOOP_ITEMS_PER_STEP === 0) yield;
    if (onChain(l)) messageLines.push(l);
  }
  const active = yield* activeBranch(entries, messageLines, sidechain);
  const onBranch = (l: JsonLine): boolean => !active || typeof l.value.uuid !== 'string' || active.has(l.value.uuid);

  const reader = new ClaudeCodeReader(file, warnings);
  // The lines each compaction keeps (preservedSegment), gathered as they are read, handed over at the boundary.
  const segments = yield* preservedSegments(entries, file, warnings);
  const kept = new Map<number, JsonLine[]>([...segments.keys()].map((line) => [line, []]));
  const keep = (l: JsonLine): void => {
    const uuid = l.value.uuid;
    if (typeof uuid !== 'string') return;
    for (const [line, uuids] of segments) if (line > l.line && uuids.has(uuid)) kept.get(line)?.push(l);
  };
  const abandoned: number[] = [];
  const rolledBack: Message[] = [];
  const unknownTypes = new Map<string, number[]>();
  let handled = 0;
  for (const l of yield* relinkResults(entries, file, warnings)) {
    if (++handled % LINES_PER_STEP === 0) yield;
    const type = l.value.type;
    if (type === 'user' || type === 'assistant') {
      if (!onChain(l) || l.value.isApiErrorMessage === true) continue;
      const { entry, message } = parseClaudeEntry(l, file);
      if (!onBranch(l)) {
        abandoned.push(l.line);
        const prompt = typedPrompt(entry);
        if (prompt) rolledBack.push(prompt);
      } else if (entry.type === 'assistant') reader.assistant(entry, message);
      else reader.user(entry);
      if (onBranch(l)) keep(l);
    } else if (type === 'attachment') {
      if (!onChain(l)) continue;
      if (!onBranch(l)) abandoned.push(l.line);
      else reader.attachment(l);
      if (onBranch(l)) keep(l);
    } else if (type === 'queue-operation') {
      reader.queueOperation(l);
    } else if (type === 'system' && l.value.subtype === 'compact_boundary') {
      if (onChain(l) && onBranch(l)) reader.boundary(l, kept.get(l.line) ?? []);
    } else if (typeof type !== 'string' || !NOT_CONTEXT.has(type)) {
      const key = typeof type === 'string' ? type : String(type);
      const at = unknownTypes.get(key);
      if (at) at.push(l.line);
      else unknownTypes.set(key, [l.line]);
    }
  }
  const { messages, compactions, model } = yield* reader.finish();
  for (const [type, at] of unknownTypes) {
    warnings.push(`${file}:${at[0]}: skipped ${at.length} line(s) of unknown type ${type} (lines ${listLines(at)})`);
  }
  if (abandoned.length > 0) {
    warnings.unshift(
      `${file}: skipped ${abandoned.length} message line(s) on branches abandoned by a rewind or an edit (lines ${listLines(abandoned)})`,
    );
  }
  if (messages.length === 0 && compactions.length === 0) warnings.push(`${file}: no conversation messages found`);
  const result: ImportResult = { format: 'claude-code-jsonl', messages, compactions, warnings };
  if (model !== undefined) result.model = model;
  if (rolledBack.length > 0) result.rolledBackPrompts = rolledBack;
  return result;
}

/** A prompt a person typed on a branch a rewind or an edit abandoned (the same rules as on the branch). */
function typedPrompt(entry: ClaudeEntry): Message | undefined {
  if (entry.type !== 'user' || entry.compactSummary || entry.isMeta) return undefined;
  const content = typeof entry.content === 'string' ? entry.content : nonBlank(entry.content);
  if (typeof content !== 'string' && (content.length === 0 || content.some(isToolResult))) return undefined;
  const text = userText(content);
  if ((typeof content === 'string' && text.trim() === '') || artefactKindOf(text, false) !== undefined) return undefined;
  const message: Message = { id: entry.id, role: 'user', content };
  if (entry.createdAt !== undefined) message.createdAt = entry.createdAt;
  return message;
}

/** The fields of a line that the import reads when the line is not context (the branch's links, its type). */
const LINK_FIELDS = ['type', 'subtype', 'uuid', 'parentUuid', 'logicalParentUuid', 'isSidechain', 'isCompactSummary'] as const;

/**
 * `value` as the import needs it: whole for the lines it reads (user, assistant, attachment, queue-operation
 * and compact-boundary lines; a user line without `toolUseResult`), else only its links and type. A streamed import keeps slim lines, so the
 * progress and snapshot lines of a long session (often most of the file) are not held in memory.
 */
export function slimClaudeCodeLine(value: Json): Json {
  const type = value.type;
  if (type === 'user' && 'toolUseResult' in value) {
    // Claude Code's own copy of a tool's output (often as large as the result itself): the import never reads it.
    const { toolUseResult: _unread, ...rest } = value;
    return rest;
  }
  if (type === 'user' || type === 'assistant' || type === 'attachment' || type === 'queue-operation') return value;
  if (type === 'system' && value.subtype === 'compact_boundary') return value;
  const slim: Json = {};
  for (const k of LINK_FIELDS) if (k in value) slim[k] = value[k];
  return slim;
}

/** Every line with a uuid, first occurrence only (resumed sessions can repeat lines). */
function* firstOccurrences(lines: readonly JsonLine[], file: string, warnings: string[]): ImportSteps<JsonLine[]> {
  const firstLine = new Map<string, number>();
  const entries: JsonLine[] = [];
  let n = 0;
  for (const l of lines) {
    if (++n % LOOP_ITEMS_PER_STEP === 0) yield;
    const uuid = l.value.uuid;
    if (typeof uuid === 'string') {
      const first = firstLine.get(uuid);
      if (first !== undefined) {
        warnings.push(`${file}:${l.line}: repeats uuid ${uuid} of line ${first}; skipped`);
        continue;
      }
      firstLine.set(uuid, l.line);
    }
    entries.push(l);
  }
  return entries;
}

function listLines(lines: readonly number[]): string {
  return lines.slice(0, 10).join(', ') + (lines.length > 10 ? ', …' : '');
}
