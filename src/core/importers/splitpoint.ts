// Splitpoint JSONL: one Message per line, optionally after a header line. Exact round trip between the
// serializers here and importSplitpointJsonl; messages are checked by the one message-shape validator the
// session log and transcripts use too.
//
// Version 1 (serializeSplitpointJsonl): messages only; the header, when present, is the first line.
// Version 2 (serializeSplitpointSession) holds a whole imported session and loses nothing of it:
//   {"type":"splitpoint.header","version":2, importedFrom?, contextWindow?, model?, warnings?, rolledBackPrompts?, ...}
//   (rolledBackPrompts: the messages of ImportResult.rolledBackPrompts, typed but no longer in any context)
//   messages of the context compaction 1 replaced (its `before`)
//   {"type":"splitpoint.compaction","source":…,"trigger":…,"preTokens":…,"line":…,"at"?:…,"summaryMessages":n}
//   n message lines: what replaced it (its `summary`), the start of the next context
//   messages that followed, … the next compaction line, …, up to the current context's last message.
// A reader keeps a running context: a message line appends to it, a compaction line archives it as that
// compaction's `before` and starts a new one with the n summary lines that follow. When a compaction's
// `before` is not the running context plus new messages, the writer first emits a
// {"type":"splitpoint.context"} line: the running context restarts empty (nothing in it is lost: it was the
// previous compaction's summary, kept there). A message kept across a compaction (Codex replacement
// histories keep user messages) is written again in the summary; a repeated id is reported only within one
// context.
import type { Message, RecordedUsage } from '../conversation/conversation';
import { checkMessage, isFiniteNumber } from '../conversation/messageShape';
import { describe, failAt, type Fail, type Json, type JsonLine } from './json';
import {
  SESSION_FORMATS,
  SPLITPOINT_FORMAT_VERSION,
  SPLITPOINT_HEADER_TYPE,
  SPLITPOINT_SESSION_VERSION,
  type ImportResult,
  type RecordedCompaction,
  type SessionFormat,
  type SplitpointHeader,
  type SplitpointHeaderFields,
} from './types';
import { LINES_PER_STEP, runSteps, type ImportSteps } from './steps';

export const SPLITPOINT_COMPACTION_TYPE = 'splitpoint.compaction';
export const SPLITPOINT_CONTEXT_TYPE = 'splitpoint.context';

/** Header fields a version 2 file derives from the session it holds (written by serializeSplitpointSession). */
const SESSION_HEADER_FIELDS = ['importedFrom', 'contextWindow', 'model', 'warnings', 'rolledBackPrompts'] as const;

/** Write messages (and an optional header) as version 1 Splitpoint JSONL; importSession reads it back unchanged. */
export function serializeSplitpointJsonl(messages: readonly Message[], header?: SplitpointHeaderFields | SplitpointHeader): string {
  const lines: string[] = [];
  if (header) {
    const { type: _type, version: _version, ...rest } = header;
    lines.push(JSON.stringify({ type: SPLITPOINT_HEADER_TYPE, version: SPLITPOINT_FORMAT_VERSION, ...rest }));
  }
  for (const m of messages) lines.push(messageLine(m));
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

/** A whole session as an import sees it: the current context, the recorded compactions and what the recording said. */
export interface SplitpointSession {
  messages: readonly Message[];
  compactions: readonly RecordedCompaction[];
  /** The format the session was imported from (omitted for Splitpoint's own sessions). */
  importedFrom?: SessionFormat;
  contextWindow?: number;
  model?: string;
  warnings?: readonly string[];
  /** Prompts a rollback removed (ImportResult.rolledBackPrompts). */
  rolledBackPrompts?: readonly Message[];
}

/**
 * Write a session (its archived history, recorded compactions and current context) as version 2
 * Splitpoint JSONL. Reading it back gives the same messages, compactions, window, model and warnings.
 */
export function serializeSplitpointSession(session: SplitpointSession, header?: SplitpointHeaderFields | SplitpointHeader): string {
  const lines = [JSON.stringify(sessionHeader(session, header))];
  let context: string[] = [];
  const writeContext = (target: readonly Message[]) => {
    const encoded = target.map(messageLine);
    if (!context.every((line, i) => encoded[i] === line)) {
      lines.push(JSON.stringify({ type: SPLITPOINT_CONTEXT_TYPE }));
      context = [];
    }
    for (let i = context.length; i < encoded.length; i++) lines.push(encoded[i]);
  };
  for (const c of session.compactions) {
    writeContext(c.before);
    lines.push(compactionLine(c));
    context = c.summary.map(messageLine);
    for (const line of context) lines.push(line);
  }
  writeContext(session.messages);
  return `${lines.join('\n')}\n`;
}

/** serializeSplitpointSession of an ImportResult (a Splitpoint file keeps the format it was imported from). */
export function serializeImportResult(result: ImportResult): string {
  const importedFrom = result.format === 'splitpoint-jsonl' ? (result.header?.importedFrom as SessionFormat | undefined) : result.format;
  const session: SplitpointSession = { messages: result.messages, compactions: result.compactions, warnings: result.warnings };
  if (importedFrom !== undefined) session.importedFrom = importedFrom;
  if (result.contextWindow !== undefined) session.contextWindow = result.contextWindow;
  if (result.model !== undefined) session.model = result.model;
  if (result.rolledBackPrompts !== undefined) session.rolledBackPrompts = result.rolledBackPrompts;
  return serializeSplitpointSession(session, result.header);
}

function sessionHeader(session: SplitpointSession, header: SplitpointHeaderFields | SplitpointHeader | undefined): Json {
  const out: Json = { type: SPLITPOINT_HEADER_TYPE, version: SPLITPOINT_SESSION_VERSION };
  for (const [key, value] of Object.entries(header ?? {})) {
    if (key !== 'type' && key !== 'version' && !(SESSION_HEADER_FIELDS as readonly string[]).includes(key)) out[key] = value;
  }
  if (session.importedFrom !== undefined) out.importedFrom = session.importedFrom;
  if (session.contextWindow !== undefined) out.contextWindow = session.contextWindow;
  if (session.model !== undefined) out.model = session.model;
  if (session.warnings && session.warnings.length > 0) out.warnings = [...session.warnings];
  if (session.rolledBackPrompts && session.rolledBackPrompts.length > 0) {
    out.rolledBackPrompts = session.rolledBackPrompts.map(canonicalMessage) as unknown as Json[];
  }
  return out;
}

function compactionLine(c: RecordedCompaction): string {
  const out: Json = { type: SPLITPOINT_COMPACTION_TYPE, source: c.source, trigger: c.trigger, preTokens: c.preTokens, line: c.line };
  if (c.at !== undefined) out.at = c.at;
  out.summaryMessages = c.summary.length;
  return JSON.stringify(out);
}

function messageLine(m: Message): string {
  return JSON.stringify(canonicalMessage(m));
}

function canonicalMessage(m: Message): Message {
  const out: Message = { id: m.id, role: m.role, content: m.content };
  if (m.synthetic !== undefined) out.synthetic = m.synthetic;
  if (m.truncated !== undefined) out.truncated = m.truncated;
  if (m.createdAt !== undefined) out.createdAt = m.createdAt;
  if (m.artefact !== undefined) out.artefact = m.artefact;
  if (m.usage !== undefined) out.usage = canonicalUsage(m.usage);
  return out;
}

function canonicalUsage(u: RecordedUsage): RecordedUsage {
  const out: RecordedUsage = {
    inputTokens: u.inputTokens,
    cacheReadTokens: u.cacheReadTokens,
    cacheCreationTokens: u.cacheCreationTokens,
    outputTokens: u.outputTokens,
  };
  if (u.cacheWrite1hTokens !== undefined) out.cacheWrite1hTokens = u.cacheWrite1hTokens;
  if (u.model !== undefined) out.model = u.model;
  if (u.contextWindow !== undefined) out.contextWindow = u.contextWindow;
  return out;
}

/** A compaction whose summary lines are still being read. */
interface PendingSummary {
  compaction: RecordedCompaction;
  line: number;
  expected: number;
}

export function importSplitpointJsonl(lines: readonly JsonLine[], file: string): ImportResult {
  return runSteps(splitpointSteps(lines, file));
}

/** importSplitpointJsonl as steps (see steps.ts). */
export function* splitpointSteps(lines: readonly JsonLine[], file: string): ImportSteps<ImportResult> {
  const reader = new SplitpointReader(file);
  for (let index = 0; index < lines.length; index++) {
    if (index > 0 && index % LINES_PER_STEP === 0) yield;
    reader.line(lines[index]);
  }
  return reader.result();
}

/** Reads a Splitpoint JSONL file line by line; result() is the import of the lines so far, and reading can go on. */
export class SplitpointReader {
  private readonly warnings: string[] = [];
  private readonly compactions: RecordedCompaction[] = [];
  private context: Message[] = [];
  private idLines = new Map<string, number>();
  private header: SplitpointHeader | undefined;
  private pending: PendingSummary | undefined;
  private lines = 0;

  constructor(private readonly file: string) {}

  line({ line, value }: JsonLine): void {
    const index = this.lines++;
    const fail = failAt(this.file, line);
    if (value.type === SPLITPOINT_HEADER_TYPE) {
      if (index !== 0) fail('type', 'the header must be the first line of the file');
      this.header = checkHeader(value, fail);
      return;
    }
    if (value.type === SPLITPOINT_COMPACTION_TYPE) {
      const before = this.context;
      this.startContext(line, fail);
      const { compaction, expected } = checkCompaction(value, line, before, fail);
      this.compactions.push(compaction);
      this.pending = expected > 0 ? { compaction, line, expected } : undefined;
      return;
    }
    if (value.type === SPLITPOINT_CONTEXT_TYPE) return this.startContext(line, fail);
    if (typeof value.type === 'string' && value.type.startsWith('splitpoint.')) fail('type', `unknown line type ${describe(value.type)}`);
    const message = checkMessage(value, fail);
    const first = this.idLines.get(message.id);
    if (first !== undefined) this.warnings.push(`${this.file}:${line}: duplicate message id ${message.id} (also on line ${first})`);
    else this.idLines.set(message.id, line);
    this.context.push(message);
    const pending = this.pending;
    if (pending) {
      pending.compaction.summary.push(message);
      if (pending.compaction.summary.length === pending.expected) this.pending = undefined;
    }
  }

  /** The import of the lines read so far (a compaction still short of its summary lines is an error, as at the end of a file). */
  result(): ImportResult {
    if (this.pending) summaryTooShort(this.file, this.pending, undefined);
    // Copies: the context (and the last compaction's summary) grow as lines are read on.
    const compactions = this.compactions.map((c, i) => (i === this.compactions.length - 1 ? { ...c, summary: [...c.summary] } : c));
    const result: ImportResult = { format: 'splitpoint-jsonl', messages: [...this.context], compactions, warnings: [...this.warnings] };
    const header = this.header;
    if (header) {
      result.header = header;
      if (header.warnings !== undefined) result.warnings = [...(header.warnings as string[]), ...this.warnings];
      if (header.contextWindow !== undefined) result.contextWindow = header.contextWindow as number;
      if (header.model !== undefined) result.model = header.model as string;
      if (header.rolledBackPrompts !== undefined) result.rolledBackPrompts = header.rolledBackPrompts as Message[];
    }
    return result;
  }

  private startContext(line: number, fail: Fail): void {
    if (this.header?.version !== SPLITPOINT_SESSION_VERSION) {
      fail('type', `a ${SPLITPOINT_COMPACTION_TYPE} or ${SPLITPOINT_CONTEXT_TYPE} line needs a version 2 header on the first line`);
    }
    if (this.pending) summaryTooShort(this.file, this.pending, line);
    this.context = [];
    this.idLines = new Map();
  }
}

function summaryTooShort(file: string, pending: PendingSummary, at: number | undefined): never {
  const found = pending.compaction.summary.length;
  const where = at === undefined ? 'the end of the file' : `line ${at}`;
  return failAt(file, pending.line)(
    'summaryMessages',
    `expected ${pending.expected} summary message line${pending.expected === 1 ? '' : 's'} after it, found ${found} before ${where}`,
  );
}

const TRIGGERS: ReadonlySet<string> = new Set<RecordedCompaction['trigger']>(['auto', 'manual', 'unknown']);

function checkCompaction(value: Json, line: number, before: Message[], fail: Fail): { compaction: RecordedCompaction; expected: number } {
  if (typeof value.source !== 'string' || !(value.source in SESSION_FORMATS)) {
    fail('source', `expected one of ${Object.keys(SESSION_FORMATS).join(', ')}, got ${describe(value.source)}`);
  }
  if (typeof value.trigger !== 'string' || !TRIGGERS.has(value.trigger)) {
    fail('trigger', `expected one of ${[...TRIGGERS].join(', ')}, got ${describe(value.trigger)}`);
  }
  if (value.preTokens !== null && !isCount(value.preTokens)) {
    fail('preTokens', `expected a non-negative integer or null, got ${describe(value.preTokens)}`);
  }
  if (value.line !== undefined && (!isCount(value.line) || value.line === 0)) {
    fail('line', `expected a positive integer, got ${describe(value.line)}`);
  }
  if (value.at !== undefined && !isFiniteNumber(value.at)) fail('at', `expected epoch milliseconds, got ${describe(value.at)}`);
  if (!isCount(value.summaryMessages)) fail('summaryMessages', `expected a non-negative integer, got ${describe(value.summaryMessages)}`);
  const compaction: RecordedCompaction = {
    source: value.source as SessionFormat,
    trigger: value.trigger as RecordedCompaction['trigger'],
    preTokens: value.preTokens as number | null,
    line: (value.line as number | undefined) ?? line,
    before,
    summary: [],
  };
  if (value.at !== undefined) compaction.at = value.at as number;
  return { compaction, expected: value.summaryMessages as number };
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

function checkHeader(value: Json, fail: Fail): SplitpointHeader {
  if (value.version !== SPLITPOINT_FORMAT_VERSION && value.version !== SPLITPOINT_SESSION_VERSION) {
    fail(
      'version',
      `unsupported Splitpoint JSONL version ${describe(value.version)} ` +
        `(this build reads versions ${SPLITPOINT_FORMAT_VERSION} and ${SPLITPOINT_SESSION_VERSION})`,
    );
  }
  if (value.sessionId !== undefined && typeof value.sessionId !== 'string')
    fail('sessionId', `expected a string, got ${describe(value.sessionId)}`);
  if (value.createdAt !== undefined && !isFiniteNumber(value.createdAt))
    fail('createdAt', `expected epoch milliseconds, got ${describe(value.createdAt)}`);
  if (value.version === SPLITPOINT_SESSION_VERSION) checkSessionHeader(value, fail);
  return value as SplitpointHeader;
}

function checkSessionHeader(value: Json, fail: Fail): void {
  if (value.importedFrom !== undefined && (typeof value.importedFrom !== 'string' || !(value.importedFrom in SESSION_FORMATS))) {
    fail('importedFrom', `expected one of ${Object.keys(SESSION_FORMATS).join(', ')}, got ${describe(value.importedFrom)}`);
  }
  if (value.contextWindow !== undefined && (!isCount(value.contextWindow) || value.contextWindow === 0)) {
    fail('contextWindow', `expected a positive integer, got ${describe(value.contextWindow)}`);
  }
  if (value.model !== undefined && typeof value.model !== 'string') fail('model', `expected a string, got ${describe(value.model)}`);
  if (value.warnings !== undefined) {
    if (!Array.isArray(value.warnings)) fail('warnings', `expected an array of strings, got ${describe(value.warnings)}`);
    value.warnings.forEach((w: unknown, i: number) => {
      if (typeof w !== 'string') fail(`warnings[${i}]`, `expected a string, got ${describe(w)}`);
    });
  }
  if (value.rolledBackPrompts !== undefined) {
    if (!Array.isArray(value.rolledBackPrompts))
      fail('rolledBackPrompts', `expected an array of messages, got ${describe(value.rolledBackPrompts)}`);
    value.rolledBackPrompts = value.rolledBackPrompts.map((m: unknown, i: number) =>
      checkMessage(m, (field, detail) => fail(`rolledBackPrompts[${i}]${field ? `.${field}` : ''}`, detail)),
    );
  }
}
