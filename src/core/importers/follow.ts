// Following a session file that an agent is still writing (Claude Code, Codex, Splitpoint JSONL): each
// poll() reads only the bytes appended since the last one, waits for a partial last line to end, and
// gives the import of the file's complete lines so far, equal to importSessionFile() of a file holding
// exactly those lines. A file that shrank or was rewritten is read again from the start ('truncated'), so
// is one replaced by another (rename over it: 'replaced'); a deleted one reports `gone`.
//
// Errors are those of importSessionFile (an ImportError naming the file, the line and the field): an empty
// file or one with no complete line yet is 'the file is empty'; a file in no known format is refused once
// detection has read enough lines. The follower keeps going after an error: the next poll that finds new
// lines tries again (a malformed line stays malformed, so its error repeats).
//
// The import is kept between polls (followTrackers.ts): the new lines are read into it and a result is a
// snapshot of it, so an appended line costs what reading that line costs, never a whole import (bench
// section 9). Only the first poll imports the whole file, streamed in 256 KiB chunks and in slices (the
// host is never held long); a change the kept import cannot go on from (a Claude Code rewind or edit, a
// result written before its call: claudeCodeLive.ts) imports it whole again, counted in `fullReads`.
// A poll that finds a few appended lines reads them with synchronous calls (microseconds); a poll that
// finds the file's size and time unchanged reads nothing.
//
// The result's messages are shared with later results when they did not change: treat them as read-only.
import { open } from 'node:fs/promises';
import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import type { Message } from '../conversation/conversation';
import { checkStats, formatBytes, MAX_SESSION_FILE_BYTES, readProblem } from './bounds';
import { classifyLine, SNIFF_LINES, unrecognised } from './detect';
import { parseJsonLine, parsesAsObject, type JsonLine } from './json';
import { runStepsSliced } from './steps';
import { LineSplitter } from './stream';
import { startTracker, type Tracker } from './followTrackers';
import { ImportError, type ImportResult, type SessionFormat } from './types';
import { importSession } from './whole';

export interface FollowUpdate {
  /**
   * The import of the file's complete lines so far: equal (messages, compactions, model, contextWindow,
   * rolledBackPrompts, format) to importSessionFile() of a file holding exactly those bytes.
   */
  result: ImportResult;
  /** New complete lines were read by this poll. */
  changed: boolean;
  /** Recorded model calls (messages that gained recorded usage) added by this poll, oldest first. */
  newCalls: number;
  /** The file shrank or was replaced (inode changed): it was read again from the start. */
  reset?: 'truncated' | 'replaced';
  /** The file no longer exists (result is the last one read). */
  gone: boolean;
  /** Bytes of complete lines consumed; a partial last line waits for its newline. */
  bytes: number;
}

export interface FollowOptions {
  /** The largest file followed (default MAX_SESSION_FILE_BYTES). */
  maxBytes?: number;
  /** Bytes read per chunk (default 256 KiB). */
  chunkBytes?: number;
}

/** Bytes before the consumed end compared on every poll: a file rewritten in place is read again. */
const TAIL_CHECK = 64;

export class SessionFollower {
  readonly path: string;
  /** Times the follower imported the whole file again (its first read, a reset, a change it cannot follow line by line). */
  fullReads = 0;
  private readonly maxBytes: number;
  private readonly chunkBytes: number;
  private identity: { dev: number; ino: number } | undefined;
  private state = new ReadState();
  private last: ImportResult | undefined;
  private lastCalls = 0;
  /** The outcome for the lines read so far, when it was an error (thrown again until new lines come). */
  private failure: unknown;
  /** The poll under way (or the last one). */
  private queue: Promise<unknown> = Promise.resolve();
  /** The file's size and time at the last poll. */
  private seen: { size: number; mtimeMs: number } | undefined;
  /** A read failed (a malformed line, a read error): thrown again while the file's size and time stay the same. */
  private broken: { error: unknown; size: number; mtimeMs: number } | undefined;

  constructor(path: string, options: FollowOptions = {}) {
    this.path = path;
    this.maxBytes = options.maxBytes ?? MAX_SESSION_FILE_BYTES;
    // Chunks of 256 KiB: each is split and parsed at once, so this bounds the first read's longest block.
    this.chunkBytes = options.chunkBytes ?? 256 * 1024;
  }

  /**
   * Reads what was appended since the last poll (the first poll reads the whole file, streamed, in slices).
   * Polls run one after the other: a poll called while another runs starts when it ends.
   */
  poll(): Promise<FollowUpdate> {
    const next = this.queue.then(
      () => this.pollOnce(),
      () => this.pollOnce(),
    );
    this.queue = next;
    return next;
  }

  private async pollOnce(): Promise<FollowUpdate> {
    let st: Stats;
    try {
      st = statSync(this.path);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if ((code === 'ENOENT' || code === 'ENOTDIR') && this.last) return this.update(this.last, false, 0, undefined, true);
      throw new ImportError(this.path, undefined, undefined, readProblem(e));
    }
    checkStats(this.path, st, this.maxBytes);
    let reset: FollowUpdate['reset'];
    if (this.identity && (this.identity.dev !== st.dev || this.identity.ino !== st.ino)) reset = 'replaced';
    else if (st.size < this.state.offset) reset = 'truncated';
    this.identity = { dev: st.dev, ino: st.ino };
    if (this.broken) {
      // A line could not be read: unchanged, it still cannot; changed, the file is read again from the start.
      if (!reset && this.broken.size === st.size && this.broken.mtimeMs === st.mtimeMs) throw this.broken.error;
      this.broken = undefined;
    }
    if (reset) this.restart();
    // Neither size nor time changed since the last read: nothing to read.
    const seen = this.seen;
    this.seen = { size: st.size, mtimeMs: st.mtimeMs };
    if (!reset && seen && seen.size === st.size && seen.mtimeMs === st.mtimeMs && (this.last || this.failure !== undefined)) {
      if (this.failure !== undefined) throw this.failure;
      return this.update(this.last as ImportResult, false, 0, undefined, false);
    }
    let read: 'same' | 'new' | 'rewritten' | 'fallback';
    try {
      read = await this.read(reset === undefined, st.size);
      if (read === 'rewritten') {
        reset = 'truncated';
        this.restart();
        read = await this.read(false, st.size);
      }
      if (read === 'fallback') {
        // An appended line the kept import cannot go on from (a rewind, an edit, …): the whole file again.
        this.state = new ReadState();
        read = await this.read(false, st.size);
      }
    } catch (e) {
      // Half-read lines are half-fed: start again from scratch next time.
      this.restart();
      this.broken = { error: e, size: st.size, mtimeMs: st.mtimeMs };
      throw e;
    }
    const changed = read !== 'same' || reset !== undefined || (!this.last && this.failure === undefined);
    if (!changed) {
      if (this.failure !== undefined) throw this.failure;
      return this.update(this.last as ImportResult, false, 0, undefined, false);
    }
    let result: ImportResult;
    try {
      result = await this.compute();
    } catch (e) {
      this.failure = e;
      this.last = undefined;
      throw e;
    }
    this.failure = undefined;
    const calls = countCalls(result);
    const newCalls = reset || !this.last ? calls : Math.max(0, calls - this.lastCalls);
    this.last = result;
    this.lastCalls = calls;
    return this.update(result, true, newCalls, reset, false);
  }

  private update(result: ImportResult, changed: boolean, newCalls: number, reset: FollowUpdate['reset'], gone: boolean): FollowUpdate {
    const out: FollowUpdate = { result, changed, newCalls, gone, bytes: this.state.offset };
    if (reset) out.reset = reset;
    return out;
  }

  private restart(): void {
    this.state = new ReadState();
    this.last = undefined;
    this.lastCalls = 0;
    this.failure = undefined;
  }

  /**
   * Reads from the consumed end to the end of the file and hands the complete lines on. 'rewritten': the
   * bytes before the consumed end changed (the file was rewritten in place); nothing was read.
   */
  private async read(checkTail: boolean, expected: number): Promise<'same' | 'new' | 'rewritten' | 'fallback'> {
    let handle: Source;
    try {
      handle = await openSource(this.path, this.state.offset > 0 && expected - this.state.offset <= this.chunkBytes);
    } catch (e) {
      throw new ImportError(this.path, undefined, undefined, readProblem(e));
    }
    const state = this.state;
    try {
      checkStats(this.path, await handle.stat(), this.maxBytes);
      if (checkTail && state.tail.length > 0) {
        const seen = Buffer.alloc(state.tail.length);
        const { bytesRead } = await readAt(handle, seen, state.offset - state.tail.length, this.path);
        if (bytesRead !== seen.length || !seen.equals(state.tail)) return 'rewritten';
      }
      if (state.wholeFile) return await this.readWhole(handle);
      try {
        return await this.readLines(handle, state);
      } catch (e) {
        if (e instanceof CannotFollow) return 'fallback';
        throw e;
      }
    } finally {
      await handle.close();
    }
  }

  /** The complete lines from the consumed end on, handed to the state (the whole file: see readWhole). */
  private async readLines(handle: Source, state: ReadState): Promise<'same' | 'new'> {
    const buffer = Buffer.allocUnsafe(this.chunkBytes);
    const decoder = new StringDecoder('utf8');
    const firstLine = state.lines;
    const splitter = new LineSplitter((raw, n) => state.accept(raw, firstLine + n, this.path));
    let position = state.offset;
    let end = state.offset;
    let newlines = 0;
    // The last bytes handed to the splitter, and (tail) those up to the last newline.
    let recent = state.tail;
    let tail = state.tail;
    const pushed = (bytes: Buffer): void => {
      splitter.push(decoder.write(bytes));
      recent = Buffer.from(Buffer.concat([recent, bytes.subarray(-TAIL_CHECK)]).subarray(-TAIL_CHECK));
    };
    for (;;) {
      const { bytesRead } = await readAt(handle, buffer, position, this.path);
      if (bytesRead === 0) break;
      if (position + bytesRead > this.maxBytes) {
        throw new ImportError(
          this.path,
          undefined,
          undefined,
          `the file grew past the ${formatBytes(this.maxBytes)} limit for a session file`,
        );
      }
      const chunk = buffer.subarray(0, bytesRead);
      const last = chunk.lastIndexOf(0x0a);
      if (last >= 0) {
        for (let i = chunk.indexOf(0x0a); i !== -1 && i <= last; i = chunk.indexOf(0x0a, i + 1)) newlines++;
        // Only complete lines go to the splitter: the partial line after the last newline is read again.
        pushed(chunk.subarray(0, last + 1));
        tail = recent;
        position += last + 1;
        end = position;
        if (state.wholeFile) return await this.readWhole(handle);
      } else if (bytesRead < buffer.length) {
        break;
      } else {
        // A line longer than the buffer: read on (the splitter keeps its start).
        pushed(chunk);
        position += bytesRead;
      }
    }
    if (end === state.offset) return 'same';
    if (state.offset === 0) this.fullReads++;
    state.offset = end;
    state.lines += newlines;
    state.tail = tail;
    return 'new';
  }

  /** A whole JSON document (not JSONL): the whole file is its content, read again when it changes. */
  private async readWhole(handle: Source): Promise<'same' | 'new'> {
    const size = (await handle.stat()).size;
    if (size === this.state.offset && this.state.text !== undefined) return 'same';
    const buffer = Buffer.alloc(size);
    let done = 0;
    while (done < size) {
      const { bytesRead } = await readAt(handle, buffer.subarray(done), done, this.path);
      if (bytesRead === 0) break;
      done += bytesRead;
    }
    this.fullReads++;
    this.state.text = buffer.subarray(0, done).toString('utf8');
    this.state.offset = done;
    this.state.tail = Buffer.alloc(0);
    return 'new';
  }

  private async compute(): Promise<ImportResult> {
    const state = this.state;
    if (state.wholeFile || state.nonBlank <= 1) {
      // A whole JSON document, a one-line file or an empty one: the whole-text path reads (or refuses) it.
      return importSession(state.text ?? state.firstRaw ?? '', this.path);
    }
    if (!state.tracker) throw unrecognised(this.path);
    return runStepsSliced(state.tracker.result());
  }
}

/** What was read of the file so far. */
class ReadState {
  /** Bytes of complete lines consumed. */
  offset = 0;
  /** Lines consumed (blank ones included: the next line's number is lines + 1). */
  lines = 0;
  /** The last bytes consumed (up to TAIL_CHECK). */
  tail = Buffer.alloc(0);
  nonBlank = 0;
  /** The first non-blank line, while it is the only one. */
  firstRaw: string | undefined;
  /** The file is one JSON document (or not JSONL at all): read whole. */
  wholeFile = false;
  /** wholeFile: its text. */
  text: string | undefined;
  format: SessionFormat | undefined;
  tracker: Tracker | undefined;
  /** Parsed lines before the format is known (at most SNIFF_LINES). */
  private head: JsonLine[] = [];

  accept(raw: string, line: number, file: string): void {
    if (this.wholeFile) return;
    this.nonBlank++;
    if (this.nonBlank === 1) {
      this.firstRaw = raw;
      if (raw.trimStart().startsWith('[') || !parsesAsObject(raw)) {
        this.wholeFile = true;
        return;
      }
    } else {
      this.firstRaw = undefined;
    }
    const value = parseJsonLine(raw, line, file);
    if (this.tracker) {
      if (!this.tracker.line({ line, value })) throw new CannotFollow();
      return;
    }
    this.head.push({ line, value });
    this.format = classifyLine(value);
    if (!this.format && this.head.length >= SNIFF_LINES) throw unrecognised(file);
    if (this.format) {
      const tracker = startTracker(this.format, file);
      this.tracker = tracker;
      if (this.head.some((l) => !tracker.line(l))) throw new CannotFollow();
      this.head = [];
    }
  }
}

/** An appended line the tracker cannot read on from: the whole file is read again. */
class CannotFollow extends Error {}

/** An open file, read with synchronous calls (a few appended lines: microseconds) or asynchronous ones (a whole file). */
interface Source {
  stat(): Stats | Promise<Stats>;
  read(buffer: Buffer, position: number): number | Promise<number>;
  close(): void | Promise<void>;
}

async function openSource(path: string, sync: boolean): Promise<Source> {
  // O_NONBLOCK: if a FIFO was swapped in after the check, opening it does not wait for a writer.
  const flags = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
  if (sync) {
    const fd = openSync(path, flags);
    return {
      stat: () => fstatSync(fd),
      read: (buffer, position) => readSync(fd, buffer, 0, buffer.length, position),
      close: () => closeSync(fd),
    };
  }
  const handle = await open(path, flags);
  return {
    stat: () => handle.stat(),
    read: async (buffer, position) => (await handle.read(buffer, 0, buffer.length, position)).bytesRead,
    close: () => handle.close(),
  };
}

async function readAt(handle: Source, buffer: Buffer, position: number, path: string): Promise<{ bytesRead: number }> {
  try {
    return { bytesRead: await handle.read(buffer, position) };
  } catch (e) {
    throw new ImportError(path, undefined, undefined, readProblem(e));
  }
}

/** Messages with recorded usage: the model calls of the current context and of every archived one. */
function countCalls(result: ImportResult): number {
  const count = (messages: readonly Message[]): number => messages.reduce((n, m) => n + (m.usage ? 1 : 0), 0);
  return result.compactions.reduce((n, c) => n + count(c.before), count(result.messages));
}
