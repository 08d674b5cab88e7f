// The shell runner behind run_command: one command in its own process group, interleaved output
// with only the tail kept, and on timeout or abort every process it started killed: its group, and
// (on Linux, through /proc) whatever left the group with setsid or a double fork.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { errorMessage } from '../../core';
import { decodeUtf8 } from './files';
import { COMMAND_MARKER, commandProcesses, terminateCommand, type ProcessInfo } from './processTree';

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
  /** On timeout or abort: processes outside the command's process group that had to be killed one by one. */
  escaped?: ProcessInfo[];
  /** Processes the command started that still run when the result is returned (Linux). */
  stillRunning?: ProcessInfo[];
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

/** The last `max` bytes of a stream of chunks. */
class OutputTail {
  private chunks: Buffer[] = [];
  kept = 0;
  dropped = 0;

  constructor(private readonly max: number) {}

  push(data: Buffer): void {
    this.chunks.push(data);
    this.kept += data.length;
    while (this.kept - this.chunks[0].length >= this.max) {
      this.kept -= this.chunks[0].length;
      this.dropped += this.chunks.shift()!.length;
    }
    if (this.kept > this.max) {
      const excess = this.kept - this.max;
      this.chunks[0] = this.chunks[0].subarray(excess);
      this.kept -= excess;
      this.dropped += excess;
    }
  }

  text(): { text: string; invalidBytes: number } {
    let tail = Buffer.concat(this.chunks);
    // A cut in the middle of a UTF-8 sequence leaves continuation bytes at the start: drop them.
    if (this.dropped > 0) while (tail.length > 0 && (tail[0] & 0xc0) === 0x80) tail = tail.subarray(1);
    return decodeUtf8(tail);
  }
}

/**
 * Run `command` through the shell in its own process group; capture interleaved output keeping the
 * last `maxOutputBytes`; kill the whole tree on timeout or abort (SIGTERM, then SIGKILL).
 */
export function runShellCommand(command: string, o: RunShellOptions): Promise<CommandRun> {
  return new Promise((resolvePromise) => {
    const out = new OutputTail(o.maxOutputBytes);
    let timedOut = false;
    let cancelled = false;
    let settled = false;
    let child: ChildProcess;
    const windows = process.platform === 'win32';
    // Every descendant inherits this variable, also those that leave the session: how they are found.
    const marker = randomBytes(8).toString('hex');
    try {
      child = spawn(command, [], {
        cwd: o.cwd,
        shell: o.shell ?? true,
        env: { ...(o.env ?? process.env), [COMMAND_MARKER]: marker },
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
      out.push(data);
      o.onOutput?.(data.toString('utf8'));
    };
    child.stdout?.on('data', push);
    child.stderr?.on('data', push);

    let killing: Promise<ProcessInfo[]> | undefined;
    const killTree = () => {
      const pid = child.pid;
      if (pid === undefined || killing) return;
      if (windows) {
        spawn('taskkill', ['/pid', String(pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true }).on('error', () => {});
        killing = Promise.resolve([]);
        return;
      }
      killing = terminateCommand(pid, marker, o.killGraceMs ?? 2_000);
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
      o.signal?.removeEventListener('abort', onAbort);
      if (lingering) {
        child.stdout?.destroy();
        child.stderr?.destroy();
      }
      const { text: output, invalidBytes } = out.text();
      const base = { output, keptBytes: out.kept, droppedBytes: out.dropped, exitCode, signal: exitSignal };
      void (killing ?? Promise.resolve(undefined)).then((escaped) => {
        const stillRunning = child.pid === undefined || windows ? [] : commandProcesses(child.pid, marker);
        resolvePromise({
          ...base,
          timedOut,
          cancelled,
          lingering,
          invalidBytes,
          ...(escaped && escaped.length > 0 ? { escaped } : {}),
          ...(stillRunning.length > 0 ? { stillRunning } : {}),
          spawnError,
        });
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
