// File helpers shared by the tools: binary detection, atomic writes, readable fs errors, and the
// folders every walk skips.
import { constants as fsConstants } from 'node:fs';
import { chmod, mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

/** Folders that list_files and search never enter. */
export const SKIP_DIRS: ReadonlySet<string> = new Set(['.git', 'node_modules']);

/** Write through a temp file in the same folder and rename over the target (keeps the file's mode). */
export async function writeFileAtomically(path: string, text: string): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  let mode: number | undefined;
  try {
    mode = (await stat(path)).mode & 0o7777;
  } catch {
    mode = undefined;
  }
  const tmp = join(dir, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const fh = await open(tmp, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL, mode ?? 0o666);
    try {
      await fh.writeFile(text, 'utf8');
      await fh.sync();
    } finally {
      await fh.close();
    }
    if (mode !== undefined) await chmod(tmp, mode);
    await rename(tmp, path);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}

/** A NUL byte in the first 8 KB means binary (as git and grep decide). */
export function looksBinary(buf: Buffer): boolean {
  const n = Math.min(buf.length, 8192);
  for (let i = 0; i < n; i++) if (buf[i] === 0) return true;
  return false;
}

/**
 * Decode UTF-8, counting the bytes that are not valid UTF-8 (they become U+FFFD, as Buffer's
 * decoder does): a Latin-1 file reads with replacement characters, and the caller says so.
 */
export function decodeUtf8(buf: Buffer): { text: string; invalidBytes: number } {
  const text = buf.toString('utf8');
  if (!text.includes('\uFFFD')) return { text, invalidBytes: 0 };
  // Genuine U+FFFD characters in the file round-trip; anything else was undecodable.
  const roundTrip = Buffer.from(text, 'utf8');
  if (roundTrip.equals(buf)) return { text, invalidBytes: 0 };
  let invalid = 0;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(buf);
  } catch {
    invalid = countInvalidUtf8(buf);
  }
  return { text, invalidBytes: invalid };
}

/** How many bytes of `buf` are not part of a well-formed UTF-8 sequence. */
function countInvalidUtf8(buf: Buffer): number {
  let bad = 0;
  for (let i = 0; i < buf.length;) {
    const b = buf[i];
    const len = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    if (len === 0 || i + len > buf.length) {
      bad++;
      i++;
      continue;
    }
    let okSeq = true;
    for (let k = 1; k < len; k++) if ((buf[i + k] & 0xc0) !== 0x80) okSeq = false;
    const seq = buf.subarray(i, i + len);
    if (okSeq && len > 1 && !Buffer.from(seq.toString('utf8'), 'utf8').equals(seq)) okSeq = false;
    if (okSeq) i += len;
    else {
      bad++;
      i++;
    }
  }
  return bad;
}

/** A short, readable reason for a file-system error (the message for anything unusual). */
export function describeFsError(e: NodeJS.ErrnoException): string {
  switch (e.code) {
    case 'ENOENT':
      return 'no such file or folder';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a folder';
    case 'ENOTDIR':
      return 'a parent of the path is not a folder';
    default:
      return e.message;
  }
}
