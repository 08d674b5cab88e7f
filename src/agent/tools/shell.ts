// The shell runner behind run_command: one command in its own process group, interleaved output
// with only the tail kept, and the whole process tree killed on timeout or abort.
import { spawn, type ChildProcess } from 'node:child_process';
import { errorMessage } from '../../core';
import { decodeUtf8 } from './files';

export interface CommandRun {
  /** Combined stdout/stderr in arrival order (the kept tail). */
  output: string;
  keptBytes: number;
  droppedBytes: number;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  cancelled: boolean;
  /** The shell exited but something it started still held the output pipes. */
  lingering: boolean;
  /** Bytes of the kept output that are not valid UTF-8 (shown as U+FFFD). */
  invalidBytes: number;
  spawnError?: string;
}

export interface RunShellOptions {
  cwd: string;
  timeoutMs: number;
  signal?: AbortSignal;
  maxOutputBytes: number;
  killGraceMs?: number;
  shell?: string;
  env?: NodeJS.ProcessEnv;
  onOutput?: (chunk: string) => void;
}

/**
 * Run `command` through the shell in its own process group; capture interleaved output keeping the
 * last `maxOutputBytes`; kill the whole tree on timeout or abort (SIGTERM, then SIGKILL).
 */
export function runShellCommand(command: string, o: RunShellOptions): Promise<CommandRun> {
  return new Promise((resolvePromise) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let dropped = 0;
    let timedOut = false;
    let cancelled = false;
    let settled = false;
    let child: ChildProcess;
    const windows = process.platform === 'win32';
    try {
      child = spawn(command, [], {
        cwd: o.cwd,
        shell: o.shell ?? true,
        env: o.env,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: !windows,
        windowsHide: true,
      });
    } catch (e) {
      const spawnError = errorMessage(e);
      const nothing = { output: '', keptBytes: 0, droppedBytes: 0, exitCode: null, signal: null };
      resolvePromise({ ...nothing, timedOut: false, cancelled: false, lingering: false, invalidBytes: 0, spawnError });
      return;
    }

    const push = (data: Buffer) => {
      chunks.push(data);
      kept += data.length;
      while (kept - chunks[0].length >= o.maxOutputBytes) {
        kept -= chunks[0].length;
        dropped += chunks.shift()!.length;
      }
      if (kept > o.maxOutputBytes) {
        const excess = kept - o.maxOutputBytes;
        chunks[0] = chunks[0].subarray(excess);
        kept -= excess;
        dropped += excess;
      }
      o.onOutput?.(data.toString('utf8'));
    };
    child.stdout?.on('data', push);
    child.stderr?.on('data', push);

    let killTimer: NodeJS.Timeout | undefined;
    const killTree = () => {
      const pid = child.pid;
      if (pid === undefined) return;
      if (windows) {
        spawn('taskkill', ['/pid', String(pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true }).on('error', () => {});
        return;
      }
      signalGroup(pid, 'SIGTERM');
      killTimer = setTimeout(() => signalGroup(pid, 'SIGKILL'), o.killGraceMs ?? 2_000);
      killTimer.unref();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killTree();
    }, o.timeoutMs);
    const onAbort = () => {
      cancelled = true;
      killTree();
    };
    if (o.signal?.aborted) onAbort();
    else o.signal?.addEventListener('abort', onAbort, { once: true });

    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    let lingerTimer: NodeJS.Timeout | undefined;
    const finish = (lingering: boolean, spawnError?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(lingerTimer);
      if (killTimer && !lingering) clearTimeout(killTimer);
      o.signal?.removeEventListener('abort', onAbort);
      if (lingering) {
        child.stdout?.destroy();
        child.stderr?.destroy();
      }
      let tail = Buffer.concat(chunks);
      // A cut in the middle of a UTF-8 sequence leaves continuation bytes at the start: drop them.
      if (dropped > 0) while (tail.length > 0 && (tail[0] & 0xc0) === 0x80) tail = tail.subarray(1);
      const { text: output, invalidBytes } = decodeUtf8(tail);
      resolvePromise({
        output,
        keptBytes: kept,
        droppedBytes: dropped,
        exitCode,
        signal: exitSignal,
        timedOut,
        cancelled,
        lingering,
        invalidBytes,
        spawnError,
      });
    };
    child.on('error', (e) => finish(false, e.message));
    child.on('exit', (code, sig) => {
      exitCode = code;
      exitSignal = sig;
      // Wait briefly for the pipes to drain; background children may hold them open forever.
      lingerTimer = setTimeout(() => finish(true), 300);
    });
    child.on('close', () => finish(false));
  });
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // Already gone.
    }
  }
}
