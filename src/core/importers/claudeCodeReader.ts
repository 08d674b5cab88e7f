// Reads the lines of a Claude Code session (already filtered to one chain and put in reading order) into
// contexts: one per stretch between recorded compactions. Each stretch is assembled on its own, so the
// context before a compaction is exactly what the model saw then, and the last stretch (the compaction's
// summary plus what followed) is the current context.
import {
  hasToolResults,
  isToolResult,
  type ArtefactKind,
  type ContentBlock,
  type Message,
  type RecordedUsage,
  type ToolResultBlock,
} from '../conversation/conversation';
import { checkContent } from '../conversation/messageShape';
import { Assembler, nonBlank } from './assembler';
import { attachmentText, SkippedAttachments } from './claudeCodeAttachments';
import { artefactKindOf, isCommandStub, userText } from './claudeCodeArtefacts';
import { PromptQueue } from './claudeCodeQueue';
import { recordedModel, recordedUsage } from './claudeCodeUsage';
import { describe, failAt, isObject, timestampMs, type JsonLine } from './json';
import { LOOP_ITEMS_PER_STEP, type ImportSteps } from './steps';
import type { RecordedCompaction } from './types';

/** A user or assistant line, parsed. */
export interface ClaudeEntry {
  line: number;
  id: string;
  type: 'user' | 'assistant';
  content: string | ContentBlock[];
  messageId?: string;
  compactSummary: boolean;
  isMeta: boolean;
  parentUuid?: string;
  createdAt?: number;
}

type CompactionMarker = Omit<RecordedCompaction, 'before' | 'summary'>;

interface Stretch {
  assembler: Assembler;
  /** The compaction that opened this stretch (none for the first). */
  compaction?: CompactionMarker;
  /** Opened by a compaction whose summary has not been read yet. */
  awaitingSummary: boolean;
  /** Nothing was added to it yet. */
  empty: boolean;
  summaryId?: string;
  /** Lines a preservedSegment kept through the compaction that opened this stretch, read after its summary. */
  keep?: readonly JsonLine[];
  /** Ids of the kept messages read into this stretch: their usage belongs to the calls before the compaction. */
  kept?: Set<string>;
  /**
   * Settled (a later compaction closed it; nothing is added to it again): its messages, finished once, and
   * the warnings about the calls it left open (reported with the others at the end).
   */
  settled?: { messages: Message[]; warnings: string[]; decorated: number; compaction?: RecordedCompaction };
  /** A fork's current stretch still shares its assembler with the reader it was forked from (copied on write). */
  borrowed?: boolean;
}

export interface ReadResult {
  messages: Message[];
  compactions: RecordedCompaction[];
  model?: string;
}

/** Numbers the changes to decorations, across readers and their forks (which share settled stretches). */
let decorationChanges = 0;

const REDACTED_SUMMARY = /^(\s*This session is being continued[^\n]*\n+)?\s*(\[?REDACTED\]?)?\s*$/;

export class ClaudeCodeReader {
  private readonly stretches: Stretch[] = [];
  private readonly artefacts = new Map<string, ArtefactKind>();
  private readonly usage = new Map<string, RecordedUsage>();
  private readonly queue: PromptQueue;
  private readonly skippedAttachments = new SkippedAttachments();
  private model: string | undefined;
  private lastResponseId: string | undefined;
  /** Ids of slash-command stub lines: an isMeta line answering one (parentUuid) is the command's body. */
  private readonly stubs = new Set<string>();
  /** With no parentUuid links: the body is the line right after its stub. */
  private previousWasStub = false;
  private lastStub: string | undefined;
  /** Set anew when an artefact or a usage that may decorate a settled message changes: settled stretches are decorated again. */
  private changes = 0;

  constructor(
    private readonly file: string,
    readonly warnings: string[],
    forked?: { queue: PromptQueue },
  ) {
    this.queue = forked?.queue ?? new PromptQueue(file, warnings);
    if (!forked) this.stretches.push({ assembler: new Assembler(file, warnings), awaitingSummary: false, empty: true });
  }

  private get current(): Stretch {
    return this.stretches[this.stretches.length - 1];
  }

  /**
   * A copy that can be fed and finished without changing this reader (a snapshot of a followed session).
   * Settled stretches are shared; the current stretch's assembler is copied only if the copy adds to it.
   */
  fork(): ClaudeCodeReader {
    const warnings = [...this.warnings];
    const copy = new ClaudeCodeReader(this.file, warnings, { queue: this.queue.clone(warnings) });
    for (const s of this.stretches) copy.stretches.push(s.settled ? s : { ...s, borrowed: true });
    for (const [id, kind] of this.artefacts) copy.artefacts.set(id, kind);
    for (const [id, usage] of this.usage) copy.usage.set(id, usage);
    for (const id of this.stubs) copy.stubs.add(id);
    copy.skippedAttachments.addAll(this.skippedAttachments);
    copy.model = this.model;
    copy.lastResponseId = this.lastResponseId;
    copy.previousWasStub = this.previousWasStub;
    copy.lastStub = this.lastStub;
    copy.changes = this.changes;
    return copy;
  }

  /** The current stretch's assembler, to add to (a fork copies the one it shares first). */
  private get assembler(): Assembler {
    const s = this.current;
    if (s.borrowed) {
      s.assembler = s.assembler.clone(this.warnings);
      s.borrowed = false;
    }
    return s.assembler;
  }

  private setArtefact(id: string, kind: ArtefactKind): void {
    const was = this.artefacts.get(id);
    if (was !== undefined && was !== kind) this.changes = ++decorationChanges;
    this.artefacts.set(id, kind);
  }

  private setUsage(id: string, usage: RecordedUsage): void {
    if (this.usage.has(id)) this.changes = ++decorationChanges;
    this.usage.set(id, usage);
  }

  assistant(entry: ClaudeEntry, message: Record<string, unknown>): void {
    const newResponse = entry.messageId === undefined || entry.messageId !== this.lastResponseId;
    if (newResponse) this.flushQueued();
    this.lastResponseId = entry.messageId;
    this.previousWasStub = false;
    const model = recordedModel(message);
    if (model !== undefined) this.model = model;
    const blocks = nonBlank(typeof entry.content === 'string' ? [{ type: 'text', text: entry.content }] : entry.content);
    if (blocks.length === 0) return;
    const id = this.target(entry.line).assistant(blocks, entry.line, entry.id, entry.createdAt, entry.messageId);
    // Claude Code writes one line per content block, each with its response's usage: the last line of a
    // response carries the final output count. Should one message hold several responses (lines with no
    // message.id merge into the message before them), it keeps the LAST response's usage: that call's input
    // includes everything before it, so it is the one that says what this context cost.
    const usage = recordedUsage(message, `${this.file}:${entry.line}`, this.warnings);
    if (usage) this.setUsage(id, usage);
  }

  user(entry: ClaudeEntry): void {
    if (entry.compactSummary) return this.summary(entry);
    const stub = !entry.isMeta
      ? undefined
      : entry.parentUuid !== undefined
        ? entry.parentUuid
        : this.previousWasStub
          ? this.lastStub
          : undefined;
    const body = stub !== undefined && this.stubs.has(stub);
    this.previousWasStub = false;
    const blocks = typeof entry.content === 'string' ? undefined : nonBlank(entry.content);
    const results = blocks?.filter(isToolResult).map(normalizeResult) ?? [];
    if (results.length > 0) {
      const others = (blocks ?? []).filter((b) => !isToolResult(b));
      this.target(entry.line).results(results, others, entry.line, entry.id, entry.createdAt);
      const kind = artefactKindOf(userText(others), entry.isMeta);
      if (kind) this.setArtefact(entry.id, kind);
      return;
    }
    const content = blocks ?? entry.content;
    const text = userText(content);
    if (typeof content === 'string' ? content.trim() === '' : content.length === 0) return;
    // A custom slash command: the stub (`<command-name>/gsd:progress</command-name><command-args>…`) is what
    // the person typed, the genuine prompt; the template expansion the harness sent after it (isMeta, answering
    // the stub) is read by the model as a 'meta' artefact. A stub with no body (a built-in command such as
    // /clear, answered by <local-command-stdout>) stays a 'command' artefact.
    const kind = body ? 'meta' : artefactKindOf(text, entry.isMeta);
    if (body && stub !== undefined && this.artefacts.delete(stub)) this.changes = ++decorationChanges;
    if (kind === undefined || kind === 'notification') this.queue.delivered(text);
    this.flushQueued();
    this.target(entry.line).prompt(content, entry.line, entry.id, entry.createdAt);
    if (kind) this.setArtefact(entry.id, kind);
    if (kind === 'command' && isCommandStub(text)) {
      this.stubs.add(entry.id);
      this.previousWasStub = true;
      this.lastStub = entry.id;
    }
  }

  queueOperation(l: JsonLine): void {
    this.queue.operation(l);
  }

  attachment(l: JsonLine): void {
    const attachment = l.value.attachment;
    if (!isObject(attachment)) {
      return failAt(this.file, l.line)('attachment', `expected the attachment object, got ${describe(attachment)}`);
    }
    if (attachment.type === 'queued_command') return this.queue.attachment(l, attachment);
    const found = attachmentText(attachment);
    if (!found)
      return this.skippedAttachments.add(typeof attachment.type === 'string' ? attachment.type : describe(attachment.type), l.line);
    const id = typeof l.value.uuid === 'string' && l.value.uuid !== '' ? l.value.uuid : `claude_${l.line}`;
    this.target(l.line).prompt(found.text, l.line, id, timestampMs(l.value.timestamp));
    this.setArtefact(id, found.artefact);
  }

  /**
   * A `compact_boundary` line: the context so far is closed; what follows opens with its summary, then the
   * lines its preservedSegment kept (`keep`, read again after the summary: claudeCodePreserved.ts).
   */
  boundary(l: JsonLine, keep: readonly JsonLine[] = []): void {
    const meta = isObject(l.value.compactMetadata) ? l.value.compactMetadata : {};
    const trigger = meta.trigger === 'auto' || meta.trigger === 'manual' ? meta.trigger : 'unknown';
    const preTokens = typeof meta.preTokens === 'number' && Number.isFinite(meta.preTokens) ? meta.preTokens : null;
    this.openStretch({ source: 'claude-code-jsonl', trigger, preTokens, line: l.line, at: timestampMs(l.value.timestamp) });
    if (keep.length > 0) this.current.keep = keep;
  }

  /** The messages and compactions read, as steps (see steps.ts). The reader is spent: finish a fork() to read on. */
  *finish(): ImportSteps<ReadResult> {
    this.flushQueued();
    if (this.current.awaitingSummary) this.ensureSummary(this.current.compaction?.line ?? 0);
    this.queue.finish();
    for (const w of this.skippedAttachments.warnings(this.file)) this.warnings.push(w);
    const contexts: Message[][] = [];
    for (const s of this.stretches) {
      if (s.settled) {
        for (const w of s.settled.warnings) this.warnings.push(w);
        if (s.settled.decorated !== this.changes) {
          yield* this.decorate(s.settled.messages, s.kept);
          s.settled.decorated = this.changes;
        }
        contexts.push(s.settled.messages);
      } else {
        const messages = s.borrowed ? s.assembler.snapshot(this.warnings) : yield* s.assembler.finishSteps();
        contexts.push(yield* this.decorate(messages, s.kept));
      }
    }
    const compactions: RecordedCompaction[] = [];
    for (let i = 1; i < this.stretches.length; i++) {
      const s = this.stretches[i];
      const marker = s.compaction as CompactionMarker;
      const compaction = s.settled?.compaction ?? {
        ...marker,
        before: contexts[i - 1],
        summary: contexts[i].filter((m) => m.id === s.summaryId),
      };
      // Between two settled stretches, it is settled too.
      if (s.settled) s.settled.compaction = compaction;
      compactions.push(compaction);
    }
    return { messages: contexts[contexts.length - 1], compactions, model: this.model };
  }

  private summary(entry: ClaudeEntry): void {
    // A summary with no boundary line before it (older Claude Code versions) is its own compaction marker.
    if (!this.current.awaitingSummary && !this.current.empty) {
      this.openStretch({ source: 'claude-code-jsonl', trigger: 'unknown', preTokens: null, line: entry.line, at: entry.createdAt });
    }
    const text = userText(entry.content);
    if (text.trim() === '') return;
    if (REDACTED_SUMMARY.test(text)) {
      this.warnings.push(`${this.file}:${entry.line}: the compaction summary's text was redacted in the recording; kept as recorded`);
    }
    this.assembler.prompt(entry.content, entry.line, entry.id, entry.createdAt, 'summary');
    this.current.awaitingSummary = false;
    this.current.empty = false;
    this.current.summaryId = entry.id;
    this.readKept();
  }

  /** After the summary of a compaction that kept a segment: the kept lines, in their order. */
  private readKept(): void {
    const s = this.current;
    const keep = s.keep;
    if (!keep) return;
    s.keep = undefined;
    s.kept = new Set();
    this.lastResponseId = undefined;
    this.previousWasStub = false;
    for (const l of keep) {
      if (typeof l.value.uuid === 'string') s.kept.add(l.value.uuid);
      if (l.value.type === 'attachment') {
        this.attachment(l);
        continue;
      }
      const { entry, message } = parseClaudeEntry(l, this.file);
      if (entry.type === 'assistant') this.assistant(entry, message);
      else if (!entry.compactSummary) this.user(entry);
    }
    this.lastResponseId = undefined;
  }

  private openStretch(compaction: CompactionMarker): void {
    this.flushQueued();
    if (this.current.awaitingSummary) this.ensureSummary(compaction.line);
    // The stretch it closes is settled: nothing is added to it again.
    const closed = this.current;
    const warnings: string[] = [];
    closed.settled = { messages: this.assembler.finish(warnings), warnings, decorated: -1 };
    this.stretches.push({ assembler: new Assembler(this.file, this.warnings), compaction, awaitingSummary: true, empty: true });
    this.lastResponseId = undefined;
    this.previousWasStub = false;
  }

  /** The assembler of the current stretch, about to receive something read at `line`. */
  private target(line: number): Assembler {
    this.ensureSummary(line);
    this.current.empty = false;
    return this.assembler;
  }

  /** Before anything is added after a compaction whose summary was not recorded: a placeholder in its place. */
  private ensureSummary(line: number): void {
    const s = this.current;
    if (!s.awaitingSummary) return;
    s.awaitingSummary = false;
    const at = s.compaction?.line ?? line;
    const id = `claude_${at}_summary`;
    this.warnings.push(`${this.file}:${at}: compaction without a recorded summary; a placeholder stands in for it`);
    this.assembler.prompt(
      '[Claude Code compacted the conversation here; its summary was not recorded.]',
      at,
      id,
      s.compaction?.at,
      'summary',
    );
    s.summaryId = id;
    this.readKept();
  }

  private flushQueued(): void {
    for (const q of this.queue.takePending()) {
      this.target(q.line).prompt(q.content, q.line, q.id, q.createdAt);
      if (q.artefact) this.setArtefact(q.id, q.artefact);
    }
  }

  private *decorate(messages: Message[], kept?: ReadonlySet<string>): ImportSteps<Message[]> {
    let n = 0;
    for (const m of messages) {
      if (++n % LOOP_ITEMS_PER_STEP === 0) yield;
      const artefact = m.role === 'user' && !m.synthetic && !hasToolResults(m) ? this.artefacts.get(m.id) : undefined;
      if (artefact) m.artefact = artefact;
      else delete m.artefact;
      // A kept message's recorded call was made before the compaction (it is on the archived copy).
      const usage = m.role === 'assistant' && !kept?.has(m.id) ? this.usage.get(m.id) : undefined;
      if (usage) m.usage = usage;
      else delete m.usage;
    }
    return messages;
  }
}

/** A user or assistant line as a ClaudeEntry; shape problems throw an ImportError at FILE:LINE:field. */
export function parseClaudeEntry(l: JsonLine, file: string): { entry: ClaudeEntry; message: Record<string, unknown> } {
  const fail = failAt(file, l.line);
  const v = l.value;
  const type = v.type as 'user' | 'assistant';
  if (!isObject(v.message)) return fail('message', `expected the ${type} message object, got ${describe(v.message)}`);
  const message = v.message;
  if (message.role !== undefined && message.role !== type) {
    fail('message.role', `expected "${type}" (the line's type), got ${describe(message.role)}`);
  }
  const content = checkContent(message.content, 'message.content', fail);
  const entry: ClaudeEntry = {
    line: l.line,
    id: typeof v.uuid === 'string' && v.uuid !== '' ? v.uuid : `claude_${l.line}`,
    type,
    content,
    messageId: typeof message.id === 'string' ? message.id : undefined,
    compactSummary: v.isCompactSummary === true,
    isMeta: v.isMeta === true,
    parentUuid: typeof v.parentUuid === 'string' ? v.parentUuid : undefined,
    createdAt: timestampMs(v.timestamp),
  };
  return { entry, message };
}

function normalizeResult(block: ToolResultBlock): ToolResultBlock {
  if (block.is_error !== null) return block;
  const { is_error: _null, ...rest } = block;
  return rest as ToolResultBlock;
}
