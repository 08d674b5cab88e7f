// What the "Agent Sessions" view and the follow status bar item say (src/extension/sessionRows.ts):
// rows from discovered sessions (label, description, icon, tooltip, what their menu offers), newest
// activity first, problems as warning rows, and the status text of a followed session.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DiscoveredSession, LiveStatus } from '../../src/core';
import {
  followStatusText,
  problemRow,
  relativeTime,
  sessionRow,
  sessionRows,
  thousands,
  watchedFolders,
} from '../../src/extension/sessionRows';

const NOW = Date.UTC(2026, 10, 26, 15, 0, 0);

function session(over: Partial<DiscoveredSession> = {}): DiscoveredSession {
  return {
    file: '/home/u/.claude/projects/-w/abc.jsonl',
    agent: 'claude-code',
    cwd: '/w',
    model: 'claude-opus-4-5',
    title: 'Fix the leap-year bug',
    lastActivity: NOW - 4 * 60_000,
    contextTokens: 124_000,
    contextWindow: 200_000,
    compactions: 2,
    writing: false,
    ...over,
  };
}

test('a session row: title, agent · model · last activity · % of window · compactions, its agent icon, and a follow command', () => {
  const row = sessionRow(session(), NOW);
  assert.equal(row.label, 'Fix the leap-year bug');
  assert.equal(row.description, 'Claude Code · claude-opus-4-5 · 4 min ago · 62% of window · 2 compactions');
  assert.equal(row.icon, 'sparkle');
  assert.equal(row.contextValue, 'splitpoint.session.agent', 'Continue in Splitpoint is offered');
  assert.equal(row.file, '/home/u/.claude/projects/-w/abc.jsonl');
  assert.match(row.tooltip, /Context: 124,000 of 200,000 tokens \(62%\)/);
  assert.match(row.tooltip, /Compactions: 2/);

  const codex = sessionRow(
    session({ agent: 'codex', compactions: 1, model: 'gpt-5.1-codex', contextTokens: 27_200, contextWindow: 272_000 }),
    NOW,
  );
  assert.equal(codex.icon, 'terminal');
  assert.equal(codex.description, 'Codex · gpt-5.1-codex · 4 min ago · 10% of window · 1 compaction');
  const own = sessionRow(session({ agent: 'splitpoint', compactions: 0 }), NOW);
  assert.equal(own.contextValue, 'splitpoint.session.own', 'its own sessions are resumed, not continued');
  assert.doesNotMatch(own.description, /compaction/, 'no compaction count when there is none');
});

test('a row whose agent is writing now says so and spins; unknown figures are left out, a long title is cut', () => {
  const row = sessionRow(session({ writing: true, lastActivity: NOW - 2_000 }), NOW);
  assert.match(row.description, /^● writing now · Claude Code · claude-opus-4-5 · just now/);
  assert.equal(row.icon, 'loading~spin');
  assert.match(row.tooltip, /writing now/);

  const bare = sessionRow(
    session({ title: null, model: null, lastActivity: null, contextTokens: null, contextWindow: null, compactions: 0 }),
    NOW,
  );
  assert.equal(bare.label, 'abc.jsonl', 'no title: the file name');
  assert.equal(bare.description, 'Claude Code');

  const long = sessionRow(session({ title: `Please ${'really '.repeat(40)}fix it\nnow` }), NOW);
  assert.ok(long.label.length <= 80 && long.label.endsWith('…'), long.label);
  assert.ok(!long.label.includes('\n'));
});

test('a session with a problem and a problem of the discovery are warning rows; a title cannot inject markdown', () => {
  const row = sessionRow(session({ problem: 'line 3: not a Claude Code or Codex session' }), NOW);
  assert.equal(row.icon, 'warning');
  assert.match(row.description, /line 3: not a Claude Code or Codex session$/);
  const p = problemRow('Cannot read /home/u/.codex/sessions: permission denied');
  assert.equal(p.icon, 'warning');
  assert.equal(p.contextValue, 'splitpoint.problem');
  assert.equal(p.file, undefined, 'nothing to open');

  const hostile = sessionRow(session({ title: '[click](command:workbench.action.quit) <img src=x>' }), NOW);
  assert.ok(!hostile.tooltip.includes('](command:'), hostile.tooltip);
  assert.ok(!/(^|[^\\])<img/.test(hostile.tooltip), `no unescaped HTML: ${hostile.tooltip}`);
});

test('rows: newest activity first, unknown activity last, then the problems', () => {
  const rows = sessionRows(
    {
      sessions: [
        session({ file: '/a', lastActivity: NOW - 3_600_000 }),
        session({ file: '/b', lastActivity: null }),
        session({ file: '/c', lastActivity: NOW - 10_000 }),
      ],
      problems: ['Cannot read /x'],
    },
    NOW,
  );
  assert.deepEqual(
    rows.map((r) => r.id),
    ['/c', '/a', '/b', 'problem:Cannot read /x'],
  );
});

test('relative times and thousands', () => {
  assert.equal(relativeTime(NOW - 10_000, NOW), 'just now');
  assert.equal(relativeTime(NOW - 90 * 60_000, NOW), '2 h ago');
  assert.equal(relativeTime(NOW - 3 * 86_400_000, NOW), '3 d ago');
  assert.equal(relativeTime(NOW - 90 * 86_400_000, NOW), '2026-08-28');
  assert.equal(relativeTime(NOW + 5_000, NOW), 'just now', 'a clock a little ahead');
  assert.equal(thousands(1_234_567), '1,234,567');
  assert.equal(thousands(999), '999');
});

function status(over: Partial<LiveStatus> = {}): LiveStatus {
  return {
    agent: 'claude-code',
    model: 'claude-opus-4-5',
    contextTokens: 124_000,
    contextWindow: 200_000,
    windowSource: 'model',
    compactAt: 167_000,
    compactAtSource: 'window - output reserve - buffer',
    callsToCompaction: 12,
    growthPerCall: 3_500,
    costSoFar: 4.25,
    priceSource: 'table',
    calls: 80,
    compactions: 1,
    lastCompaction: null,
    agentConfig: 'claude-code-like',
    ...over,
  };
}

test('the follow status bar: agent, % of its window, calls to its compaction; gone says so', () => {
  assert.equal(followStatusText(status(), false).text, '$(eye) Claude Code 62% · 12 calls to compact');
  assert.equal(followStatusText(status({ callsToCompaction: 1 }), false).text, '$(eye) Claude Code 62% · 1 call to compact');
  assert.equal(followStatusText(status({ callsToCompaction: 0 }), false).text, '$(eye) Claude Code 62% · at its compaction point');
  assert.equal(followStatusText(status({ agent: 'codex', callsToCompaction: null }), false).text, '$(eye) Codex 62%');
  assert.equal(followStatusText(status({ contextTokens: null, callsToCompaction: null }), false).text, '$(eye) Claude Code');
  assert.equal(followStatusText(status(), true).text, '$(eye-closed) Claude Code: file gone');
  const { tooltip } = followStatusText(status(), false);
  assert.match(tooltip, /Context now: 124,000 of 200,000 tokens \(62%\)/);
  assert.match(tooltip, /compacts at about 167,000 tokens/);
  assert.match(tooltip, /Cost so far: \$4\.25/);
});

test("the folders watched: each workspace's Claude Code project folder, Codex's sessions, Splitpoint's own", () => {
  const dirs = watchedFolders(['/w/my.app'], { CLAUDE_CONFIG_DIR: '/cfg/claude', CODEX_HOME: '' }, '/home/u', '/store/sessions');
  assert.equal(dirs[0], '/cfg/claude/projects/-w-my-app');
  assert.ok(dirs.includes('/cfg/claude/projects/-w-my.app'), 'the other spelling Claude Code used');
  assert.ok(dirs.includes('/home/u/.codex/sessions'), 'an empty CODEX_HOME is not set');
  assert.ok(
    dirs.some((d) => /^\/home\/u\/\.codex\/sessions\/\d{4}\/\d{2}\/\d{2}$/.test(d)),
    "today's rollouts",
  );
  assert.equal(dirs.at(-1), '/store/sessions');
});
