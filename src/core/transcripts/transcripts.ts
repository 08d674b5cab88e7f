// Transcripts: before any compaction that removes or rewrites messages, the full history is written
// as JSONL (a header line, then one message per line) with temp file + fsync + rename, so a transcript
// is either complete or absent. Loading is tolerant: a corrupt line is reported with file and line,
// and every other line is still read. The folder must not be a symbolic link (a repo can ship a
// `.transcripts` link that points anywhere), and each transcript's SHA-256 is recorded so an undo
// refuses a transcript edited since (it would inject messages into the model's history).
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { Message } from '../conversation/conversation';
import { errorMessage, SplitpointError } from '../base/errors';
import { cleanStaleTempFiles, nodeStorageFs, writeFileAtomic, type StorageFs } from '../base/fsAtomic';
import { isRecord, messageProblem } from '../conversation/messageShape';

export const TRANSCRIPT_HEADER_TYPE = 'splitpoint.transcript';

export interface TranscriptHeader {
  type: typeof TRANSCRIPT_HEADER_TYPE;
  version: 1;
  sessionId: string;
  createdAt: number;
  /** Why the transcript was written (e.g. "compaction: recursive-summarization"). */
  reason: string;
  messageCount: number;
}

export class TranscriptWriteError extends SplitpointError {
  constructor(
    readonly path: string,
    cause: unknown,
  ) {
    super(`Could not write the transcript ${path}: ${errorMessage(cause)}. Compaction was not applied; the history is unchanged.`);
    this.name = 'TranscriptWriteError';
  }
}

export interface TranscriptLineError {
  file: string;
  line: number;
  message: string;
}

export interface LoadedTranscript {
  path: string;
  header: TranscriptHeader | null;
  messages: Message[];
  /** Lines that could not be read (the rest of the file still was). */
  errors: TranscriptLineError[];
}

/** Serialize a header and messages as JSONL (exactly what `parseTranscript` reads back). */
export function serializeTranscript(header: TranscriptHeader, messages: readonly Message[]): string {
  let out = JSON.stringify(header) + '\n';
  for (const m of messages) out += JSON.stringify(m) + '\n';
  return out;
}

export function transcriptFileName(sessionId: string, now = Date.now()): string {
  const safe = sessionId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || 'session';
  return `transcript_${now}_${safe}.jsonl`;
}

export interface TranscriptStoreOptions {
  /** Folder for transcripts (default `.transcripts` under the workspace, chosen by the host). */
  dir: string;
  /**
   * No folder from here down to `dir` may be a symbolic link (the workspace root, when the folder is
   * inside it). Without it only `dir` itself is checked.
   */
  root?: string;
  /** Injected for tests (fault injection). */
  write?: (path: string, text: string) => void;
  /** The file system layer of the default atomic write (tests spy on the call order). */
  fs?: StorageFs;
  now?: () => number;
}

export interface SavedTranscript {
  path: string;
  /** SHA-256 (hex) of the file's bytes. */
  sha256: string;
}

export function sha256Hex(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Throws if `dir`, or a folder between `root` and it, is a symbolic link. A missing folder is fine (it is created). */
export function assertNoSymlinkedFolder(dir: string, root?: string): void {
  const target = resolve(dir);
  const base = root !== undefined ? resolve(root) : undefined;
  const inside = base !== undefined && (target === base || target.startsWith(base + sep)) ? base : dirname(target);
  let current = inside;
  for (const part of relative(inside, target)
    .split(sep)
    .filter((p) => p.length > 0)) {
    current = join(current, part);
    let isLink: boolean;
    try {
      isLink = lstatSync(current).isSymbolicLink();
    } catch {
      return;
    }
    if (isLink) throw new Error(`${current} is a symbolic link; transcripts are never written through a link (a repository can ship one)`);
  }
}

export class TranscriptStore {
  /** Opening the store removes the temp files a write killed mid-way left in its folder (never through a symlinked folder). */
  constructor(private readonly options: TranscriptStoreOptions) {
    try {
      assertNoSymlinkedFolder(options.dir, options.root);
      cleanStaleTempFiles(options.dir);
    } catch {
      // A symlinked folder: save() refuses it and says so; nothing is removed through it.
    }
  }

  get dir(): string {
    return this.options.dir;
  }

  /** Save the full history; throws TranscriptWriteError (and nothing is written) on failure. */
  save(sessionId: string, messages: readonly Message[], reason: string): string {
    return this.saveTranscript(sessionId, messages, reason).path;
  }

  /** save(), and the SHA-256 of what was written (for the compaction record). */
  saveTranscript(sessionId: string, messages: readonly Message[], reason: string): SavedTranscript {
    let now = (this.options.now ?? Date.now)();
    let path = join(this.options.dir, transcriptFileName(sessionId, now));
    // Two compactions in the same millisecond must not overwrite each other's transcript.
    while (existsSync(path)) path = join(this.options.dir, transcriptFileName(sessionId, ++now));
    const header: TranscriptHeader = {
      type: TRANSCRIPT_HEADER_TYPE,
      version: 1,
      sessionId,
      createdAt: now,
      reason,
      messageCount: messages.length,
    };
    const text = serializeTranscript(header, messages);
    try {
      assertNoSymlinkedFolder(this.options.dir, this.options.root);
      cleanStaleTempFiles(this.options.dir);
      const fs = this.options.fs ?? nodeStorageFs;
      (this.options.write ?? ((p: string, t: string) => writeFileAtomic(p, t, fs)))(path, text);
    } catch (e) {
      throw new TranscriptWriteError(path, e);
    }
    return { path, sha256: sha256Hex(text) };
  }

  /** Transcripts in the folder, newest first (optionally only one session's). */
  list(sessionId?: string): string[] {
    let names: string[];
    try {
      names = readdirSync(this.options.dir);
    } catch {
      return [];
    }
    const suffix = sessionId ? `_${sessionId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64)}.jsonl` : '.jsonl';
    return names
      .filter((n) => n.startsWith('transcript_') && n.endsWith(suffix))
      .sort((a, b) => Number(b.split('_')[1]) - Number(a.split('_')[1]))
      .map((n) => join(this.options.dir, n));
  }
}

/** Read a transcript file; corrupt lines are collected in `errors`, the rest is still read. */
export function loadTranscript(path: string): LoadedTranscript {
  return parseTranscript(readFileSync(path, 'utf8'), path);
}

export function parseTranscript(text: string, file: string): LoadedTranscript {
  const errors: TranscriptLineError[] = [];
  const messages: Message[] = [];
  let header: TranscriptHeader | null = null;
  const lines = text.split('\n');
  lines.forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (e) {
      errors.push({ file, line, message: `invalid JSON: ${errorMessage(e)}` });
      return;
    }
    if (isRecord(value) && value.type === TRANSCRIPT_HEADER_TYPE) {
      if (header === null && messages.length === 0) header = value as unknown as TranscriptHeader;
      else errors.push({ file, line, message: 'unexpected header line after the start of the transcript' });
      return;
    }
    const problem = messageProblem(value);
    if (problem) {
      errors.push({ file, line, message: problem });
      return;
    }
    messages.push(value as Message);
  });
  return { path: file, header, messages, errors };
}

export class TranscriptCorruptError extends SplitpointError {
  constructor(readonly errors: TranscriptLineError[]) {
    super(
      `The transcript has unreadable lines, so it cannot be restored exactly:\n${errors.map((e) => `  ${e.file}:${e.line}: ${e.message}`).join('\n')}`,
    );
    this.name = 'TranscriptCorruptError';
  }
}

export class TranscriptChangedError extends SplitpointError {
  constructor(
    readonly path: string,
    readonly expected: string,
    readonly actual: string,
  ) {
    super(
      `The transcript ${path} was changed after the compaction (SHA-256 ${actual.slice(0, 12)}…, recorded ${expected.slice(0, 12)}…). ` +
        "Undo was refused so that edited content does not enter the model's history; the history is unchanged.",
    );
    this.name = 'TranscriptChangedError';
  }
}

/**
 * The exact history a transcript holds (undo). Refuses a transcript with unreadable lines and, when the
 * compaction recorded its SHA-256, one whose bytes changed since.
 */
export function restoreTranscript(path: string, expectedSha256?: string): Message[] {
  const bytes = readFileSync(path);
  if (expectedSha256 !== undefined) {
    const actual = sha256Hex(bytes);
    if (actual !== expectedSha256) throw new TranscriptChangedError(path, expectedSha256, actual);
  }
  const t = parseTranscript(bytes.toString('utf8'), path);
  if (t.errors.length > 0) throw new TranscriptCorruptError(t.errors);
  if (t.header && t.header.messageCount !== t.messages.length) {
    throw new TranscriptCorruptError([
      { file: path, line: 1, message: `header says ${t.header.messageCount} messages, file holds ${t.messages.length}` },
    ]);
  }
  return t.messages;
}
