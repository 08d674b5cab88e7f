// The shared path of edit_file and write_file: read the current text, show the diff, wait for
// approval, check the file did not change meanwhile, then write it atomically.
import { readFile, stat } from 'node:fs/promises';
import { unifiedDiff } from '../diff';
import { looksBinary, writeFileAtomically } from './files';
import { formatBytes } from './format';
import type { ToolEnvironment } from './tool';
import { CANCELLED_BY_USER, ToolError, type ToolResult } from './types';
import type { ResolvedPath } from './workspacePath';

/** The current text of a file about to change, or null when it does not exist. */
export async function readTextForChange(target: ResolvedPath, env: ToolEnvironment): Promise<string | null> {
  if (!target.exists) return null;
  const info = await stat(target.real);
  if (info.isDirectory()) throw new ToolError(`${target.rel} is a folder`);
  if (!info.isFile()) throw new ToolError(`${target.rel} is not a regular file`);
  if (info.size > env.limits.maxReadFileBytes) throw new ToolError(`${target.rel} is too large to edit (${formatBytes(info.size)})`);
  const buf = await readFile(target.real);
  if (looksBinary(buf)) throw new ToolError(`${target.rel} looks like a binary file; only text files can be edited`);
  return buf.toString('utf8');
}

/** Ask the user to approve the change as a diff; write it only if approved and the file is unchanged. */
export async function applyWithApproval(
  env: ToolEnvironment,
  tool: string,
  target: ResolvedPath,
  original: string | null,
  updated: string,
  title: string,
): Promise<ToolResult> {
  const isNewFile = original === null;
  const unified = unifiedDiff(original ?? '', updated, {
    oldPath: isNewFile ? '/dev/null' : `a/${target.rel}`,
    newPath: `b/${target.rel}`,
  });
  const decision = await env.ctx.requestApproval({ tool, title, diff: { path: target.rel, unified, isNewFile } });
  if (env.ctx.signal.aborted) return { content: CANCELLED_BY_USER, isError: true };
  if (!decision.approved) {
    const why = decision.reason ? `: ${decision.reason}` : '.';
    return { content: `The user rejected this change to ${target.rel}${why} The file was not changed.`, isError: true };
  }
  // The file must still be what the diff was computed from.
  const now = await readTextForChange(env.resolvePath(target.rel), env);
  if (now !== original) {
    throw new ToolError(
      `${target.rel} changed on disk while waiting for approval; nothing was written. Read it again and redo the change.`,
    );
  }
  await writeFileAtomically(target.real, updated);
  return { content: 'ok', isError: false };
}
