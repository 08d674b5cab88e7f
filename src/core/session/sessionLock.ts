// One writer per session. Two VS Code windows (or two without a folder, which share global storage)
// must not append to the same session file: their histories would interleave and a prompt be lost.
// The lock is proper-lockfile's (a `<file>.lock` directory made atomically with mkdir, its mtime kept
// fresh while held, taken over only once stale, so a crashed window does not lock a session forever).
import * as lockfile from 'proper-lockfile';
import { errorMessage, SplitpointError } from '../base/errors';

/** A lock not refreshed for this long belongs to a dead process (the holder refreshes it every half of it). */
export const SESSION_LOCK_STALE_MS = 30_000;

export class SessionLockedError extends SplitpointError {
  constructor(
    readonly sessionFile: string,
    detail: string,
  ) {
    super(`The session ${sessionFile} is open in another window (${detail}).`);
    this.name = 'SessionLockedError';
  }
}

export interface SessionLock {
  readonly file: string;
  /** Release the lock (idempotent). */
  release(): void;
}

/**
 * Take the exclusive lock of a session file, or throw SessionLockedError if another process (or another
 * log in this one) holds it. `onCompromised` is called if the lock is lost while held (its directory was
 * removed or taken over after this process stalled for longer than the stale time).
 */
export function lockSession(file: string, onCompromised: (message: string) => void, staleMs = SESSION_LOCK_STALE_MS): SessionLock {
  let release: (() => void) | undefined;
  try {
    release = lockfile.lockSync(file, {
      realpath: false,
      stale: staleMs,
      onCompromised: (e) => {
        release = undefined;
        onCompromised(`The lock of ${file} was lost (${errorMessage(e)}); another window may now write to this session.`);
      },
    });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOCKED') throw new SessionLockedError(file, 'it is locked');
    throw e;
  }
  return {
    file,
    release() {
      const r = release;
      release = undefined;
      try {
        r?.();
      } catch {
        // Already released or compromised: the lock is not ours any more either way.
      }
    },
  };
}
