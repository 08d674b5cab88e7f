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
