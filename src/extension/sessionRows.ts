// What the "Agent Sessions" view and the follow status bar item say, as plain data: a discovered
// session as a tree row (label, description, icon, tooltip, context value), a problem as a row, and
// the status bar's text for a followed session. No `vscode` import (unit-tested in plain Node);
// sessionsView.ts and followFeature.ts turn these into TreeItems and a StatusBarItem. Also the folders
// the view watches while visible.
import { join } from 'node:path';
import { claudeProjectFolderNames, type AgentKind, type DiscoveredSession, type LiveStatus } from '../core';

/** A tree row as data: sessionsView.ts makes it a TreeItem. */
export interface SessionRow {
  /** Stable id (the file, or the problem's text). */
  id: string;
  label: string;
  description: string;
  /** Markdown lines of the hover. */
  tooltip: string;
  /** A codicon id (`loading~spin` spins). */
  icon: string;
  /** A theme colour id for the icon, if any. */
  iconColor?: string;
  /** `splitpoint.session.agent` (Claude Code or Codex: "Continue in Splitpoint" is offered), `splitpoint.session.own`, or `splitpoint.problem`. */
  contextValue: string;
  /** The session file opened by the row (absent on a problem row). */
  file?: string;
}

const AGENT_LABELS: Record<AgentKind | 'unknown', string> = {
  'claude-code': 'Claude Code',
  codex: 'Codex',
  splitpoint: 'Splitpoint',
  unknown: 'Session',
};

const AGENT_ICONS: Record<AgentKind, string> = {
  'claude-code': 'sparkle',
  codex: 'terminal',
  splitpoint: 'layers',
};

/** The label of an agent, as the user knows it. */
export function agentLabel(agent: AgentKind | 'unknown'): string {
  return AGENT_LABELS[agent] ?? AGENT_LABELS.unknown;
}

/** The longest label the tree shows (the rest is in the tooltip). */
const MAX_LABEL = 80;

/** `ms` ago from `now`, in words: "just now", "4 min ago", "3 h ago", "2 d ago", else the date. */
export function relativeTime(at: number, now: number): string {
  const s = Math.max(0, Math.round((now - at) / 1000));
  if (s < 45) return 'just now';
  const min = Math.round(s / 60);
  if (min < 60) return `${min} min ago`;
  const h = Math.round(min / 60);
  if (h < 24) return `${h} h ago`;
  const d = Math.round(h / 24);
  if (d < 30) return `${d} d ago`;
  return new Date(at).toISOString().slice(0, 10);
}

/** "62% of window" (null when either figure is unknown). */
export function percentOfWindow(tokens: number | null, window: number | null): number | null {
  if (tokens === null || window === null || window <= 0) return null;
  return Math.round((100 * tokens) / window);
}

/** 12,345 with thousands separators, without toLocaleString (its first call initializes ICU: ~15 ms on the host). */
export function thousands(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function baseName(file: string): string {
  return file.split(/[\\/]/).pop() ?? file;
}

/** Markdown text shown as is (no link, emphasis or HTML from a session's title). */
function md(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!<>|~]/g, '\\$&');
}

/** A discovered session as a row, newest activity first being the caller's order. */
export function sessionRow(s: DiscoveredSession, now: number): SessionRow {
  const agent = agentLabel(s.agent);
  const title = s.title && s.title.trim() !== '' ? s.title : baseName(s.file);
  const pct = percentOfWindow(s.contextTokens, s.contextWindow);
  const parts = [
    s.writing ? `● writing now · ${agent}` : agent,
    s.model ?? undefined,
    s.lastActivity !== null ? relativeTime(s.lastActivity, now) : undefined,
    pct !== null ? `${pct}% of window` : undefined,
    s.compactions > 0 ? `${s.compactions} compaction${s.compactions === 1 ? '' : 's'}` : undefined,
  ].filter((p): p is string => p !== undefined);
  const tooltip = [
    `**${md(oneLine(title, 300))}**`,
    '',
    `${agent}${s.model ? ` · ${md(s.model)}` : ''}${s.writing ? ' · **writing now**' : ''}`,
    s.lastActivity !== null ? `Last activity: ${new Date(s.lastActivity).toISOString().replace('T', ' ').slice(0, 19)} UTC` : undefined,
    s.contextTokens !== null
      ? `Context: ${thousands(s.contextTokens)}${s.contextWindow ? ` of ${thousands(s.contextWindow)} tokens (${pct}%)` : ' tokens'}`
      : undefined,
    `Compactions: ${s.compactions}`,
    s.cwd ? `Folder: ${md(s.cwd)}` : undefined,
    `File: ${md(s.file)}`,
    s.problem ? `$(warning) ${md(s.problem)}` : undefined,
  ].filter((l): l is string => l !== undefined);
  const icon = s.problem ? 'warning' : s.writing ? 'loading~spin' : (AGENT_ICONS[s.agent] ?? 'file');
  return {
    id: s.file,
    label: oneLine(title, MAX_LABEL),
    description: s.problem ? `${parts.join(' · ')} · ${oneLine(s.problem, 80)}` : parts.join(' · '),
    tooltip: tooltip.join('  \n'),
    icon,
    ...(s.problem ? { iconColor: 'problemsWarningIcon.foreground' } : s.writing ? { iconColor: 'charts.green' } : {}),
    contextValue: s.agent === 'splitpoint' ? 'splitpoint.session.own' : 'splitpoint.session.agent',
    file: s.file,
  };
}

/** A problem of the discovery (a folder that could not be read…) as a row with a warning icon. */
export function problemRow(problem: string): SessionRow {
  return {
    id: `problem:${problem}`,
    label: oneLine(problem, MAX_LABEL),
    description: '',
    tooltip: md(problem),
    icon: 'warning',
    iconColor: 'problemsWarningIcon.foreground',
    contextValue: 'splitpoint.problem',
  };
}

/** Every row of a discovery: sessions newest activity first (unknown last), then the problems. */
export function sessionRows(found: { sessions: readonly DiscoveredSession[]; problems: readonly string[] }, now: number): SessionRow[] {
  const sessions = [...found.sessions].sort((a, b) => (b.lastActivity ?? -Infinity) - (a.lastActivity ?? -Infinity));
  return [...sessions.map((s) => sessionRow(s, now)), ...found.problems.map(problemRow)];
}

/** The follow status bar item's text and tooltip for a followed session. */
export function followStatusText(status: LiveStatus, gone: boolean): { text: string; tooltip: string } {
  const agent = agentLabel(status.agent);
  const pct = percentOfWindow(status.contextTokens, status.contextWindow);
  const calls =
    status.callsToCompaction === null
      ? ''
      : status.callsToCompaction <= 0
        ? ' · at its compaction point'
        : ` · ${status.callsToCompaction} call${status.callsToCompaction === 1 ? '' : 's'} to compact`;
  const text = gone ? `$(eye-closed) ${agent}: file gone` : `$(eye) ${agent}${pct !== null ? ` ${pct}%` : ''}${calls}`;
  const lines = [
    `Following a ${agent} session${gone ? ' (its file is gone: the figures are the last read)' : ''}.`,
    status.contextTokens !== null
      ? `Context now: ${thousands(status.contextTokens)} of ${thousands(status.contextWindow)} tokens${pct !== null ? ` (${pct}%)` : ''}.`
      : 'Context now: no call recorded yet.',
    status.compactAt !== null ? `${agent} compacts at about ${thousands(status.compactAt)} tokens (${status.compactAtSource}).` : undefined,
    status.costSoFar !== null ? `Cost so far: $${status.costSoFar.toFixed(2)}.` : undefined,
    'Click to show it in the inspector.',
  ].filter((l): l is string => l !== undefined);
  return { text, tooltip: lines.join('\n') };
}

/**
 * The folders whose changes mean a session appeared or grew: each workspace folder's Claude Code project
 * folder, today's Codex sessions folder (rollouts are filed by date), and Splitpoint's own sessions.
 */
export function watchedFolders(
  cwds: readonly string[],
  env: Record<string, string | undefined>,
  home: string,
  splitpointDir: string,
): string[] {
  const claude = env.CLAUDE_CONFIG_DIR || join(home, '.claude');
  const codex = env.CODEX_HOME || join(home, '.codex');
  const d = new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  return [
    ...cwds.flatMap((c) => claudeProjectFolderNames(c).map((name) => join(claude, 'projects', name))),
    join(codex, 'sessions', String(d.getFullYear()), pad(d.getMonth() + 1), pad(d.getDate())),
    join(codex, 'sessions'),
    splitpointDir,
  ];
}
