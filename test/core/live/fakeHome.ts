// A fake home folder holding copies of the real session fixtures where each agent keeps its sessions:
// Claude Code in <home>/.claude/projects/<workspace path with every non-alphanumeric as '-'>/, Codex in
// <home>/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl with the first line's session_meta cwd rewritten to the
// fake workspace (or somewhere else, for the files that must not be listed). Also: the expected figures,
// computed here from the raw lines, independently of the importers.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const FIXTURES = 'test/fixtures/real-sessions';
export const CLAUDE_FIXTURES = ['a', 'b', 'c'].map((x) => `claude-code-cipher-box-${x}.jsonl`);
export const CODEX_FIXTURES = ['a', 'b'].map((x) => `codex-agentv-${x}.jsonl`);

export interface FakeHome {
  root: string;
  home: string;
  /** The fake workspace folder (exists, empty). */
  ws: string;
  claudeProject: string;
  /** Listed files by fixture name. */
  files: Record<string, string>;
  /** Codex files of other folders (must not be listed). */
  others: string[];
  remove(): void;
}

/** The first line's payload.cwd set to `cwd`. */
export function withCodexCwd(text: string, cwd: string): string {
  const nl = text.indexOf('\n');
  const first = JSON.parse(text.slice(0, nl)) as { payload: { cwd: string } };
  first.payload.cwd = cwd;
  return JSON.stringify(first) + text.slice(nl);
}

/** A past time (epoch s), so that no copy looks like it is being written; later fixtures get later times. */
const PAST = Math.floor(Date.now() / 1000) - 3600;

export function makeFakeHome(): FakeHome {
  const root = mkdtempSync(join(tmpdir(), 'splitpoint-live-'));
  const home = join(root, 'home');
  const ws = join(root, 'work', 'my.project');
  mkdirSync(ws, { recursive: true });
  const claudeProject = join(home, '.claude', 'projects', ws.replace(/[^A-Za-z0-9]/g, '-'));
  mkdirSync(claudeProject, { recursive: true });
  const files: Record<string, string> = {};
  CLAUDE_FIXTURES.forEach((name, i) => {
    const file = join(claudeProject, `0000000${i}-session.jsonl`);
    writeFileSync(file, readFileSync(join(FIXTURES, name)));
    utimesSync(file, PAST + i, PAST + i);
    files[name] = file;
  });
  const others: string[] = [];
  CODEX_FIXTURES.forEach((name, i) => {
    const text = readFileSync(join(FIXTURES, name), 'utf8');
    const day = join(home, '.codex', 'sessions', '2026', '06', String(22 + i));
    mkdirSync(day, { recursive: true });
    // The second one ran in a subfolder of the workspace: still the workspace's session.
    const file = join(day, `rollout-2026-06-${22 + i}T00-00-00-${i}.jsonl`);
    writeFileSync(file, withCodexCwd(text, i === 0 ? ws : join(ws, 'packages', 'api')));
    utimesSync(file, PAST + 10 + i, PAST + 10 + i);
    files[name] = file;
    // The same session in another folder, and in a folder whose path merely starts like the workspace's.
    for (const [k, cwd] of [join(root, 'elsewhere'), `${ws}-other`].entries()) {
      const other = join(day, `rollout-2026-06-${22 + i}T01-00-00-${i}${k}.jsonl`);
      writeFileSync(other, withCodexCwd(text, cwd));
      utimesSync(other, PAST + 20 + i, PAST + 20 + i);
      others.push(other);
    }
  });
  return { root, home, ws, claudeProject, files, others, remove: () => rmSync(root, { recursive: true, force: true }) };
}

interface RawLine {
  [k: string]: unknown;
}

function rawLines(file: string): RawLine[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as RawLine);
}

/**
 * The context tokens of each recorded call, from the raw lines: Claude Code, each main-chain assistant
 * response (message.id) with usage, input + cache read + cache creation; Codex, each token_count event
 * whose totals changed, last_token_usage.input_tokens (which includes the cached part).
 */
export function rawCallTokens(text: string, codex: boolean): number[] {
  const lines = text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as RawLine);
  const out: number[] = [];
  if (codex) {
    let lastKey = '';
    for (const o of lines) {
      const p = o.payload as { type?: string; info?: { total_token_usage: unknown; last_token_usage: Record<string, number> } } | undefined;
      if (o.type !== 'event_msg' || p?.type !== 'token_count' || !p.info) continue;
      const key = JSON.stringify(p.info.total_token_usage);
      if (key === lastKey) continue;
      lastKey = key;
      const u = p.info.last_token_usage;
      if (u.input_tokens + u.output_tokens > 0) out.push(u.input_tokens);
    }
    return out;
  }
  const seen = new Set<string>();
  for (const o of lines) {
    const m = o.message as { id: string; model: string; usage?: Record<string, number> } | undefined;
    if (o.type !== 'assistant' || o.isSidechain === true || !m?.usage || m.model === '<synthetic>' || seen.has(m.id)) continue;
    seen.add(m.id);
    out.push(m.usage.input_tokens + (m.usage.cache_read_input_tokens ?? 0) + (m.usage.cache_creation_input_tokens ?? 0));
  }
  return out;
}

/** The last line's timestamp (epoch ms). */
export function rawLastTimestamp(file: string): number {
  const lines = rawLines(file);
  for (let i = lines.length - 1; i >= 0; i--) if (typeof lines[i].timestamp === 'string') return Date.parse(lines[i].timestamp as string);
  throw new Error(`${file}: no timestamp`);
}

/** The model of the last recorded call, from the raw lines. */
export function rawModel(file: string, codex: boolean): string {
  const lines = rawLines(file);
  for (let i = lines.length - 1; i >= 0; i--) {
    const o = lines[i];
    if (codex && o.type === 'turn_context') return (o.payload as { model: string }).model;
    const m = o.message as { model?: string; usage?: unknown } | undefined;
    if (!codex && o.type === 'assistant' && m?.usage && m.model && m.model !== '<synthetic>') return m.model;
  }
  throw new Error(`${file}: no model`);
}
