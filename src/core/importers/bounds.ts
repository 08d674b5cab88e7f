// Bounds on what an import reads: how deep its JSON may nest, and which files it reads (regular files up
// to a size). A session file comes from anywhere (a cloned repo, a download), so hostile input must end in
// an ImportError that names the file, the line and the field, never in a RangeError from a recursive walk
// (JSON.stringify, a validator, the webview's tree), a hang on a device or a FIFO, or gigabytes allocated.
import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import { errorMessage } from '../base/errors';
import type { Fail } from '../conversation/messageShape';
import { ImportError } from './types';

/**
 * How deep a session's JSON may nest (objects and arrays; the outermost value is level 1). Real session
 * lines nest about 10-20 levels (tool inputs included); every recursive walk the engine and the views do
 * stays far from the stack's limit at this depth.
 */
export const MAX_JSON_DEPTH = 256;

/** The largest session file read (a 200 MB session imports; V8's longest string is about 512 MiB). */
export const MAX_SESSION_FILE_BYTES = 256 * 1024 * 1024;

const MIB = 1024 * 1024;
const READ_CHUNK = 4 * MIB;

/** How many path segments a too-deep field shows before "…". */
const FIELD_SEGMENTS_SHOWN = 12;

/**
 * The offset of the first bracket of `raw` (valid JSON text) that opens a level deeper than `limit`, or
 * -1. Brackets inside strings do not count. Linear, without recursion.
 */
export function jsonDepthOverflow(raw: string, limit = MAX_JSON_DEPTH): number {
  // Every level takes at least two characters.
  if (raw.length <= 2 * limit) return -1;
  let depth = 0;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c === 0x22) {
      i = endOfString(raw, i);
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return i;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return -1;
}

/** Index of the quote that closes the string opening at `start`. */
function endOfString(raw: string, start: number): number {
  let end = raw.indexOf('"', start + 1);
  while (end !== -1) {
    let backslashes = 0;
    for (let k = end - 1; raw.charCodeAt(k) === 0x5c; k--) backslashes++;
    if (backslashes % 2 === 0) return end;
    end = raw.indexOf('"', end + 1);
  }
  return raw.length;
}

interface Frame {
  value: unknown;
  depth: number;
  parent: Frame | undefined;
  segment: string;
}

/**
 * The path (from `value`) of the first object or array nested deeper than `limit`, formatted as a field
 * (`content[0].input.a.a…`), or undefined. Iterative, so it cannot overflow the stack itself.
 */
export function tooDeepField(value: unknown, limit = MAX_JSON_DEPTH): string | undefined {
  const stack: Frame[] = [{ value, depth: 1, parent: undefined, segment: '' }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const v = frame.value;
    if (v === null || typeof v !== 'object') continue;
    if (frame.depth > limit) return formatField(frame);
    const entries: Array<[string, unknown]> = Array.isArray(v)
      ? v.map((item, i) => [`[${i}]`, item])
      : Object.entries(v).map(([k, item]) => [keySegment(k), item]);
    for (let i = entries.length - 1; i >= 0; i--) {
      stack.push({ value: entries[i][1], depth: frame.depth + 1, parent: frame, segment: entries[i][0] });
    }
  }
  return undefined;
}

function keySegment(key: string): string {
  return /^[A-Za-z_$][\w$]{0,39}$/.test(key) ? `.${key}` : `[${JSON.stringify(key.length > 40 ? `${key.slice(0, 40)}…` : key)}]`;
}

function formatField(frame: Frame): string {
  const segments: string[] = [];
  for (let f: Frame | undefined = frame; f?.parent; f = f.parent) segments.push(f.segment);
  segments.reverse();
  const shown = segments.slice(0, FIELD_SEGMENTS_SHOWN).join('');
  const field = segments.length > FIELD_SEGMENTS_SHOWN ? `${shown}…` : shown;
  return field.startsWith('.') ? field.slice(1) : field;
}

/**
 * Fails (at `field` + the path inside `value`) if `value`, parsed from `raw`, nests deeper than
 * MAX_JSON_DEPTH. `raw` makes the common case a linear scan; the walk runs only when it finds a deep spot.
 */
export function checkJsonDepth(value: unknown, raw: string, field: string, fail: Fail): void {
  if (jsonDepthOverflow(raw) === -1) return;
  const inner = tooDeepField(value);
  if (inner === undefined) return; // only a duplicate key that JSON.parse dropped was deep
  const joined = field === '' ? inner : inner.startsWith('[') ? `${field}${inner}` : `${field}.${inner}`;
  fail(joined, `nested deeper than ${MAX_JSON_DEPTH} levels (the most a session file may nest)`);
}

/** The 1-based line of `offset` in `text`. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isSocket()) return 'a socket';
  return 'not a file';
}

export function formatBytes(n: number): string {
  return n % MIB === 0 ? `${n / MIB} MiB` : n >= MIB ? `${(n / MIB).toFixed(1)} MiB` : `${n} bytes`;
}

/** What a read error says, by its errno code. */
export function readProblem(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'file not found';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  return `cannot read file (${code ?? errorMessage(e)})`;
}

export function checkStats(path: string, st: Stats, maxBytes: number): void {
  if (!st.isFile()) throw new ImportError(path, undefined, undefined, `not a regular file (${kindOf(st)}): a session must be a file`);
  if (st.size > maxBytes) {
    throw new ImportError(
      path,
      undefined,
      undefined,
      `the file is ${formatBytes(st.size)}, larger than the ${formatBytes(maxBytes)} limit for a session file`,
    );
  }
}

/**
 * The text of the session file at `path` (UTF-8). Refuses, with an ImportError naming the file, anything
 * but a regular file (a device such as /dev/zero, a FIFO, a directory; symlinks are followed to what they
 * name) and a file larger than `maxBytes`, both before reading a byte; a file that grows past `maxBytes`
 * while it is read is refused too.
 */
export function readSessionFile(path: string, maxBytes = MAX_SESSION_FILE_BYTES): string {
  let fd: number;
  try {
    checkStats(path, statSync(path), maxBytes);
    // O_NONBLOCK: if a FIFO was swapped in after the check, opening it does not wait for a writer.
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (e) {
    if (e instanceof ImportError) throw e;
    throw new ImportError(path, undefined, undefined, readProblem(e));
  }
  try {
    checkStats(path, fstatSync(fd), maxBytes);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(READ_CHUNK, maxBytes + 1 - total));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(n === chunk.length ? chunk : chunk.subarray(0, n));
      total += n;
      if (total > maxBytes) {
        throw new ImportError(path, undefined, undefined, `the file grew past the ${formatBytes(maxBytes)} limit for a session file`);
      }
    }
    return Buffer.concat(chunks, total).toString('utf8');
  } catch (e) {
    if (e instanceof ImportError) throw e;
    throw new ImportError(path, undefined, undefined, readProblem(e));
  } finally {
    closeSync(fd);
  }
}
