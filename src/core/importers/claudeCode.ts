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
import { activeBranch, relinkResults, UuidIndex } from './claudeCodeBranch';
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
  const { read } = yield* readClaudeCode(lines, file);
  return yield* read.result(read.sink);
}

/** What the passes over a whole file found (a followed file's import goes on from it). */
export interface ClaudeCodeSource {
  /** Every line with a uuid, first occurrence only, in file order. */
  entries: readonly JsonLine[];
  /** The message lines of the chain read (main chain, or sidechain for a sub-agent's own file). */
  messageLines: readonly JsonLine[];
  /** The line each uuid was first seen on. */
  firstLine: Map<string, number>;
}

/** The passes over the lines of a whole file: the read state before any line is read into it, and the order to read the lines in. */
export interface ClaudeCodePlan {
  read: ClaudeCodeRead;
  source: ClaudeCodeSource;
  /** The lines to read, in reading order (relinkResults). */
  order: readonly JsonLine[];
  /** The last message line of the chain read: the lines after it in reading order are the tail. */
  leaf: JsonLine | undefined;
}

/** The passes over a whole file's lines (see ClaudeCodePlan). */
export function* planClaudeCode(lines: readonly JsonLine[], file: string): ImportSteps<ClaudeCodePlan> {
  const repeats: string[] = [];
  const { entries, firstLine } = yield* firstOccurrences(lines, file, repeats);
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
  const messageLines: JsonLine[] = [];
  for (const l of allMessageLines) {
    if (++n % LOOP_ITEMS_PER_STEP === 0) yield;
    if ((l.value.isSidechain === true) === sidechain) messageLines.push(l);
  }
  const uuids = new UuidIndex(entries, firstLine);
  const active = yield* activeBranch(uuids, messageLines, sidechain);
  const passes: string[] = [];
  // The lines each compaction keeps (preservedSegment), gathered as they are read, handed over at the boundary.
  const segments = yield* preservedSegments(uuids, file, passes);
  const read = new ClaudeCodeRead(file, sidechain, active, segments, repeats, passes);
  const order = yield* relinkResults(uuids, file, passes);
  return { read, source: { entries, messageLines, firstLine }, order, leaf: messageLines.at(-1) };
}

/**
 * Reads the lines of a whole file up to the last message line; what follows it (the tail: not on the
 * branch, unless a later message line chains through it) is read by result().
 */
export function* readClaudeCode(lines: readonly JsonLine[], file: string): ImportSteps<{ read: ClaudeCodeRead; source: ClaudeCodeSource }> {
  const { read, source, order, leaf } = yield* planClaudeCode(lines, file);
  let tail = leaf === undefined;
  let n = 0;
  for (const l of order) {
    if (++n % LINES_PER_STEP === 0) yield;
    if (tail) read.tail.push(l);
    else read.read(read.sink, l);
    if (l === leaf) tail = true;
  }
  return { read, source };
}

/** Where the lines are read to: a fork of it reads on without changing the original (a followed file's result). */
export interface ClaudeCodeSink {
  reader: ClaudeCodeReader;
  abandoned: number[];
  rolledBack: Message[];
  unknownTypes: Map<string, number[]>;
}

/** The lines of a Claude Code file read so far, and how each is read (see the file comment). */
export class ClaudeCodeRead {
  sink: ClaudeCodeSink;
  /** Lines after the last message line, in reading order: read (off the branch) only by result(). */
  tail: JsonLine[] = [];
  /** The lines each compact boundary keeps, by the boundary's line. */
  private readonly kept: Map<number, JsonLine[]>;

  constructor(
    readonly file: string,
    /** The chain read is the sidechain (a sub-agent's own file). */
    readonly sidechain: boolean,
    /** The uuids of the current branch; undefined: every line is on it. */
    public active: Set<string> | undefined,
    private readonly segments: ReadonlyMap<number, ReadonlySet<string>>,
    /** Warnings about repeated uuids (reported first). */
    readonly repeats: string[],
    /** Warnings of the passes over the whole file (preserved segments, results read after their call). */
    readonly passes: string[],
  ) {
    this.sink = { reader: new ClaudeCodeReader(file, []), abandoned: [], rolledBack: [], unknownTypes: new Map() };
    this.kept = new Map([...segments.keys()].map((line) => [line, []]));
  }

  onChain(l: JsonLine): boolean {
    return (l.value.isSidechain === true) === this.sidechain;
  }

  onBranch(l: JsonLine): boolean {
    return !this.active || typeof l.value.uuid !== 'string' || this.active.has(l.value.uuid);
  }

  /** Reads one line (in reading order) into `sink`. */
  read(sink: ClaudeCodeSink, l: JsonLine): void {
    const type = l.value.type;
    const { reader } = sink;
    if (type === 'user' || type === 'assistant') {
      if (!this.onChain(l) || l.value.isApiErrorMessage === true) return;
      const { entry, message } = parseClaudeEntry(l, this.file);
      if (!this.onBranch(l)) {
        sink.abandoned.push(l.line);
        const prompt = typedPrompt(entry);
        if (prompt) sink.rolledBack.push(prompt);
        return;
      }
      if (entry.type === 'assistant') reader.assistant(entry, message);
      else reader.user(entry);
      this.keep(l);
    } else if (type === 'attachment') {
      if (!this.onChain(l)) return;
      if (!this.onBranch(l)) return void sink.abandoned.push(l.line);
      reader.attachment(l);
      this.keep(l);
    } else if (type === 'queue-operation') {
      reader.queueOperation(l);
    } else if (type === 'system' && l.value.subtype === 'compact_boundary') {
      if (this.onChain(l) && this.onBranch(l)) reader.boundary(l, this.kept.get(l.line) ?? []);
    } else if (typeof type !== 'string' || !NOT_CONTEXT.has(type)) {
      const key = typeof type === 'string' ? type : String(type);
      const at = sink.unknownTypes.get(key);
      if (at) at.push(l.line);
      else sink.unknownTypes.set(key, [l.line]);
    }
  }

  /** A sink to read on from without changing this one. */
  fork(): ClaudeCodeSink {
    const { reader, abandoned, rolledBack, unknownTypes } = this.sink;
    return {
      reader: reader.fork(),
      abandoned: [...abandoned],
      rolledBack: [...rolledBack],
      unknownTypes: new Map([...unknownTypes].map(([type, at]) => [type, [...at]])),
    };
  }

  /** The import: the tail read into `sink` (this.sink: the reading ends; a fork: it goes on), then the reader finished. */
  *result(sink: ClaudeCodeSink): ImportSteps<ImportResult> {
    let n = 0;
    for (const l of this.tail) {
      if (++n % LINES_PER_STEP === 0) yield;
      this.read(sink, l);
    }
    const { messages, compactions, model } = yield* sink.reader.finish();
    const warnings = [...this.repeats, ...this.passes, ...sink.reader.warnings];
    for (const [type, at] of sink.unknownTypes) {
      warnings.push(`${this.file}:${at[0]}: skipped ${at.length} line(s) of unknown type ${type} (lines ${listLines(at)})`);
    }
    if (sink.abandoned.length > 0) {
      warnings.unshift(
        `${this.file}: skipped ${sink.abandoned.length} message line(s) on branches abandoned by a rewind or an edit (lines ${listLines(sink.abandoned)})`,
      );
    }
    if (messages.length === 0 && compactions.length === 0) warnings.push(`${this.file}: no conversation messages found`);
    const result: ImportResult = { format: 'claude-code-jsonl', messages, compactions, warnings };
    if (model !== undefined) result.model = model;
    if (sink.rolledBack.length > 0) result.rolledBackPrompts = [...sink.rolledBack];
    return result;
  }

  /** A line a compaction's preservedSegment keeps: handed to that boundary when it is read. */
  private keep(l: JsonLine): void {
    const uuid = l.value.uuid;
    if (typeof uuid !== 'string') return;
    for (const [line, uuids] of this.segments) if (line > l.line && uuids.has(uuid)) this.kept.get(line)?.push(l);
  }
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
function* firstOccurrences(
  lines: readonly JsonLine[],
  file: string,
  warnings: string[],
): ImportSteps<{ entries: JsonLine[]; firstLine: Map<string, number> }> {
  const firstLine = new Map<string, number>();
  const entries: JsonLine[] = [];
  let n = 0;
  for (const l of lines) {
    if (++n % LOOP_ITEMS_PER_STEP === 0) yield;
    const uuid = l.value.uuid;
    if (typeof uuid === 'string') {
      const first = firstLine.get(uuid);
      if (first !== undefined) {
        warnings.push(repeatedUuid(file, l.line, uuid, first));
        continue;
      }
      firstLine.set(uuid, l.line);
    }
    entries.push(l);
  }
  return { entries, firstLine };
}

export function repeatedUuid(file: string, line: number, uuid: string, first: number): string {
  return `${file}:${line}: repeats uuid ${uuid} of line ${first}; skipped`;
}

function listLines(lines: readonly number[]): string {
  return lines.slice(0, 10).join(', ') + (lines.length > 10 ? ', …' : '');
}
