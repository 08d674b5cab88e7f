// Discovery: the Claude Code, Codex and Splitpoint sessions of some folders (the workspace), newest
// activity first, each read only at its head and tail (peek.ts) plus one byte scan for compactions
// (compactionScan.ts, continued from where it stopped when the file only grew).
//
// Where the sessions are:
//  - Claude Code: <CLAUDE_CONFIG_DIR, else HOME/.claude>/projects/<folder>/*.jsonl, the folder named
//    after the working directory with every character but A-Z a-z 0-9 replaced by '-' (Claude Code's
//    sanitizePath; a name over 200 characters is cut there and given a hash suffix, matched by its
//    prefix). Older spellings some tools assume (only the path separators replaced; separators, dots,
//    colons, spaces and underscores) are looked up too. Sessions started in a subfolder of a workspace
//    folder live in folders whose name extends the workspace's; they are listed when the cwd their
//    lines record is inside it. Sub-agent transcripts (agent-*.jsonl, all sidechain) are not sessions.
//  - Codex: <CODEX_HOME, else HOME/.codex>/sessions/YYYY/MM/DD/rollout-*.jsonl whose first line (the
//    session_meta) records a cwd equal to a folder or inside it (that line's cwd is cached per file).
//  - Splitpoint: `<id>.jsonl` in each of options.splitpointDirs, its title and compactions from `<id>.meta.json`.
// Only the `limit` newest files (by mtime) are read. Nothing here throws for one bad folder or file: a
// folder that cannot be listed is a line in `problems`, a file that cannot be read or is in no known
// format a row with a `problem`, a file that vanished between listing and reading a line in `problems`.
// The work awaits between files, so the event loop is never held for more than one file's head and tail.
import { open, readdir, readFile, realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, isAbsolute, join, relative, resolve } from 'node:path';
import { errorMessage } from '../base/errors';
import { MAX_SESSION_FILE_BYTES } from '../importers/bounds';
import { parseSessionMeta } from '../session/sessionMeta';
import {
  CLAUDE_CODE_COMPACTION_MARKER,
  CODEX_COMPACTION_MARKER,
  defaultCompactionScanCache,
  type CompactionScanCache,
} from './compactionScan';
import { defaultPeekMemo, type PeekMemo } from './peek';
import type { AgentKind, DiscoveredSession, DiscoverOptions, DiscoverResult } from './types';

export const DEFAULT_DISCOVER_LIMIT = 200;
/** A file appended to this recently is being written. */
export const WRITING_MS = 10_000;
/** Claude Code cuts a project folder name at this length and adds a hash. */
const MAX_SANITIZED_LENGTH = 200;

interface Candidate {
  file: string;
  agent: AgentKind;
  size: number;
  mtimeMs: number;
  ino: number;
  /** Claude Code folders of a subfolder: listed only when the recorded cwd is inside a workspace folder. */
  verifyCwd?: boolean;
}

/** Claude Code's name for a working directory's project folder (before the hash of a long one). */
export function claudeProjectFolderName(cwd: string): string {
  return cwd.replace(/[^A-Za-z0-9]/g, '-');
}

/** Every spelling of the project folder name looked up for `cwd` (see the header). */
export function claudeProjectFolderNames(cwd: string): string[] {
  return [...new Set([claudeProjectFolderName(cwd), cwd.replace(/[\\/]/g, '-'), cwd.replace(/[\\/.: _]/g, '-')])];
}

/** `inner` is `outer` or inside it. */
export function isInside(inner: string, outer: string): boolean {
  const r = relative(resolve(outer), resolve(inner));
  return r === '' || (!r.startsWith('..') && !isAbsolute(r));
}

/** Gives the event loop a turn once this much time (ms) went by since the last one. */
const SLICE_MS = 8;
let sliceStart = 0;
const pause = async (): Promise<void> => {
  if (performance.now() - sliceStart < SLICE_MS) return;
  await new Promise<void>((r) => setImmediate(r));
  sliceStart = performance.now();
};
const codeOf = (e: unknown) => (e as NodeJS.ErrnoException)?.code;
const reason = (e: unknown) => codeOf(e) ?? errorMessage(e);

/** The cwd in a Codex rollout's first line, by file (the line never changes; keyed by inode too). */
const codexCwds = new Map<string, { ino: number; cwd: string | null }>();

export async function discoverSessions(options: DiscoverOptions): Promise<DiscoverResult> {
  const env = options.env ?? process.env;
  const home = options.home ?? env.HOME ?? homedir();
  const now = options.now ?? Date.now;
  const limit = options.limit ?? DEFAULT_DISCOVER_LIMIT;
  const cache = options.compactionCache ?? defaultCompactionScanCache;
  const memo = options.peekMemo ?? defaultPeekMemo;
  // The agents record the real path (Claude Code names its folder after it): a folder reached through a
  // symbolic link is looked up by both.
  const given = options.cwds.map((c) => resolve(c));
  const cwds = [...new Set([...given, ...(await Promise.all(given.map((c) => realpath(c).catch(() => c))))])];
  const problems: string[] = [];
  const claudeRoot = env.CLAUDE_CONFIG_DIR || join(home, '.claude');
  const codexRoot = env.CODEX_HOME || join(home, '.codex');

  const candidates: Candidate[] = [
    ...(await claudeCandidates(join(claudeRoot, 'projects'), cwds, problems)),
    ...(await codexCandidates(join(codexRoot, 'sessions'), problems)),
  ];
  for (const dir of options.splitpointDirs ?? []) candidates.push(...(await splitpointCandidates(dir, problems)));
  candidates.sort((a, b) => b.mtimeMs - a.mtimeMs);

  const sessions: DiscoveredSession[] = [];
  const seen = new Set<string>();
  for (const c of candidates) {
    if (sessions.length >= limit) break;
    if (seen.has(c.file)) continue;
    seen.add(c.file);
    await pause();
    if (c.agent === 'codex') {
      const cwd = await codexCwd(c, problems);
      if (cwd === undefined || cwd === null || !cwds.some((w) => isInside(cwd, w))) continue;
    }
    const row = await readRow(c, cache, memo, now, problems, options.maxOpenBytes ?? MAX_SESSION_FILE_BYTES);
    if (!row) continue;
    if (c.verifyCwd && (row.cwd === null || !cwds.some((w) => isInside(row.cwd as string, w)))) continue;
    sessions.push(row);
  }
  cache.prune(seen);
  memo.prune(seen);
  sessions.sort((a, b) => (b.lastActivity ?? -Infinity) - (a.lastActivity ?? -Infinity));
  return { sessions, problems };
}

async function listDir(dir: string, problems: string[], missingIsFine = true) {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (e) {
    if (!(missingIsFine && codeOf(e) === 'ENOENT')) problems.push(`${dir}: cannot list the folder (${reason(e)})`);
    return [];
  }
}

async function fileCandidate(file: string, agent: AgentKind, problems: string[]): Promise<Candidate | undefined> {
  try {
    const s = await stat(file);
    if (!s.isFile()) return undefined;
    return { file, agent, size: s.size, mtimeMs: s.mtimeMs, ino: s.ino };
  } catch (e) {
    if (codeOf(e) !== 'ENOENT') problems.push(`${file}: cannot read the file's status (${reason(e)})`);
    return undefined;
  }
}

/** How many stat calls run at once (the file system's thread pool does them). */
const STAT_BATCH = 32;

/** Candidates of `files` (stat in batches; vanished ones left out, unreadable ones said in problems). */
async function candidatesOf(files: ReadonlyArray<readonly [string, AgentKind]>, problems: string[]): Promise<Candidate[]> {
  const out: Candidate[] = [];
  for (let i = 0; i < files.length; i += STAT_BATCH) {
    const batch = await Promise.all(files.slice(i, i + STAT_BATCH).map(([f, agent]) => fileCandidate(f, agent, problems)));
    for (const c of batch) if (c) out.push(c);
    await pause();
  }
  return out;
}

async function claudeCandidates(projects: string, cwds: readonly string[], problems: string[]): Promise<Candidate[]> {
  const entries = await listDir(projects, problems);
  if (entries.length === 0) return [];
  const folders = new Map<string, boolean>(); // name -> needs the cwd check
  for (const cwd of cwds) {
    const names = claudeProjectFolderNames(cwd);
    const long = claudeProjectFolderName(cwd).length > MAX_SANITIZED_LENGTH;
    const prefix = `${claudeProjectFolderName(cwd).slice(0, MAX_SANITIZED_LENGTH)}-`;
    for (const e of entries) {
      if (!e.isDirectory()) continue;
      if (names.includes(e.name) || (long && e.name.startsWith(prefix))) folders.set(e.name, false);
      else if (!folders.has(e.name) && names.some((n) => e.name.startsWith(`${n}-`))) folders.set(e.name, true);
    }
  }
  const out: Candidate[] = [];
  for (const [name, verifyCwd] of folders) {
    const dir = join(projects, name);
    const files = (await listDir(dir, problems, false))
      .filter((e) => e.isFile() && e.name.endsWith('.jsonl') && !e.name.startsWith('agent-'))
      .map((e) => [join(dir, e.name), 'claude-code'] as const);
    for (const c of await candidatesOf(files, problems)) out.push(verifyCwd ? { ...c, verifyCwd } : c);
  }
  return out;
}

async function codexCandidates(root: string, problems: string[]): Promise<Candidate[]> {
  const files: Array<readonly [string, AgentKind]> = [];
  const walk = async (dir: string, depth: number, missingIsFine: boolean): Promise<void> => {
    const entries = await listDir(dir, problems, missingIsFine);
    for (const e of entries) {
      const path = join(dir, e.name);
      if (e.isDirectory() && depth < 3) await walk(path, depth + 1, false);
      else if (e.isFile() && /^rollout-.*\.jsonl$/.test(e.name)) files.push([path, 'codex']);
    }
    await pause();
  };
  await walk(root, 0, true);
  return candidatesOf(files, problems);
}

async function splitpointCandidates(dir: string, problems: string[]): Promise<Candidate[]> {
  const entries = await listDir(dir, problems, true);
  const metas = new Set(entries.filter((e) => e.name.endsWith('.meta.json')).map((e) => e.name.slice(0, -'.meta.json'.length)));
  // A session is `<id>.jsonl` beside `<id>.meta.json` (other files there are not sessions).
  const files = entries
    .filter((e) => e.isFile() && e.name.endsWith('.jsonl') && metas.has(e.name.slice(0, -'.jsonl'.length)))
    .map((e) => [join(dir, e.name), 'splitpoint'] as const);
  return candidatesOf(files, problems);
}

/** The cwd a Codex rollout's session_meta records (null: none; undefined: unreadable, said in problems). */
async function codexCwd(c: Candidate, problems: string[]): Promise<string | null | undefined> {
  const known = codexCwds.get(c.file);
  if (known && known.ino === c.ino) return known.cwd;
  let text: string;
  try {
    const handle = await open(c.file, 'r');
    try {
      // The cwd comes early in the session_meta line; a line that starts otherwise is read further.
      let buf = Buffer.allocUnsafe(16 * 1024);
      let { bytesRead } = await handle.read(buf, 0, buf.length, 0);
      if (bytesRead === buf.length && !buf.includes(0x0a) && sessionMetaCwd(buf.toString('utf8')) === null) {
        buf = Buffer.allocUnsafe(256 * 1024);
        ({ bytesRead } = await handle.read(buf, 0, buf.length, 0));
      }
      text = buf.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
  } catch (e) {
    problems.push(codeOf(e) === 'ENOENT' ? `${c.file}: the file vanished before it was read` : `${c.file}: cannot read (${reason(e)})`);
    return undefined;
  }
  const cwd = sessionMetaCwd(text);
  // A file still empty or mid-way through its first line (with no cwd yet) is looked at again next time.
  if (cwd !== null || text.includes('\n')) codexCwds.set(c.file, { ino: c.ino, cwd });
  return cwd;
}

/** The `cwd` of the session_meta first line, from its start (the line may be longer than what was read). */
export function sessionMetaCwd(start: string): string | null {
  const nl = start.indexOf('\n');
  const first = nl >= 0 ? start.slice(0, nl) : start;
  if (!/"type"\s*:\s*"session_meta"/.test(first)) return null;
  const m = /"cwd"\s*:\s*("(?:[^"\\]|\\.)*")/.exec(first);
  if (!m) return null;
  try {
    const v: unknown = JSON.parse(m[1]);
    return typeof v === 'string' && v !== '' ? v : null;
  } catch {
    return null;
  }
}

async function readRow(
  c: Candidate,
  cache: CompactionScanCache,
  memo: PeekMemo,
  now: () => number,
  problems: string[],
  maxOpenBytes: number,
): Promise<DiscoveredSession | undefined> {
  const row: DiscoveredSession = {
    file: c.file,
    agent: c.agent,
    cwd: null,
    model: null,
    title: null,
    lastActivity: c.mtimeMs,
    contextTokens: null,
    contextWindow: null,
    compactions: 0,
    writing: now() - c.mtimeMs < WRITING_MS,
  };
  try {
    // The size may have changed since the listing: read what is there now.
    const s = await stat(c.file);
    const identity = { size: s.size, mtimeMs: s.mtimeMs, ino: s.ino };
    row.lastActivity = s.mtimeMs;
    row.writing = now() - s.mtimeMs < WRITING_MS;
    if (s.size === 0) return { ...row, problem: 'the file is empty (nothing recorded yet)' };
    const peeked = await memo.peek(c.file, identity);
    if (peeked.sidechain) return undefined;
    const expected = c.agent === 'claude-code' ? 'claude-code-jsonl' : c.agent === 'codex' ? 'codex-rollout-jsonl' : 'splitpoint-jsonl';
    row.writing ||= peeked.endsMidLine;
    if (peeked.format !== expected) {
      const what = peeked.format === undefined ? 'an unrecognised format' : `the ${peeked.format} format`;
      return { ...row, problem: `not a ${AGENT_NAMES[c.agent]} session: its first lines are in ${what}` };
    }
    Object.assign(row, {
      cwd: peeked.cwd,
      model: peeked.model,
      title: peeked.title,
      lastActivity: peeked.lastTimestamp ?? s.mtimeMs,
      contextTokens: peeked.contextTokens,
      contextWindow: peeked.contextWindow,
    });
    if (c.agent === 'splitpoint') {
      const meta = await splitpointMeta(c.file);
      row.title = meta.title;
      row.compactions = meta.compactions;
      if (meta.problem) row.problem = meta.problem;
    } else {
      const marker = c.agent === 'claude-code' ? CLAUDE_CODE_COMPACTION_MARKER : CODEX_COMPACTION_MARKER;
      row.compactions = await cache.count(c.file, marker, identity);
    }
    if (s.size > maxOpenBytes)
      row.problem ??= `the file is larger than ${Math.round(maxOpenBytes / 2 ** 20)} MB: it can be listed, not opened`;
    return row;
  } catch (e) {
    if (codeOf(e) === 'ENOENT') {
      problems.push(`${c.file}: the file vanished before it was read`);
      return undefined;
    }
    return { ...row, problem: `cannot read the file (${reason(e)})` };
  }
}

const AGENT_NAMES: Record<AgentKind, string> = { 'claude-code': 'Claude Code', codex: 'Codex', splitpoint: 'Splitpoint' };

async function splitpointMeta(file: string): Promise<{ title: string | null; compactions: number; problem?: string }> {
  const id = basename(file, '.jsonl');
  const metaFile = file.replace(/\.jsonl$/, '.meta.json');
  let text: string;
  try {
    text = await readFile(metaFile, 'utf8');
  } catch (e) {
    return { title: null, compactions: 0, problem: `${metaFile}: cannot read the session's meta (${reason(e)})` };
  }
  const { meta, warnings } = parseSessionMeta(text, metaFile, id);
  return { title: meta.title, compactions: meta.compactions.length, ...(warnings.length > 0 ? { problem: warnings[0] } : {}) };
}
