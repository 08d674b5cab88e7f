// Reads and writes that cannot be raced out of the workspace. A path checked by resolveWorkspacePath
// can change before it is opened (a folder swapped for a symlink): so files are opened with
// O_NOFOLLOW, and the real path of the opened handle (/proc/self/fd on Linux; elsewhere realpath
// plus a device/inode comparison) must still be the checked one, inside the workspace, before
// content is returned or written. Writes go through a temp file created in the verified folder, and
// the renamed file is checked again.
import { constants as fs } from 'node:fs';
import { lstat, mkdir, open, readlink, realpath, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';
import { randomBytes } from 'node:crypto';
import { ToolError } from './types';
import type { ResolvedPath } from './workspacePath';

const NOFOLLOW = fs.O_NOFOLLOW ?? 0;
const NONBLOCK = fs.O_NONBLOCK ?? 0;

/** Open a checked path for reading: no symlink at the end, and the handle is the checked file. */
export async function openConfined(root: string, target: ResolvedPath): Promise<FileHandle> {
  let fh: FileHandle;
  try {
    // O_NONBLOCK: opening a FIFO must not hang (it is refused below as not a regular file).
    fh = await open(target.real, fs.O_RDONLY | NOFOLLOW | NONBLOCK);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOOP') throw changed(target, 'it is now a symbolic link');
    throw e;
  }
  try {
    await verifyHandle(fh, target.real, await realpath(root), target);
    return fh;
  } catch (e) {
    await fh.close();
    throw e;
  }
}

/** The bytes of a checked file (it must be a regular file). */
export async function readFileConfined(root: string, target: ResolvedPath): Promise<Buffer> {
  const fh = await openConfined(root, target);
  try {
    if (!(await fh.stat()).isFile()) throw new ToolError(`${target.rel} is not a regular file`);
    return await fh.readFile();
  } finally {
    await fh.close();
  }
}

/**
 * The first `maxBytes` bytes of a checked file (it must be a regular file) and its size from fstat:
 * a file of any size costs at most `maxBytes` of memory and reading. `size` is at least the bytes read
 * (a file that grew since fstat).
 */
export async function readFileHeadConfined(root: string, target: ResolvedPath, maxBytes: number): Promise<{ head: Buffer; size: number }> {
  const fh = await openConfined(root, target);
  try {
    const info = await fh.stat();
    if (!info.isFile()) throw new ToolError(`${target.rel} is not a regular file`);
    const head = Buffer.alloc(Math.max(0, Math.floor(maxBytes)));
    let filled = 0;
    while (filled < head.length) {
      const { bytesRead } = await fh.read(head, filled, head.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return { head: head.subarray(0, filled), size: Math.max(info.size, filled) };
  } finally {
    await fh.close();
  }
}

/** Write `text` to a checked path through a temp file in the verified folder (keeps the file's mode). */
export async function writeFileConfined(root: string, target: ResolvedPath, text: string): Promise<void> {
  const rootReal = await realpath(root);
  const dir = dirname(target.real);
  await mkdir(dir, { recursive: true });
  const dirReal = await realpath(dir);
  if (dirReal !== dir || !isInside(rootReal, dirReal)) throw changed(target, `its folder now resolves to ${dirReal}`);
  let mode: number | undefined;
  try {
    const info = await lstat(target.real);
    if (info.isSymbolicLink()) throw changed(target, 'it is now a symbolic link');
    mode = info.mode & 0o7777;
  } catch (e) {
    if (e instanceof ToolError) throw e;
    mode = undefined;
  }
  const tmp = join(dir, `.${basename(target.real)}.${randomBytes(6).toString('hex')}.tmp`);
  const fh = await open(tmp, fs.O_WRONLY | fs.O_CREAT | fs.O_EXCL | NOFOLLOW, mode ?? 0o666);
  let ino: number;
  try {
    const where = await handlePath(fh, tmp);
    if (where !== tmp) {
      // The folder was swapped after the check: remove what was created there, write nothing.
      await unlink(where).catch(() => undefined);
      throw changed(target, `its folder now resolves to ${dirname(where)}`);
    }
    await fh.writeFile(text, 'utf8');
    if (mode !== undefined) await fh.chmod(mode);
    await fh.sync();
    ino = (await fh.stat()).ino;
  } catch (e) {
    await fh.close();
    await unlink(tmp).catch(() => undefined);
    throw e;
  }
  await fh.close();
  try {
    await rename(tmp, target.real);
  } catch (e) {
    await unlink(tmp).catch(() => undefined);
    throw e;
  }
  // Check again: the renamed file is ours, where it was checked to be.
  const check = await openConfined(root, target).catch((e: unknown) => {
    throw e instanceof ToolError ? e : changed(target, 'it could not be checked after writing');
  });
  try {
    if ((await check.stat()).ino !== ino) throw changed(target, 'another file is there after writing');
  } finally {
    await check.close();
  }
}

/** The handle must be the checked path, and inside the workspace. */
async function verifyHandle(fh: FileHandle, expected: string, rootReal: string, target: ResolvedPath): Promise<void> {
  const where = await handlePath(fh, expected);
  if (!isInside(rootReal, where)) {
    throw new ToolError(`path escapes the workspace: ${target.rel} (resolves to ${where} after it was checked)`);
  }
  if (where !== expected) throw changed(target, `it now resolves to ${where}`);
}

/** Where an open handle really is: /proc/self/fd on Linux; elsewhere realpath(path) if it is the same file. */
async function handlePath(fh: FileHandle, path: string): Promise<string> {
  if (process.platform === 'linux') {
    try {
      return await readlink(`/proc/self/fd/${fh.fd}`);
    } catch {
      // No /proc: fall through.
    }
  }
  const real = await realpath(path);
  const [a, b] = await Promise.all([fh.stat(), stat(real)]);
  return a.dev === b.dev && a.ino === b.ino ? real : `${real} (a different file)`;
}

function changed(target: ResolvedPath, how: string): ToolError {
  return new ToolError(`${target.rel} changed after its path was checked (${how}); nothing was read or written`);
}

function isInside(root: string, p: string): boolean {
  const r = relative(root, p);
  return r === '' || (r !== '..' && !r.startsWith('..' + sep) && !isAbsolute(r));
}
