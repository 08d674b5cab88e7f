// How a restore writes into the workspace: every path is confined to the workspace folder (its
// parent resolved through symlinks, as the tools do), a leaf that is a symlink is replaced rather
// than written through, files are written through a temp file and renamed, and folders that a
// removal leaves empty are removed up to the workspace root. A folder is never removed with what
// is in it: a file comes back in place of a folder only when the folder is empty (the restore
// removes the files it knows first; anything else in there was never saved).
import { chmod, lstat, mkdir, readdir, rename, rmdir, symlink, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join, posix } from 'node:path';
import { resolveWorkspacePath } from '../tools/workspacePath';
import type { RestoreWriter } from './checkpointStore';
import { CheckpointError } from './shadowGit';

export function workspaceWriter(root: string): RestoreWriter {
  /** The real path of `rel` with its parent confined to the workspace (the leaf itself is not followed). */
  const locate = (rel: string): { parent: string; leaf: string; rootReal: string } => {
    if (rel.split('/').some((s) => s === '..' || s === '.git' || s === '')) throw new CheckpointError(`refusing to restore ${rel}`);
    const rootReal = resolveWorkspacePath(root, '.').real;
    const parentRel = posix.dirname(rel);
    const parent = parentRel === '.' ? rootReal : resolveWorkspacePath(root, parentRel).real;
    return { parent, leaf: join(parent, basename(rel)), rootReal };
  };
  const leafKind = async (p: string) => {
    try {
      const s = await lstat(p);
      return s.isSymbolicLink() ? 'link' : s.isDirectory() ? 'dir' : 'file';
    } catch {
      return 'none';
    }
  };
  return {
    async put(rel, content, mode) {
      const { parent, leaf } = locate(rel);
      await mkdir(parent, { recursive: true });
      // mkdir may have followed nothing new, but check again: the parent must still be inside.
      locate(rel);
      const kind = await leafKind(leaf);
      if (kind === 'dir') await removeEmptyFolder(leaf, rel);
      else if (kind === 'link') await unlink(leaf);
      if (mode === '120000') {
        await symlink(content.toString('utf8'), leaf);
        return;
      }
      const tmp = join(parent, `.${basename(rel)}.splitpoint-restore-${process.pid}-${Date.now()}`);
      await writeFile(tmp, content);
      await chmod(tmp, mode === '100755' ? 0o755 : 0o644);
      await rename(tmp, leaf);
    },
    async remove(rel) {
      const { leaf, rootReal } = locate(rel);
      const kind = await leafKind(leaf);
      if (kind === 'none') return;
      if (kind === 'dir') throw new CheckpointError(`${rel} is a folder now; it was not removed`);
      await unlink(leaf);
      for (let dir = dirname(leaf); dir.startsWith(rootReal) && dir !== rootReal; dir = dirname(dir)) {
        if ((await readdir(dir)).length > 0) break;
        await rmdir(dir);
      }
    },
  };
}

/** Remove the folder at `leaf` if it is empty; else refuse (what is in it was not saved by the checkpoint). */
async function removeEmptyFolder(leaf: string, rel: string): Promise<void> {
  if ((await readdir(leaf)).length > 0) {
    throw new CheckpointError(`${rel} is a folder now, with files the checkpoint did not save; it was not replaced`);
  }
  await rmdir(leaf);
}
