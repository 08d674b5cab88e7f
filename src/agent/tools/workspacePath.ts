// Path confinement: every path a tool touches resolves inside the workspace folder, lexically and
// through symlinks.
import { lstatSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { errorMessage } from '../../core';
import { ToolError } from './types';

export interface ResolvedPath {
  /** Where the path points after following symlinks (what is read or written). */
  real: string;
  /** Relative to the workspace root, with '/' separators ('.' for the root). */
  rel: string;
  /** Whether something exists at the path. */
  exists: boolean;
}

/**
 * Resolve a tool's path inside the workspace, or throw a ToolError. Relative paths resolve against
 * the root; backslashes count as separators on every platform (so `..\x` is an escape everywhere);
 * absolute paths, `..` segments and symlinks (the path itself or any parent) must all stay inside
 * the root, checked with realpath of the nearest existing ancestor. NUL bytes are refused.
 */
export function resolveWorkspacePath(root: string, input: unknown, what = 'path'): ResolvedPath {
  if (typeof input !== 'string') throw new ToolError(`${what} must be a string`);
  if (input.includes('\0')) throw new ToolError(`${what} contains a NUL byte: ${JSON.stringify(input)}`);
  if (input.trim() === '') throw new ToolError(`${what} is empty`);
  const rootAbs = resolve(root);
  let rootReal: string;
  try {
    rootReal = realpathSync(rootAbs);
  } catch (e) {
    throw new ToolError(`the workspace folder is not accessible: ${errorMessage(e)}`);
  }
  const normalized = input.replace(/\\/g, '/');
  const abs = isAbsolute(normalized) ? resolve(normalized) : resolve(rootAbs, normalized);
  if (!isInside(rootAbs, abs) && !isInside(rootReal, abs)) throw escapes(input);

  // The nearest existing ancestor (possibly the path itself), followed through symlinks.
  let existing = abs;
  const missing: string[] = [];
  for (;;) {
    try {
      lstatSync(existing);
      break;
    } catch {
      const parent = dirname(existing);
      if (parent === existing) throw new ToolError(`${what} cannot be resolved: ${input}`);
      missing.unshift(basename(existing));
      existing = parent;
    }
  }
  let existingReal: string;
  try {
    existingReal = realpathSync(existing);
  } catch {
    // lstat found it but realpath cannot follow it: a dangling (or looping) symlink.
    throw new ToolError(`${what} is a symbolic link whose target does not exist: ${input}`);
  }
  const real = missing.length > 0 ? join(existingReal, ...missing) : existingReal;
  if (!isInside(rootReal, real)) throw escapes(input, real);
  const rel = relative(rootReal, real).split(sep).join('/') || '.';
  return { real, rel, exists: missing.length === 0 };
}

function escapes(input: string, real?: string): ToolError {
  return new ToolError(`path escapes the workspace: ${input}${real && real !== input ? ` (resolves to ${real})` : ''}`);
}

function isInside(root: string, p: string): boolean {
  const r = relative(root, p);
  return r === '' || (r !== '..' && !r.startsWith('..' + sep) && !isAbsolute(r));
}
