// The workspace's instruction files (issue 23): AGENTS.md and CLAUDE.md at the workspace root, and the
// same files in every folder on the way to a file the agent has read or edited (packages/api/AGENTS.md
// joins once the agent touches packages/api/src/x.ts). Each file is checked (mtime and size) whenever
// the sources are asked for, that is before every request: a changed file is read again and the next
// request carries the new text. Files are confined to the workspace (a symlink out of it is skipped).
// In an untrusted workspace the files are listed but their text is not sent until the user allows it.
import * as nodeFs from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { UncappedSource } from '../../core';

/** The instruction file names, in the order they are sent within a folder. */
export const INSTRUCTION_FILE_NAMES = ['AGENTS.md', 'CLAUDE.md'] as const;
/** Most bytes read of one file (the per-file cap is far below; the rest is only counted). */
const READ_LIMIT = 64 * 1024;
/** Most folders below the root that are looked in (one per distinct folder the agent touched). */
const MAX_FOLDERS = 200;

type Fs = Pick<typeof nodeFs, 'statSync' | 'realpathSync' | 'openSync' | 'readSync' | 'closeSync'>;

export interface InstructionFilesOptions {
  /** The workspace folder (undefined: no folder, no files). */
  root: string | undefined;
  /** False in an untrusted workspace: files are listed, not sent, until allow(). */
  trusted: boolean;
  /** The user allowed instruction files in this (untrusted) workspace before (remembered by the host). */
  allowed?: boolean;
  fs?: Fs;
}

interface CachedFile {
  mtimeMs: number;
  size: number;
  text: string;
  chars: number;
}

export class InstructionFiles {
  private readonly root: string | undefined;
  private readonly fs: Fs;
  private readonly trusted: boolean;
  private allowedByUser: boolean;
  /** Workspace-relative folders to look in ('' = the root), in the order they were first touched. */
  private readonly folders: string[] = [''];
  private readonly cache = new Map<string, CachedFile>();

  constructor(o: InstructionFilesOptions) {
    this.root = o.root === undefined ? undefined : resolve(o.root);
    this.trusted = o.trusted;
    this.allowedByUser = o.allowed === true;
    this.fs = o.fs ?? nodeFs;
  }

  /** True when the files' text is sent (a trusted workspace, or the user allowed it). */
  get sending(): boolean {
    return this.trusted || this.allowedByUser;
  }

  /** The user allowed instruction files in this untrusted workspace. */
  allow(): void {
    this.allowedByUser = true;
  }

  /**
   * The agent read or edited `path` (workspace-relative or absolute): the folders from the root down to
   * its folder are looked in from now on. True when a folder was added.
   */
  noteTouched(path: string): boolean {
    if (!this.root || typeof path !== 'string' || path.trim() === '') return false;
    const abs = isAbsolute(path) ? resolve(path) : resolve(this.root, path);
    const rel = relative(this.root, dirname(abs));
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return false;
    let added = false;
    const parts = rel.split(sep);
    for (let i = 1; i <= parts.length; i++) {
      const folder = parts.slice(0, i).join('/');
      if (this.folders.includes(folder) || this.folders.length > MAX_FOLDERS) continue;
      this.folders.push(folder);
      added = true;
    }
    return added;
  }

  /** The files that exist now, each with its whole text (before the caps): root first, then folders by path. */
  sources(): UncappedSource[] {
    if (!this.root) return [];
    const out: UncappedSource[] = [];
    const folders = [...this.folders].sort((a, b) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b)));
    for (const folder of folders) {
      for (const name of INSTRUCTION_FILE_NAMES) {
        const rel = folder === '' ? name : `${folder}/${name}`;
        const file = this.read(rel);
        if (!file) continue;
        const original = { originalChars: file.chars };
        out.push({ name: rel, kind: 'file', path: rel, text: this.sending ? file.text : '', sent: this.sending, ...original });
      }
    }
    return out;
  }

  /** The file's text (cached while its mtime and size stay), or undefined when it is absent or outside the workspace. */
  private read(rel: string): CachedFile | undefined {
    const abs = join(this.root!, rel);
    let stat: nodeFs.Stats;
    try {
      stat = this.fs.statSync(abs);
      if (!stat.isFile()) return undefined;
      const real = this.fs.realpathSync(abs);
      const realRoot = this.fs.realpathSync(this.root!);
      if (real !== join(realRoot, rel) && !real.startsWith(realRoot + sep)) return undefined;
    } catch {
      this.cache.delete(rel);
      return undefined;
    }
    const cached = this.cache.get(rel);
    if (cached && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size) return cached;
    try {
      const fd = this.fs.openSync(abs, 'r');
      try {
        const buf = Buffer.alloc(Math.min(stat.size, READ_LIMIT));
        const n = this.fs.readSync(fd, buf, 0, buf.length, 0);
        const text = buf
          .subarray(0, n)
          .toString('utf8')
          .replace(/\uFFFD$/, '');
        const file = { mtimeMs: stat.mtimeMs, size: stat.size, text, chars: stat.size > READ_LIMIT ? stat.size : text.length };
        this.cache.set(rel, file);
        return file;
      } finally {
        this.fs.closeSync(fd);
      }
    } catch {
      return undefined;
    }
  }
}
