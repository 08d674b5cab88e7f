// File checkpoints of one chat session: before a prompt's turn first changes the workspace, the
// state of every file git would track there (.gitignore honoured) is snapshotted into a shadow git
// repository in the extension's storage (see shadowGit.ts). A snapshot is incremental (only files
// whose stat changed are hashed again; contents are deduplicated across checkpoints), and it covers
// what run_command may touch, which no tool can name in advance. Restoring compares the checkpoint
// with a fresh snapshot of now: files created since are deleted, deleted ones recreated, changed
// ones written back. What was present but not saved (ignored, too large, unreadable) is recorded
// with the checkpoint, and a restore never touches a file whose state then is unknown: "created"
// means known to have been absent (a .gitignore edited since cannot turn a saved-nowhere `.env`
// into a file to delete). A change of type (file, symlink, folder) is a removal plus additions,
// and one path that git cannot store is left out (like a large file) instead of failing the
// snapshot. Bounded: files over `maxFileBytes` are not snapshotted (and never touched by a
// restore), at most `maxCount` checkpoints per session, and the oldest go when the repository
// exceeds `maxStorageBytes`. Plain Node, no vscode.
import { lstatSync, mkdirSync, readFileSync, renameSync, rmSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { errorMessage, writeFileAtomic } from '../../core';
import { CheckpointError, ShadowGit, splitZ, zInput, type TreeEntry } from './shadowGit';

export interface CheckpointLimits {
  /** Checkpoints kept per session (the oldest are dropped first). */
  maxCount: number;
  /** Files larger than this are not snapshotted. */
  maxFileBytes: number;
  /** The session's repository may grow to this before old checkpoints are dropped. */
  maxStorageBytes: number;
}

export const DEFAULT_CHECKPOINT_LIMITS: CheckpointLimits = { maxCount: 50, maxFileBytes: 1024 * 1024, maxStorageBytes: 500 * 1024 * 1024 };

/** A checkpoint: the workspace as it was before the turn of prompt `promptId` first changed it. */
export interface Checkpoint {
  id: string;
  /** The session message id of the prompt. */
  promptId: string;
  createdAt: number;
  tree: string;
  /** Files left out of the snapshot (too large, or git could not store them): a restore never touches them. */
  skipped: string[];
  /**
   * The blob listing (NUL-separated) what was present but ignored then (folders ignored as a whole
   * as `dir/`). Missing in checkpoints taken before it was recorded: nothing is known to have been absent.
   */
  unsaved?: string;
}

/** What a restore does to one file, and what happened to it since the checkpoint. */
export interface RestoreChange {
  path: string;
  /** created: deleted by the restore; deleted: recreated; modified: written back. */
  since: 'created' | 'deleted' | 'modified';
}

export interface RestorePlan {
  checkpoint: Checkpoint;
  changes: RestoreChange[];
  /** The snapshot of now the plan was computed against (what a restore checks has not moved). */
  currentTree: string;
  /** Files present now whose state at the checkpoint is unknown (ignored or not saved then): left alone. */
  unknown: string[];
}

export interface CheckpointStoreOptions {
  /** This session's folder in the extension's storage (the repository and the manifest live there). */
  dir: string;
  workspaceRoot: string;
  limits?: Partial<CheckpointLimits>;
  /** gitignore lines the snapshots leave out besides the workspace's .gitignore files. */
  excludes?: readonly string[];
  git?: string;
  now?: () => number;
}

const MANIFEST = 'checkpoints.json';

export class CheckpointStore {
  private readonly repo: ShadowGit;
  private readonly manifestPath: string;
  private entries: Checkpoint[] | undefined;
  private initialized = false;
  private queue: Promise<unknown> = Promise.resolve();
  limits: CheckpointLimits;

  constructor(private readonly o: CheckpointStoreOptions) {
    this.repo = new ShadowGit(join(o.dir, 'git'), o.workspaceRoot, o.git);
    this.manifestPath = join(o.dir, MANIFEST);
    this.limits = { ...DEFAULT_CHECKPOINT_LIMITS, ...o.limits };
  }

  /** Checkpoints, oldest first. A manifest that does not parse is kept aside and reported. */
  list(): Checkpoint[] {
    if (!this.entries) this.entries = this.loadManifest();
    return [...this.entries];
  }

  forPrompt(promptId: string): Checkpoint | undefined {
    return this.list().find((c) => c.promptId === promptId);
  }

  /** Snapshot the workspace for `promptId` unless it has a checkpoint already. */
  ensure(promptId: string): Promise<Checkpoint> {
    return this.serial(async () => {
      const existing = this.forPrompt(promptId);
      if (existing) return existing;
      const { tree, skipped, ignored } = await this.snapshot();
      const now = (this.o.now ?? Date.now)();
      const unsaved = await this.repo.writeBlob(zInput(ignored));
      const id = `ck_${now.toString(36)}_${this.list().length}`;
      const checkpoint: Checkpoint = { id, promptId, createdAt: now, tree, skipped, unsaved };
      await this.repo.setRef(checkpoint.id, tree);
      await this.repo.setRef(unsavedRef(checkpoint.id), unsaved);
      this.save([...this.list(), checkpoint]);
      await this.enforceBounds();
      return checkpoint;
    });
  }

  /** What restoring `promptId`'s checkpoint would change, file by file (sorted by path). */
  plan(promptId: string): Promise<RestorePlan> {
    return this.serial(async () => {
      const checkpoint = this.required(promptId);
      const { tree, skipped, ignored: ignoredNow } = await this.snapshot();
      const [before, now] = await Promise.all([this.repo.listTree(checkpoint.tree), this.repo.listTree(tree)]);
      const leftOut = new Set([...checkpoint.skipped, ...skipped]);
      const unsavedThen = checkpoint.unsaved ? coverage(splitZ(await this.repo.readBlob(checkpoint.unsaved))) : () => true;
      const presentNow = coverage(ignoredNow);
      const then = byPath(before);
      const current = byPath(now);
      const changes: RestoreChange[] = [];
      const unknown: string[] = [];
      for (const [path, e] of then) {
        const c = current.get(path);
        // Not in the snapshot of now but there (ignored now): the restore writes over it.
        if (!c) changes.push({ path, since: presentNow(path) ? 'modified' : 'deleted' });
        else if (c.sha !== e.sha || c.mode !== e.mode) changes.push({ path, since: 'modified' });
      }
      for (const path of current.keys()) {
        if (then.has(path) || leftOut.has(path)) continue;
        if (unsavedThen(path)) unknown.push(path);
        else changes.push({ path, since: 'created' });
      }
      const kept = changes.filter(
        (c) => !leftOut.has(c.path) && then.get(c.path)?.mode !== '160000' && current.get(c.path)?.mode !== '160000',
      );
      kept.sort((a, b) => comparePaths(a.path, b.path));
      return { checkpoint, changes: kept, currentTree: tree, unknown: unknown.sort(comparePaths) };
    });
  }

  /** The content of `path` at `promptId`'s checkpoint (null: the file did not exist then). */
  contentAt(promptId: string, path: string): Promise<Buffer | null> {
    return this.serial(async () => {
      const entry = (await this.repo.listTree(this.required(promptId).tree)).find((e) => e.path === path);
      return entry ? this.repo.readBlob(entry.sha) : null;
    });
  }

  /**
   * Bring the files of `plan` back to the checkpoint. Refuses when the workspace changed since the
   * plan was made (the user confirmed that list, not another). Returns the paths it changed.
   */
  restore(plan: RestorePlan, write: RestoreWriter): Promise<string[]> {
    return this.serial(async () => {
      const { tree } = await this.snapshot();
      if (tree !== plan.currentTree) {
        throw new CheckpointError('The workspace changed since this restore was previewed; preview it again.');
      }
      const then = byPath(await this.repo.listTree(plan.checkpoint.tree));
      const done: string[] = [];
      const failed: string[] = [];
      // Removals first: a file that replaced a folder (or a folder a file) goes before the old one comes back.
      const ordered = [...plan.changes.filter((c) => c.since === 'created'), ...plan.changes.filter((c) => c.since !== 'created')];
      for (const change of ordered) {
        const entry = then.get(change.path);
        try {
          if (change.since === 'created') await write.remove(change.path);
          else if (entry) await write.put(change.path, await this.repo.readBlob(entry.sha), entry.mode);
          done.push(change.path);
        } catch (e) {
          failed.push(`${change.path} (${errorMessage(e)})`);
        }
      }
      // The index learns the restored state on the next snapshot (stat-based, like git status).
      if (failed.length > 0) {
        throw new CheckpointError(`Restored ${done.length} of ${ordered.length} files; not restored: ${failed.join('; ')}`);
      }
      return done.sort(comparePaths);
    });
  }

  /** Drop every checkpoint of this session and its repository (the session was deleted). */
  deleteAll(): Promise<void> {
    return this.serial(async () => {
      rmSync(this.o.dir, { recursive: true, force: true });
      this.entries = [];
      this.initialized = false;
    });
  }

  /** The repository's size on disk (bytes of objects). */
  storageBytes(): Promise<number> {
    return this.serial(async () => (this.initialized || this.exists() ? this.repo.storageBytes() : 0));
  }

  private exists(): boolean {
    try {
      return lstatSync(join(this.o.dir, 'git')).isDirectory();
    } catch {
      return false;
    }
  }

  private async snapshot(): Promise<{ tree: string; skipped: string[]; ignored: string[] }> {
    if (!this.initialized) {
      await this.repo.init(['.git', ...(this.o.excludes ?? [])]);
      this.initialized = true;
    }
    const changed = await this.repo.changedPaths();
    const skipped: string[] = [];
    const stage: string[] = [];
    const gone: string[] = [];
    for (const path of changed) {
      const stat = beyondSymlink(this.o.workspaceRoot, path) ? null : lstatOf(join(this.o.workspaceRoot, path));
      // A folder where the index has a file or symlink: that entry is gone; git lists the folder's files on their own.
      // (A nested repository is listed as `dir/` and staged as one entry.)
      if (stat === null || (stat.isDirectory() && !path.endsWith('/'))) gone.push(path);
      else if (stat.size > this.limits.maxFileBytes && !stat.isDirectory()) skipped.push(path);
      else stage.push(path);
    }
    await this.repo.forget(gone);
    skipped.push(...(await this.stageEach(stage)));
    await this.repo.unstage(skipped);
    const [tree, ignored] = await Promise.all([this.repo.writeTree(), this.repo.ignoredPaths()]);
    return { tree, skipped, ignored };
  }

  /** Stage `paths`; when git refuses the batch, path by path. Returns the paths it could not stage (left out). */
  private async stageEach(paths: readonly string[]): Promise<string[]> {
    try {
      await this.repo.stage(paths);
      return [];
    } catch {
      const failed: string[] = [];
      for (const path of paths) {
        try {
          await this.repo.stage([path]);
        } catch {
          failed.push(path.replace(/\/$/, ''));
        }
      }
      return failed;
    }
  }

  private async enforceBounds(): Promise<void> {
    const entries = this.list();
    const dropped: Checkpoint[] = [];
    while (entries.length > Math.max(1, this.limits.maxCount)) dropped.push(entries.shift()!);
    if (dropped.length > 0) await this.drop(dropped, entries);
    while (entries.length > 1 && (await this.repo.storageBytes()) > this.limits.maxStorageBytes) {
      await this.drop([entries.shift()!], entries);
    }
  }

  private async drop(dropped: readonly Checkpoint[], kept: Checkpoint[]): Promise<void> {
    for (const c of dropped) {
      await this.repo.deleteRef(c.id);
      if (c.unsaved) await this.repo.deleteRef(unsavedRef(c.id));
    }
    this.save(kept);
    await this.repo.prune();
  }

  private required(promptId: string): Checkpoint {
    const c = this.forPrompt(promptId);
    if (!c)
      throw new CheckpointError(`There is no file checkpoint for prompt ${promptId} (it may have been dropped: checkpoints are bounded).`);
    return c;
  }

  private save(entries: Checkpoint[]): void {
    mkdirSync(this.o.dir, { recursive: true });
    writeFileAtomic(this.manifestPath, JSON.stringify({ version: 1, checkpoints: entries }, null, 1));
    this.entries = [...entries];
  }

  private loadManifest(): Checkpoint[] {
    let text: string;
    try {
      text = readFileSync(this.manifestPath, 'utf8');
    } catch {
      return [];
    }
    try {
      return parseManifest(text, this.manifestPath);
    } catch (e) {
      // Nothing is lost: the unreadable manifest is kept beside, and the error names it.
      const aside = `${this.manifestPath}.corrupt-${Date.now()}`;
      renameSync(this.manifestPath, aside);
      throw new CheckpointError(`${errorMessage(e)} (kept as ${aside}; earlier checkpoints of this chat are no longer listed)`);
    }
  }

  /** Run `fn` after every earlier operation of this store (git's index takes one writer). */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn);
    this.queue = next.catch(() => undefined);
    return next;
  }
}

/** How a restore writes into the workspace (the caller confines paths to it). */
export interface RestoreWriter {
  put(path: string, content: Buffer, mode: string): Promise<void>;
  remove(path: string): Promise<void>;
}

/** Parse a manifest; errors name the file and the field. */
export function parseManifest(text: string, file: string): Checkpoint[] {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new CheckpointError(`${file}: invalid JSON: ${errorMessage(e)}`);
  }
  const root = v as { version?: unknown; checkpoints?: unknown };
  if (typeof v !== 'object' || v === null || root.version !== 1 || !Array.isArray(root.checkpoints)) {
    throw new CheckpointError(`${file}: expected {"version":1,"checkpoints":[…]}`);
  }
  return root.checkpoints.map((c: unknown, i: number) => {
    const r = (typeof c === 'object' && c !== null ? c : {}) as Record<string, unknown>;
    const field = (name: string, ok: boolean) => {
      if (!ok) throw new CheckpointError(`${file}: checkpoints[${i}].${name}: missing or of the wrong type`);
    };
    field('id', typeof r.id === 'string' && /^[\w-]{1,100}$/.test(r.id));
    field('promptId', typeof r.promptId === 'string' && r.promptId.length > 0);
    field('createdAt', Number.isFinite(r.createdAt));
    field('tree', typeof r.tree === 'string' && /^[0-9a-f]{40,64}$/.test(r.tree));
    field('skipped', Array.isArray(r.skipped) && r.skipped.every((s) => typeof s === 'string'));
    field('unsaved', r.unsaved === undefined || (typeof r.unsaved === 'string' && /^[0-9a-f]{40,64}$/.test(r.unsaved)));
    return r as unknown as Checkpoint;
  });
}

function unsavedRef(id: string): string {
  return `${id}.unsaved`;
}

/** Whether a path is one of `listed` or inside one of its folders (`dir/`). */
function coverage(listed: readonly string[]): (path: string) => boolean {
  const set = new Set(listed);
  return (path) => {
    if (set.has(path)) return true;
    for (let i = path.indexOf('/'); i >= 0; i = path.indexOf('/', i + 1)) if (set.has(path.slice(0, i + 1))) return true;
    return false;
  };
}

function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function byPath(entries: readonly TreeEntry[]): Map<string, TreeEntry> {
  return new Map(entries.map((e) => [e.path, e]));
}

/** Whether a folder on the way to `rel` is a symlink (git then sees the file as gone). */
function beyondSymlink(root: string, rel: string): boolean {
  const parts = rel.replace(/\/$/, '').split('/').slice(0, -1);
  let at = root;
  for (const part of parts) {
    at = join(at, part);
    try {
      if (lstatSync(at).isSymbolicLink()) return true;
    } catch {
      return false;
    }
  }
  return false;
}

function lstatOf(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}
