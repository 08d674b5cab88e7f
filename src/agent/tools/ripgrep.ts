// Where ripgrep is, and one ripgrep run as a child process: its JSON events streamed line by line,
// killed on abort, on a timeout, or when the caller has enough. Ripgrep's regex engine is linear in
// the input, so no pattern can freeze the host; the child process keeps even a slow search off the
// event loop.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import { ToolError } from './types';

const EXE = process.platform === 'win32' ? 'rg.exe' : 'rg';

/** Where VS Code ships rg under `vscode.env.appRoot` (unpacked from the asar archive in builds). */
export function vscodeRipgrepCandidates(appRoot: string): string[] {
  return ['node_modules', 'node_modules.asar.unpacked'].map((nm) => join(appRoot, nm, '@vscode', 'ripgrep', 'bin', EXE));
}

/**
 * The first rg found: the npm package `@vscode/ripgrep-<platform>-<arch>` (an optional dependency,
 * its binary inside; found from this module's folder or the current folder upwards), then absolute
 * PATH entries. Undefined when there is none.
 */
export function findRipgrep(): string | undefined {
  const pkg = join('node_modules', '@vscode', `ripgrep-${process.platform}-${process.arch}`, 'bin', EXE);
  const starts = [typeof __dirname === 'string' ? __dirname : undefined, process.cwd()].filter((d): d is string => !!d);
  for (const start of starts) {
    for (let dir = start; ; dir = dirname(dir)) {
      const candidate = join(dir, pkg);
      if (existsSync(candidate)) return candidate;
      if (dirname(dir) === dir) break;
    }
  }
  // Relative PATH entries would let the workspace supply its own rg: only absolute ones count.
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && isAbsolute(dir) && existsSync(join(dir, EXE))) return join(dir, EXE);
  }
  return undefined;
}

export interface RipgrepRun {
  /** How the run ended: rg's exit code (0 matches, 1 none, 2 error), or why it was killed. */
  outcome: { exitCode: number | null } | { killed: 'aborted' | 'timeout' | 'enough' };
  /** rg's stderr (debug lines removed), for error messages. */
  stderr: string;
}

export interface RipgrepOptions {
  rgPath: string;
  args: string[];
  cwd: string;
  signal: AbortSignal;
  timeoutMs: number;
  /** One parsed JSON event; return false to stop the search (enough results). */
  onEvent(e: RipgrepEvent): boolean;
  /** One `--debug` line on stderr (rg reports skipped files there). */
  onDebug?(line: string): void;
}

/** The parts of rg's `--json` events this module reads. */
export interface RipgrepEvent {
  type: string;
  data?: {
    path?: { text?: string; bytes?: string };
    lines?: { text?: string; bytes?: string };
    line_number?: number;
    stats?: { searches?: number };
  };
}

/** Run rg; resolves when it has exited (or was killed), never rejects for rg's own failures. */
export function runRipgrep(o: RipgrepOptions): Promise<RipgrepRun> {
  if (!existsSync(o.rgPath)) {
    return Promise.reject(new ToolError(`ripgrep (rg) was not found at ${o.rgPath}; search needs it`));
  }
  return new Promise((resolve) => {
    // RIPGREP_CONFIG_PATH could add options behind our back; --no-config also ignores it.
    const env = { ...process.env };
    delete env.RIPGREP_CONFIG_PATH;
    const child = spawn(o.rgPath, o.args, { cwd: o.cwd, env, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    let killed: 'aborted' | 'timeout' | 'enough' | undefined;
    let stderr = '';
    let outBuf = '';
    let errBuf = '';
    const kill = (why: 'aborted' | 'timeout' | 'enough') => {
      if (killed) return;
      killed = why;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => kill('timeout'), o.timeoutMs);
    const onAbort = () => kill('aborted');
    if (o.signal.aborted) onAbort();
    else o.signal.addEventListener('abort', onAbort, { once: true });

    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      if (killed) return;
      outBuf += chunk;
      let nl = outBuf.indexOf('\n');
      while (nl !== -1 && !killed) {
        const line = outBuf.slice(0, nl);
        outBuf = outBuf.slice(nl + 1);
        nl = outBuf.indexOf('\n');
        let event: RipgrepEvent;
        try {
          event = JSON.parse(line) as RipgrepEvent;
        } catch {
          continue;
        }
        if (!o.onEvent(event)) kill('enough');
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      errBuf += chunk;
      let nl = errBuf.indexOf('\n');
      while (nl !== -1) {
        const line = errBuf.slice(0, nl);
        errBuf = errBuf.slice(nl + 1);
        nl = errBuf.indexOf('\n');
        if (/^rg: DEBUG\|/.test(line)) o.onDebug?.(line);
        else if (stderr.length < 4_000) stderr += `${line}\n`;
      }
    });
    let done = false;
    const finish = (exitCode: number | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      o.signal.removeEventListener('abort', onAbort);
      resolve({ outcome: killed ? { killed } : { exitCode }, stderr: stderr.trim() });
    };
    child.on('error', (e) => {
      stderr += e.message;
      finish(null);
    });
    child.on('close', (code) => finish(code));
  });
}
