// Finding every process a command started, also those that left its process group and session
// (`setsid`, double forks reparented to init): through /proc (Linux), by session, process group,
// parent chain and an environment marker that every descendant inherits. Elsewhere: none found
// (the caller still signals the process group).
import { readdirSync, readFileSync } from 'node:fs';

/** The environment variable that marks a command's processes (its value is the run's id). */
export const COMMAND_MARKER = 'SPLITPOINT_COMMAND_ID';

export interface ProcessInfo {
  pid: number;
  /** The command line (or the process name when it has none), shortened. */
  command: string;
  /** In the command's process group (a group signal reaches it); false: it left (setsid, setpgid). */
  inGroup: boolean;
}

interface ProcStat {
  pid: number;
  ppid: number;
  pgrp: number;
  session: number;
  state: string;
}

function readStat(pid: number): ProcStat | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The name (field 2) is in parentheses and may itself contain spaces and parentheses.
    const rest = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return { pid, state: rest[0] ?? '', ppid: Number(rest[1]), pgrp: Number(rest[2]), session: Number(rest[3]) };
  } catch {
    return undefined;
  }
}

function hasMarker(pid: number, marker: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(marker);
  } catch {
    return false;
  }
}

function commandOf(pid: number): string {
  try {
    const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
    const name = cmd || readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    return name.length > 120 ? `${name.slice(0, 119)}…` : name;
  } catch {
    return '?';
  }
}

/**
 * The live processes that belong to the command whose shell is `rootPid` (its own session and
 * group, as spawned detached) and whose environment carries `markerValue`: in its session or group,
 * marked, or descended from one of those. Never this process or `rootPid` itself. Linux only.
 */
export function commandProcesses(rootPid: number, markerValue: string): ProcessInfo[] {
  if (process.platform !== 'linux') return [];
  let pids: number[];
  try {
    pids = readdirSync('/proc')
      .filter((n) => /^\d+$/.test(n))
      .map(Number);
  } catch {
    return [];
  }
  const marker = `${COMMAND_MARKER}=${markerValue}`;
  const stats = pids.map(readStat).filter((s): s is ProcStat => s !== undefined && s.state !== 'Z');
  const ours = new Set<number>();
  for (const s of stats) {
    if (s.pid === process.pid || s.pid === rootPid) continue;
    if (s.session === rootPid || s.pgrp === rootPid || hasMarker(s.pid, marker)) ours.add(s.pid);
  }
  // Descendants of any of them (or of the shell), whatever their environment.
  let grew = true;
  while (grew) {
    grew = false;
    for (const s of stats) {
      if (ours.has(s.pid) || s.pid === process.pid || s.pid === rootPid) continue;
      if (ours.has(s.ppid) || s.ppid === rootPid) {
        ours.add(s.pid);
        grew = true;
      }
    }
  }
  const group = new Map(stats.map((s) => [s.pid, s.pgrp === rootPid]));
  return [...ours].sort((a, b) => a - b).map((pid) => ({ pid, command: commandOf(pid), inGroup: group.get(pid) ?? false }));
}

/** Whether a process is still running (a zombie counts as gone). */
export function isRunning(pid: number): boolean {
  const s = readStat(pid);
  return s !== undefined && s.state !== 'Z';
}

export function signalProcess(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone, or not ours.
  }
}

/**
 * Stop a command: SIGTERM to its process group and to every process commandProcesses finds; after
 * `graceMs` (or as soon as all are gone) SIGKILL to whatever is left, found again. Resolves with
 * the processes outside the group that it had to reach this way.
 */
export async function terminateCommand(rootPid: number, markerValue: string, graceMs: number): Promise<ProcessInfo[]> {
  signalGroup(rootPid, 'SIGTERM');
  const found = commandProcesses(rootPid, markerValue);
  for (const p of found) signalProcess(p.pid, 'SIGTERM');
  const until = Date.now() + graceMs;
  while (Date.now() < until && (isRunning(rootPid) || commandProcesses(rootPid, markerValue).length > 0)) {
    await new Promise((r) => setTimeout(r, 50));
  }
  signalGroup(rootPid, 'SIGKILL');
  const seen = new Map(found.map((p) => [p.pid, p]));
  for (const p of commandProcesses(rootPid, markerValue)) if (!seen.has(p.pid)) seen.set(p.pid, p);
  for (const p of seen.values()) if (isRunning(p.pid)) signalProcess(p.pid, 'SIGKILL');
  return [...seen.values()].filter((p) => !p.inGroup);
}

/** Signal a process group (falling back to the process alone). */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    signalProcess(pid, signal);
  }
}
