// Atomic file replacement: a reader sees the old file or the new one, never a partial write.
// The file system calls go through a small injectable layer so tests can check their order and
// simulate failures (a full disk) without a real one.
import * as nodeFs from 'node:fs';
import { basename, join } from 'node:path';

/** The synchronous file system calls the storage code uses (node:fs by default; tests inject a spy). */
export interface StorageFs {
  openSync(path: string, flags: string, mode?: number): number;
  /** Write from the start of `data`; returns the bytes written (may be fewer than asked). */
  writeSync(fd: number, data: Uint8Array): number;
  fsyncSync(fd: number): void;
  closeSync(fd: number): void;
  renameSync(from: string, to: string): void;
  rmSync(path: string, options: { force: boolean }): void;
  mkdirSync(path: string, options: { recursive: boolean }): unknown;
  fstatSync(fd: number): { size: number };
  ftruncateSync(fd: number, len: number): void;
  copyFileSync(from: string, to: string): void;
}

export const nodeStorageFs: StorageFs = {
  openSync: (p, f, m) => nodeFs.openSync(p, f, m),
  writeSync: (fd, data) => nodeFs.writeSync(fd, data, 0, data.length),
  fsyncSync: (fd) => nodeFs.fsyncSync(fd),
  closeSync: (fd) => nodeFs.closeSync(fd),
  renameSync: (a, b) => nodeFs.renameSync(a, b),
  rmSync: (p, o) => nodeFs.rmSync(p, o),
  mkdirSync: (p, o) => nodeFs.mkdirSync(p, o),
  fstatSync: (fd) => nodeFs.fstatSync(fd),
  ftruncateSync: (fd, len) => nodeFs.ftruncateSync(fd, len),
  copyFileSync: (a, b) => nodeFs.copyFileSync(a, b, nodeFs.constants.COPYFILE_EXCL),
};

/** Write all of `text` (a write may be short; the rest is written after it). */
export function writeAll(fs: StorageFs, fd: number, text: string): void {
  let rest: Uint8Array = Buffer.from(text, 'utf8');
  while (rest.length > 0) rest = rest.subarray(fs.writeSync(fd, rest));
}

/** Temp files are named `.<name>.<pid>.<ms>[-<n>].tmp` (so a crash leaves something cleanStaleTempFiles recognises). */
const TEMP_NAME = /^\..+\.(\d{1,10})\.\d+(-\d+)?\.tmp$/;
let tempSeq = 0;

/**
 * Write `text` to `path` atomically: open a new temp file in the same folder (exclusive: never
 * through an existing file or link), write, fsync it, close, rename over `path`, fsync the folder.
 * `durable: false` skips both fsyncs (still atomic for readers; after a power failure the file may be
 * missing or empty): only for a file whose loss loses nothing, such as a new, empty session's meta, since
 * an fsync can hold the thread for tens of milliseconds.
 */
export function writeFileAtomic(path: string, text: string, fs: StorageFs = nodeStorageFs, { durable = true } = {}): void {
  const dir = join(path, '..');
  fs.mkdirSync(dir, { recursive: true });
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${Date.now()}-${tempSeq++}.tmp`);
  let fd: number | undefined;
  try {
    fd = fs.openSync(tmp, 'wx', 0o600);
    writeAll(fs, fd, text);
    if (durable) fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = undefined;
    fs.renameSync(tmp, path);
  } catch (e) {
    if (fd !== undefined) fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    throw e;
  }
  if (!durable) return;
  try {
    const dfd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(dfd);
    } finally {
      fs.closeSync(dfd);
    }
  } catch {
    // Some filesystems refuse fsync on a directory; the rename itself is still atomic.
  }
}

/** Whether process `pid` is running on this machine (EPERM: it is, under another user). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Remove temp files a crash left in `dir`: files named as writeFileAtomic names them (nothing else),
 * whose writing process is gone (the pid in the name is not running), or, when it still runs (or the
 * pid was reused), older than `minAgeMs`, so a write in progress in another window is not disturbed.
 * Returns the names removed.
 */
export function cleanStaleTempFiles(dir: string, minAgeMs = 60_000, now = Date.now()): string[] {
  let names: string[];
  try {
    names = nodeFs.readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const match = TEMP_NAME.exec(name);
    if (!match) continue;
    const path = join(dir, name);
    try {
      const st = nodeFs.lstatSync(path);
      if (!st.isFile()) continue;
      const writerGone = !processAlive(Number(match[1]));
      if (!writerGone && now - st.mtimeMs < minAgeMs) continue;
      nodeFs.rmSync(path, { force: true });
      removed.push(name);
    } catch {
      // Gone already (another window cleaned it): nothing to do.
    }
  }
  return removed;
}
