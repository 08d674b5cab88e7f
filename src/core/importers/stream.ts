// Streamed import of a session file: read in chunks from the file, split into lines and parse each line
// as it arrives, so the whole text, its line array and the parsed lines are never in memory at once (the
// whole-text path, readSessionFile + importSession, peaks at several times the file's size). The thread
// stays free between chunks (each read is awaited).
//
// Same results and errors as importSession(readSessionFile(path), path): the same bounds (regular files
// only, up to MAX_SESSION_FILE_BYTES, checked before a byte is read), the same detection (a file that
// is one JSON document, such as an Anthropic messages array, is handed to the whole-text path, which is
// the only way to parse it), the same line numbers and messages. Claude Code lines that are not context
// are kept slim (slimClaudeCodeLine).
import { open, stat, type FileHandle } from 'node:fs/promises';
import { constants } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { checkStats, formatBytes, MAX_SESSION_FILE_BYTES, readProblem, readSessionFile } from './bounds';
import { claudeCodeSteps, slimClaudeCodeLine } from './claudeCode';
import { ClaudeCodeStream } from './claudeCodeStream';
import { classifyLine, SNIFF_LINES, unrecognised } from './detect';
import { parseJsonLine, parsesAsObject, type JsonLine } from './json';
import { startTracker, type Tracker } from './followTrackers';
import { LINES_PER_STEP, runSteps, runStepsSliced, type ImportSteps } from './steps';
import { ImportError, type ImportResult, type SessionFormat } from './types';
import { importSession } from './whole';

/**
 * Bytes read per chunk: well below V8's large-object size (about 128 KB), so each chunk's text and the lines
 * cut from it are ordinary young objects that die in the next scavenge, rather than large objects (or
 * survivors promoted with a batch of lines still waiting) that only a full collection frees.
 */
const CHUNK_BYTES = 64 * 1024;

export interface StreamImportOptions {
  /** The largest file read (default MAX_SESSION_FILE_BYTES). */
  maxBytes?: number;
  /** Bytes read per chunk (default CHUNK_BYTES). */
  chunkBytes?: number;
  /** Called after every chunk with the bytes read so far and the file's size. */
  onProgress?: (bytes: number, size: number) => void;
}

/**
 * The lines of a JSONL file, parsed as they are read and handed to the importer of their format: Codex and
 * Splitpoint lines are read into their line-by-line importers at once (nothing kept but the result), Claude
 * Code lines are kept slim for the passes over the whole file (its branch and reading order). An importer's
 * error waits until every line is parsed: a line that does not parse is reported first, as when the lines
 * were imported after reading.
 */
class JsonlCollector {
  private format: SessionFormat | undefined;
  /** Parsed lines before the format is known (at most SNIFF_LINES). */
  private head: JsonLine[] = [];
  private nonBlank = 0;
  /** The file is one JSON document (or not JSONL at all): read it whole. */
  wholeFile = false;
  /** Claude Code, read as it streams (claudeCodeStream.ts): the first pass over a Claude Code file. */
  readonly claudeCode: ClaudeCodeStream | undefined;
  /** Claude Code, read again: every line, slim (slimClaudeCodeLine), for the passes over the whole file. */
  readonly kept: JsonLine[] = [];
  /** Codex and Splitpoint: the line-by-line import a followed file uses too (followTrackers.ts). */
  private tracker: Tracker | undefined;
  /** The importer's first error (thrown once every line parsed). */
  private failure: { error: unknown } | undefined;

  /** keepLines: keep every Claude Code line (the second read of a file the streamed read could not take). */
  constructor(
    private readonly file: string,
    keepLines = false,
  ) {
    if (!keepLines) this.claudeCode = new ClaudeCodeStream(file);
  }

  /** The lines of one chunk, as steps (the event loop gets turns between them). */
  *lines(batch: readonly RawLine[]): ImportSteps<void> {
    for (let i = 0; i < batch.length; i++) {
      if (i > 0 && i % LINES_PER_STEP === 0) yield;
      this.line(batch[i].raw, batch[i].line);
    }
  }

  private line(raw: string, line: number): void {
    if (this.wholeFile) return;
    this.nonBlank++;
    if (this.nonBlank === 1 && (raw.trimStart().startsWith('[') || !parsesAsObject(raw))) {
      // An array, a pretty-printed document, or invalid JSON on the first line: the whole-text path decides.
      this.wholeFile = true;
      return;
    }
    const value = parseJsonLine(raw, line, this.file);
    if (this.format) {
      this.keep({ line, value });
      return;
    }
    this.head.push({ line, value });
    this.format = classifyLine(value);
    if (!this.format && this.head.length >= SNIFF_LINES) throw unrecognised(this.file);
    if (this.format) {
      if (this.format !== 'claude-code-jsonl') this.tracker = startTracker(this.format, this.file);
      for (const l of this.head) this.keep(l);
      this.head = [];
    }
  }

  /**
   * The format of a file whose lines were all read, or undefined when the whole-text path must read the file.
   * Throws the importer's error.
   */
  finish(): SessionFormat | undefined {
    // One non-blank line may be a whole JSON document (an object with `messages`).
    if (this.wholeFile || this.nonBlank <= 1) return undefined;
    if (!this.format) throw unrecognised(this.file);
    if (this.failure) throw this.failure.error;
    return this.format;
  }

  /** The import of a Codex or Splitpoint file (read line by line already). */
  result(): ImportResult {
    if (!this.tracker) throw new Error('JsonlCollector: no line-by-line import');
    return runSteps(this.tracker.result());
  }

  private keep(l: JsonLine): void {
    if (this.format === 'claude-code-jsonl') {
      if (this.claudeCode) this.claudeCode.line(l);
      else this.kept.push({ line: l.line, value: slimClaudeCodeLine(l.value) });
      return;
    }
    if (this.failure) return;
    try {
      this.tracker?.line(l);
    } catch (error) {
      this.failure = { error };
    }
  }
}

interface RawLine {
  raw: string;
  line: number;
}

/** Splits decoded text into lines (\n, with a \r before it dropped), across chunk boundaries. */
export class LineSplitter {
  private parts: string[] = [];
  private lineNo = 0;
  private first = true;

  constructor(private readonly onLine: (raw: string, line: number) => void) {}

  push(text: string): void {
    if (this.first && text.length > 0) {
      this.first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      this.parts.push(text.slice(start, nl));
      this.emit();
      start = nl + 1;
    }
    if (start < text.length) this.parts.push(text.slice(start));
  }

  end(): void {
    if (this.parts.length > 0) this.emit();
  }

  private emit(): void {
    let raw = this.parts.length === 1 ? this.parts[0] : this.parts.join('');
    this.parts = [];
    this.lineNo++;
    if (raw.endsWith('\r')) raw = raw.slice(0, -1);
    if (raw.trim() !== '') this.onLine(raw, this.lineNo);
  }
}

/** Import the session file at `path`, streamed (see the file comment). Rejects with an ImportError naming file, line and field. */
export async function importSessionFile(path: string, options: StreamImportOptions = {}): Promise<ImportResult> {
  const first = await collect(path, options, false);
  // A whole JSON document, a one-line file or an empty one: the whole-text path reads (or refuses) it.
  const format = first.finish();
  if (format !== 'claude-code-jsonl') return imported(first, format, path, options);
  const streamed = first.claudeCode && (await runStepsSliced(first.claudeCode.result()));
  if (streamed) return streamed;
  // Not one linear chain in file order (or an importer error, reported in its place): read again, every line kept.
  const again = await collect(path, options, true);
  return imported(again, again.finish(), path, options);
}

/** The import of the lines a collector read (Claude Code: with every line kept). */
async function imported(
  collector: JsonlCollector,
  format: SessionFormat | undefined,
  path: string,
  options: StreamImportOptions,
): Promise<ImportResult> {
  if (format === 'claude-code-jsonl') return runStepsSliced(claudeCodeSteps(collector.kept, path));
  if (format === 'codex-rollout-jsonl' || format === 'splitpoint-jsonl') return collector.result();
  return importSession(readSessionFile(path, options.maxBytes ?? MAX_SESSION_FILE_BYTES), path);
}

/** The lines of the file at `path`, read into a collector. */
async function collect(path: string, options: StreamImportOptions, keepLines: boolean): Promise<JsonlCollector> {
  const collector = new JsonlCollector(path, keepLines);
  // A Claude Code file the one-pass read gave up on is read again from the start: no need to read on.
  await readLines(path, options, (batch) => (collector.wholeFile || collector.claudeCode?.givenUp ? undefined : collector.lines(batch)));
  return collector;
}

/**
 * Reads the file in chunks and hands each chunk's complete lines to `batch` (steps run in slices, the
 * event loop between them; undefined: stop reading).
 */
async function readLines(
  path: string,
  options: StreamImportOptions,
  batch: (lines: readonly RawLine[]) => ImportSteps<void> | undefined,
): Promise<void> {
  const maxBytes = options.maxBytes ?? MAX_SESSION_FILE_BYTES;
  let handle: FileHandle;
  try {
    checkStats(path, await stat(path), maxBytes);
    // O_NONBLOCK: if a FIFO was swapped in after the check, opening it does not wait for a writer.
    handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (e) {
    if (e instanceof ImportError) throw e;
    throw new ImportError(path, undefined, undefined, readProblem(e));
  }
  try {
    const st = await handle.stat();
    checkStats(path, st, maxBytes);
    const size = st.size;
    let lines: RawLine[] = [];
    const splitter = new LineSplitter((raw, line) => lines.push({ raw, line }));
    const handOn = async (): Promise<boolean> => {
      const steps = batch(lines);
      lines = [];
      if (!steps) return false;
      await runStepsSliced(steps);
      return true;
    };
    const decoder = new StringDecoder('utf8');
    const buffer = Buffer.allocUnsafe(options.chunkBytes ?? CHUNK_BYTES);
    let total = 0;
    for (;;) {
      const { bytesRead } = await readChunk(handle, buffer, path);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > maxBytes) {
        throw new ImportError(path, undefined, undefined, `the file grew past the ${formatBytes(maxBytes)} limit for a session file`);
      }
      splitter.push(decoder.write(buffer.subarray(0, bytesRead)));
      const goOn = await handOn();
      options.onProgress?.(total, size);
      if (!goOn) break;
    }
    splitter.push(decoder.end());
    splitter.end();
    await handOn();
  } finally {
    await handle.close();
  }
}

async function readChunk(handle: FileHandle, buffer: Buffer, path: string): Promise<{ bytesRead: number }> {
  try {
    return await handle.read(buffer, 0, buffer.length, null);
  } catch (e) {
    throw new ImportError(path, undefined, undefined, readProblem(e));
  }
}
