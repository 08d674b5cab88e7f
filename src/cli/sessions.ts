// `splitpoint sessions [--json] [--cwd DIR]`: the Claude Code and Codex sessions of a folder (default: the
// current one; Splitpoint's own sessions live in VS Code's workspace storage, which the view lists), newest
// activity first, each read only at its head and tail (core discoverSessions). The
// agents' folders follow the environment: HOME, CLAUDE_CONFIG_DIR, CODEX_HOME. Folders or files that could
// not be read are stderr lines naming them; the list still prints (exit 0).
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { discoverSessions, type DiscoveredSession, type DiscoverOptions } from '../core';
import { EXIT_OK, one, rejectFlags, UsageError, type CliIO, type ParsedArgs } from './args';
import { oneLine } from './terminal';

/** One session as `sessions --json` prints it (lastActivity as ISO 8601). */
export interface SessionJson {
  file: string;
  agent: DiscoveredSession['agent'];
  cwd: string | null;
  model: string | null;
  title: string | null;
  lastActivity: string | null;
  contextTokens: number | null;
  contextWindow: number | null;
  compactions: number;
  writing: boolean;
  problem?: string;
}

export function sessionJson(s: DiscoveredSession): SessionJson {
  return {
    file: s.file,
    agent: s.agent,
    cwd: s.cwd,
    model: s.model,
    title: s.title,
    lastActivity: s.lastActivity === null ? null : new Date(s.lastActivity).toISOString(),
    contextTokens: s.contextTokens,
    contextWindow: s.contextWindow,
    compactions: s.compactions,
    writing: s.writing,
    ...(s.problem !== undefined ? { problem: s.problem } : {}),
  };
}

export async function sessionsCommand(rest: string[], args: ParsedArgs, io: CliIO, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  rejectFlags(args, 'sessions', ['--json', '--cwd']);
  if (rest.length > 0) throw new UsageError(`sessions takes no FILE (got "${rest[0]}"); use --cwd DIR for another folder`);
  const cwd = resolve(one(args, '--cwd') ?? process.cwd());
  let isDir = false;
  try {
    isDir = statSync(cwd).isDirectory();
  } catch {
    // Reported below.
  }
  if (!isDir) throw new UsageError(`--cwd ${cwd}: no such folder`);
  const options: DiscoverOptions = { cwds: [cwd], env };
  const { sessions, problems } = await discoverSessions(options);
  for (const p of problems) io.stderr(`splitpoint: ${oneLine(p)}\n`);
  if (args.flags.has('--json')) {
    io.stdout(JSON.stringify(sessions.map(sessionJson), null, 2) + '\n');
    return EXIT_OK;
  }
  io.stdout(sessionsTable(cwd, sessions));
  return EXIT_OK;
}

const n = (x: number) => x.toLocaleString('en-US');
/** Titles in the table are cut here (the JSON has the whole title). */
const TABLE_TITLE_CHARS = 80;
const clip = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);
const AGENTS: Record<DiscoveredSession['agent'], string> = { 'claude-code': 'Claude Code', codex: 'Codex', splitpoint: 'Splitpoint' };

function context(s: DiscoveredSession): string {
  if (s.contextTokens === null) return '-';
  if (s.contextWindow === null) return n(s.contextTokens);
  return `${n(s.contextTokens)} / ${n(s.contextWindow)} (${Math.round((s.contextTokens / s.contextWindow) * 100)}%)`;
}

function when(ms: number | null): string {
  return ms === null
    ? '-'
    : new Date(ms)
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, 'Z');
}

/** The readable list: one line per session (agent, last activity, context, compactions, model, title), its file below. */
export function sessionsTable(cwd: string, sessions: readonly DiscoveredSession[]): string {
  if (sessions.length === 0) return `No Claude Code or Codex sessions for ${oneLine(cwd)}.\n`;
  const rows = sessions.map((s) => [
    AGENTS[s.agent] + (s.writing ? ' *' : ''),
    when(s.lastActivity),
    context(s),
    String(s.compactions),
    oneLine(s.model ?? '-'),
    clip(oneLine(s.title ?? '(no title)'), TABLE_TITLE_CHARS),
  ]);
  const head = ['AGENT', 'LAST ACTIVITY', 'CONTEXT', 'COMPACTIONS', 'MODEL', 'TITLE'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  const out = [`Sessions of ${oneLine(cwd)} (newest activity first; * = being written now):`, line(head)];
  sessions.forEach((s, i) => {
    out.push(line(rows[i]));
    out.push(`  ${oneLine(s.file)}${s.problem ? `  (${oneLine(s.problem)})` : ''}`);
  });
  return out.join('\n') + '\n';
}
