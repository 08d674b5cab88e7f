// The shared path of edit_file and write_file: read the current text, show the diff, wait for
// approval (with a warning for files that tooling executes), check the file did not change
// meanwhile, then write it through a temp file in the verified folder. Nothing under .git is written.
import { unifiedDiff } from '../service/diff';
import { openConfined, writeFileConfined } from './confinedFs';
import { decodeUtf8, looksBinary } from './files';
import { formatBytes } from './format';
import { executableConfigWarning, refusedWriteReason } from './protectedPaths';
import type { ToolEnvironment } from './tool';
import { CANCELLED_BY_USER, ToolError, type ToolResult } from './types';
import type { ResolvedPath } from './workspacePath';

/** Refuse a write that is code execution in disguise (anything under .git), before any approval. */
export function assertWritable(target: ResolvedPath): void {
  const reason = refusedWriteReason(target.rel);
  if (reason) throw new ToolError(reason);
}

/** The current text of a file about to change, or null when it does not exist. */
export async function readTextForChange(target: ResolvedPath, env: ToolEnvironment): Promise<string | null> {
  if (!target.exists) return null;
  const fh = await openConfined(env.root, target);
  let buf: Buffer;
  try {
    const info = await fh.stat();
    if (info.isDirectory()) throw new ToolError(`${target.rel} is a folder`);
    if (!info.isFile()) throw new ToolError(`${target.rel} is not a regular file`);
    if (info.size > env.limits.maxReadFileBytes) throw new ToolError(`${target.rel} is too large to edit (${formatBytes(info.size)})`);
    buf = await fh.readFile();
  } finally {
    await fh.close();
  }
  if (looksBinary(buf)) throw new ToolError(`${target.rel} looks like a binary file; only text files can be edited`);
  const { text, invalidBytes } = decodeUtf8(buf);
  if (invalidBytes > 0) {
    throw new ToolError(
      `${target.rel} is not valid UTF-8 (${invalidBytes} undecodable byte${invalidBytes === 1 ? '' : 's'}, e.g. Latin-1); ` +
        'editing it here would rewrite them as U+FFFD, so it was not changed. Convert it with run_command (e.g. iconv) first.',
    );
  }
  return text;
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
  const warning = executableConfigWarning(target.rel, original, updated);
  const decision = await env.ctx.requestApproval({
    tool,
    title,
    diff: { path: target.rel, unified, isNewFile },
    proposal: { absPath: target.real, original, proposed: updated },
    ...(warning ? { warning } : {}),
  });
  if (env.ctx.signal.aborted) return { content: CANCELLED_BY_USER, isError: true };
  if (!decision.approved) {
    const why = decision.reason ? `: ${decision.reason}` : '.';
    return { content: `The user rejected this change to ${target.rel}${why} The file was not changed.`, isError: true };
  }
  // The file must still be what the diff was computed from.
  const recheck = env.resolvePath(target.rel);
  assertWritable(recheck);
  const now = await readTextForChange(recheck, env);
  if (now !== original) {
    throw new ToolError(
      `${target.rel} changed on disk while waiting for approval; nothing was written. Read it again and redo the change.`,
    );
  }
  await writeFileConfined(env.root, recheck, updated);
  return { content: 'ok', isError: false };
}
